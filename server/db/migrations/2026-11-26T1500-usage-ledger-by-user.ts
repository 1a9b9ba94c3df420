import type { Kysely } from 'kysely';

/**
 * A user's ledger rows by day: what usage analytics, the per-query CSV and the account export read
 * (server/domain/analytics.ts, accountExport.ts). The ledger is keyed by request id first
 * (2026-11-23T0600), so without it each of those reads would walk every user's rows of 13 months.
 * A query's own statements take one more index entry per accepted query, as `usage_ledger(month)`
 * does (2026-11-24T0200).
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('usage_ledger_by_user_day').on('usage_ledger').columns(['user_id', 'day']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_ledger_by_user_day').execute();
}
