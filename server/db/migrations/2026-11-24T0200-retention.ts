import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * What the retention job (`server/domain/retention.ts`) needs: a table its pruned team ledger rows
 * are rolled into, and an index for each condition it prunes by, so a batch finds its rows without
 * reading the whole table.
 *
 * `usage_rollups` holds, per team, member, UTC day and task, the queries and tokens of ledger rows
 * made for the team that were pruned, and the newest of their times: everything the team's usage
 * (per day and member, per task, per member) and its members list read of those rows, so a read
 * of ledger rows plus rollups gives the same figures before and after pruning. Keyed team first,
 * as every read of it asks for one team (one month of it, or all); clustered by that key on SQLite
 * (WITHOUT ROWID), as the other usage tables are (2026-11-23T0400).
 *
 * The new indexes never slow a query's own statements much: `usage_ledger(month)` takes one more
 * entry per query, appended at the end of its month; `usage_days(day)` and
 * `team_member_months(month)` take one per user and day or month, since a query's upserts change
 * counters, not the indexed period.
 */
/** Each condition the job prunes by (`usage_seconds` and `api_keys` are small enough to scan). */
const INDEXES: Array<[name: string, table: string, column: string]> = [
  ['usage_ledger_by_month', 'usage_ledger', 'month'],
  ['usage_days_by_day', 'usage_days', 'day'],
  ['team_member_months_by_month', 'team_member_months', 'month'],
  ['sessions_by_expiry', 'sessions', 'expires_at'],
  ['password_resets_by_expiry', 'password_resets', 'expires_at'],
  ['device_grants_by_expiry', 'device_grants', 'expires_at'],
  ['team_invitations_by_expiry', 'team_invitations', 'expires_at'],
  ['billing_test_sessions_by_expiry', 'billing_test_sessions', 'expires_at'],
  ['billing_events_by_received', 'billing_events', 'received_at'],
  ['team_audit_log_by_time', 'team_audit_log', 'at'],
];

// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_rollups')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('task', 'text', (c) => c.notNull())
    .addColumn('queries', 'integer', (c) => c.notNull())
    // Answered queries' tokens, and the reservations of queries never answered, as the ledger reads count them.
    .addColumn('tokens', 'bigint', (c) => c.notNull())
    // The newest `created_at` of the rows rolled in: a member's last activity.
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_rollups_pk', ['team_id', 'month', 'day', 'user_id', 'task'])
    .$call((table) => (db.getExecutor().adapter instanceof SqliteAdapter ? table.modifyEnd(sql`without rowid`) : table))
    .execute();

  for (const [name, table, column] of INDEXES) await db.schema.createIndex(name).on(table).column(column).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await db.schema.dropIndex(name).execute();
  await db.schema.dropTable('usage_rollups').execute();
}
