import type { Kysely } from 'kysely';

/**
 * Queries their clients abandoned (docs/metering.md): refunded, so they count in none of the
 * user's figures, but what the provider had already spent on them is the operator's cost, kept
 * per user and UTC day beside the day's counters (and pruned with them).
 */

// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_days').addColumn('abandoned_queries', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('usage_days').addColumn('abandoned_tokens', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_days').dropColumn('abandoned_tokens').execute();
  await db.schema.alterTable('usage_days').dropColumn('abandoned_queries').execute();
}
