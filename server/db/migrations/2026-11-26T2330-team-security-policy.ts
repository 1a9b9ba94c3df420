import type { Kysely } from 'kysely';

/**
 * The team's security policy (decisions.md, "Team security policy"): whether members must have a
 * second factor, and how many hours a member's session lasts (null: the usual 30 days).
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('teams').addColumn('require_two_factor', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('teams').addColumn('session_max_age_hours', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('teams').dropColumn('session_max_age_hours').execute();
  await db.schema.alterTable('teams').dropColumn('require_two_factor').execute();
}
