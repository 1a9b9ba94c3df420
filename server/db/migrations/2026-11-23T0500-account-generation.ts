import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** The tables the session check reads (`activeSessionUser`, a keyed read). */
const ACCOUNT_TABLES = ['sessions', 'users', 'subscriptions'];
const CHANGES = ['insert', 'update', 'delete'];

/**
 * On SQLite, a counter that every change to the account tables moves, in the same transaction
 * (triggers, so a change made by any connection or process, or by hand, counts). The session
 * check keeps its answers while the counter stays put: metering writes, which commit on almost
 * every turn of the event loop under load, no longer throw them away. PostgreSQL keeps no answers.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create table account_generation (id integer primary key check (id = 1), generation integer not null)`.execute(db);
  await sql`insert into account_generation (id, generation) values (1, 0)`.execute(db);
  for (const table of ACCOUNT_TABLES) {
    for (const change of CHANGES) {
      await sql
        .raw(
          `create trigger ${table}_${change}_generation after ${change} on ${table}
           begin update account_generation set generation = generation + 1 where id = 1; end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of ACCOUNT_TABLES) {
    for (const change of CHANGES) await sql.raw(`drop trigger ${table}_${change}_generation`).execute(db);
  }
  await sql`drop table account_generation`.execute(db);
}
