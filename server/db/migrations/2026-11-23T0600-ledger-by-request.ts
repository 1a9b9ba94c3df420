import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * The ledger is keyed by request id first, then user: (request_id, user_id) instead of (user_id,
 * request_id). The server's request ids are time-ordered (UUIDv7), so each new row goes at the end
 * of the key order, next to the rows the queries before it added. Keyed by user first, the queries
 * of one group commit each landed in their own user's part of the table: a page to read and a page
 * to write per query, where now a batch of queries fills one page or two.
 *
 * A request id still belongs to one user: the same Idempotency-Key from two users is two rows. No
 * query reads the ledger by user alone; deleting an account finds its rows by a scan.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await keyLedger(db, ['request_id', 'user_id']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await keyLedger(db, ['user_id', 'request_id']);
}

type LedgerKey = ['request_id', 'user_id'] | ['user_id', 'request_id'];

async function keyLedger(db: Kysely<unknown>, key: LedgerKey): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    await sql`alter table usage_ledger drop constraint usage_ledger_pk`.execute(db);
    await sql`alter table usage_ledger add constraint usage_ledger_pk primary key (${sql.ref(key[0])}, ${sql.ref(key[1])})`.execute(db);
    return;
  }
  // SQLite cannot change a primary key in place: the table is created anew with all its rows.
  await db.schema
    .createTable('usage_ledger_rekeyed')
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
    .addPrimaryKeyConstraint('usage_ledger_pk', key)
    .modifyEnd(sql`without rowid`)
    .execute();
  await sql`insert into usage_ledger_rekeyed select * from usage_ledger`.execute(db);
  await sql`drop table usage_ledger`.execute(db);
  await sql`alter table usage_ledger_rekeyed rename to usage_ledger`.execute(db);
}
