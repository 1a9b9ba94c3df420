import type { Kysely } from 'kysely';

// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per user who ever started a paid subscription; no row means Free (decisions.md).
  // The plan is written only by the billing event handler, from the provider's price.
  await db.schema
    .createTable('subscriptions')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_period_start', 'bigint')
    .addColumn('current_period_end', 'bigint')
    // 0 or 1 on both engines: the plan changes to `scheduled_plan` at `current_period_end`.
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scheduled_plan', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_customer_id', 'text')
    .addColumn('provider_subscription_id', 'text', (c) => c.unique())
    // The provider's time of the newest event applied: older events are ignored (any order).
    .addColumn('provider_updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('subscriptions').execute();
}
