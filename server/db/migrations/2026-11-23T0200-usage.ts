import type { Kysely } from 'kysely';

// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Monthly query counter per user and UTC calendar month ('2026-11'): the reservation is one
  // conditional upsert on this row. `settled` and `processing_ms` give the month's mean time.
  await db.schema
    .createTable('usage_months')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('queries', 'integer', (c) => c.notNull())
    .addColumn('settled', 'integer', (c) => c.notNull())
    .addColumn('processing_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_months_pk', ['user_id', 'month'])
    .execute();

  // Daily token counter per user and UTC day ('2026-11-22'): tokens of answered queries plus the
  // reservations of queries still in flight. `last_grant` is what the latest reservation got,
  // written by the same statement that took it, so that statement can report it back.
  await db.schema
    .createTable('usage_days')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('queries', 'integer', (c) => c.notNull())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .addColumn('last_grant', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_days_pk', ['user_id', 'day'])
    .execute();

  // One row per accepted query, keyed by its request id (the client's Idempotency-Key when it
  // sent one), so a retry is never counted twice. Only counts and times: never the prompt, the
  // data or the answer.
  await db.schema
    .createTable('usage_ledger')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('task', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reserved_tokens', 'integer', (c) => c.notNull())
    .addColumn('prompt_tokens', 'integer')
    .addColumn('completion_tokens', 'integer')
    .addColumn('processing_time_ms', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('settled_at', 'bigint')
    .addPrimaryKeyConstraint('usage_ledger_pk', ['user_id', 'request_id'])
    .execute();

  // Accepted queries per user and second (epoch seconds), for "queries in the last 60 s": at most
  // 60 small rows to add up, where counting a busy user's ledger rows would mean thousands.
  // Seconds older than a minute are deleted as the user's new seconds begin.
  await db.schema
    .createTable('usage_seconds')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('second', 'bigint', (c) => c.notNull())
    .addColumn('queries', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_seconds_pk', ['user_id', 'second'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_seconds').execute();
  await db.schema.dropTable('usage_ledger').execute();
  await db.schema.dropTable('usage_days').execute();
  await db.schema.dropTable('usage_months').execute();
}
