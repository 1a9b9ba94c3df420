import type { Kysely } from 'kysely';

// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every provider event handled, keyed by the provider's event id: the row is written in the
  // transaction that applies the event, so a redelivered event finds it and changes nothing.
  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    // The provider's time of the event (ms), which orders events; not when it reached us.
    .addColumn('event_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    // applied, stale (older than the stored state) or ignored (nothing of ours to change).
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();

  // Test-mode checkout and billing-management sessions. The link's token is stored only as its
  // SHA-256 hash, like reset tokens: the database alone cannot open anyone's checkout.
  await db.schema
    .createTable('billing_test_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();

  // Subscription events that carry no user id are matched to the user by the provider's customer.
  await db.schema.createIndex('subscriptions_customer_idx').on('subscriptions').column('provider_customer_id').execute();
  // The period timer looks for test-mode periods that have ended.
  await db.schema.createIndex('subscriptions_period_end_idx').on('subscriptions').columns(['provider', 'current_period_end']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscriptions_period_end_idx').execute();
  await db.schema.dropIndex('subscriptions_customer_idx').execute();
  await db.schema.dropTable('billing_test_sessions').execute();
  await db.schema.dropTable('billing_events').execute();
}
