import { sql, SqliteAdapter, type Kysely } from 'kysely';

const TABLES = ['usage_months', 'usage_days', 'usage_ledger', 'usage_seconds'];

/**
 * On SQLite, the usage tables become WITHOUT ROWID tables: their rows are stored in the order of
 * their primary key (user and period, or user and request id), so the reads and upserts of a
 * query each walk one B-tree instead of an index and then the table, and a user's last 60 seconds
 * lie side by side. PostgreSQL has no such choice; nothing changes there.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of TABLES) await rebuild(db, table, (definition) => `${definition} without rowid`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of TABLES) await rebuild(db, table, (definition) => definition.replace(/\s+without rowid\s*$/i, ''));
}

/** Creates `table` anew from its definition as `change` rewrites it, with all its rows. */
async function rebuild(db: Kysely<unknown>, table: string, change: (definition: string) => string): Promise<void> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  const old = `${table}_before_rebuild`;
  await sql`alter table ${sql.table(table)} rename to ${sql.table(old)}`.execute(db);
  await sql.raw(change(rows[0]!.sql)).execute(db);
  await sql`insert into ${sql.table(table)} select * from ${sql.table(old)}`.execute(db);
  await sql`drop table ${sql.table(old)}`.execute(db);
}
