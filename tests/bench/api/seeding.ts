import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { sqliteFile } from '../../../server/db/sqlite';
import type { Database, Engine } from '../../../server/db/types';
import { HISTORY_PER_USER, log, secondsSince } from './options';
import { calendarBefore, DROP_TEMP, existingUsers, newUsers, setUp, usage, type Statement } from './seedSql';

/**
 * Runs the seeding SQL of `seedSql.ts`: a whole population on a database the app has migrated and
 * nobody uses yet (its own connection, made for bulk loading), or the history of a few users on
 * a running app's database (one of the app's connections). Temp tables live on one connection,
 * so each seeding runs all its statements on one.
 */

const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** The tables `seedSql.ts` fills. */
const SEEDED_TABLES = ['users', 'sessions', 'subscriptions', 'usage_days', 'usage_months', 'usage_ledger'];

/** One connection that runs statements and answers how many rows each changed. */
interface Runner {
  run(sqlText: string): Promise<number>;
}

async function runAll(runner: Runner, statements: Statement[], progress: ((line: string) => void) | null): Promise<void> {
  for (const statement of statements) {
    const start = performance.now();
    let rows: number;
    try {
      rows = await runner.run(statement.sql);
    } catch (error) {
      throw new Error(`seeding (${statement.what}) failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (progress && rows > 0) progress(`${statement.what}: ${rows.toLocaleString('en')} rows in ${secondsSince(start)} s`);
  }
}

export interface SeedSize {
  users: number;
  ledgerRows: number;
}

/**
 * Bytes a ledger row takes with its share of the other tables and the indexes, as measured: about
 * 440 on SQLite and 415 on PostgreSQL; with some room.
 */
const BYTES_PER_ROW: Record<Engine, number> = { sqlite: 550, postgres: 550 };

/**
 * Stops before seeding when the disk of `dir` (where the SQLite file goes, and on this machine
 * PostgreSQL's data too) lacks room for the seeded database: a full disk mid-way would take the
 * work of everything else on the machine with it.
 */
export function assertRoomFor(dir: string, engine: Engine, size: SeedSize): void {
  const { bavail, bsize } = fs.statfsSync(dir);
  const free = bavail * bsize;
  const needed = size.ledgerRows * BYTES_PER_ROW[engine];
  if (free < needed) throw new Error(`seeding ${size.ledgerRows} ledger rows on ${ENGINE_NAMES[engine]} needs about ${formatBytes(needed)} of disk, ${formatBytes(free)} is free`);
}

export interface Seeded {
  /** Seconds the seeding took, the final VACUUM ANALYZE of PostgreSQL included. */
  seconds: number;
  /** Bytes the database takes on disk afterwards. */
  bytes: number;
}

/**
 * Seeds `size` users and ledger rows into the migrated, unused SQLite database of `dataDir`: own
 * connection, no journal and no syncs (a crash would only lose the seed).
 */
export async function seedSqlite(dataDir: string, size: SeedSize, now: number): Promise<Seeded> {
  const start = performance.now();
  const file = sqliteFile(dataDir);
  const db = new SQLite(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1048576');
    db.pragma('temp_store = MEMORY');
    await runAll({ run: async (text) => db.prepare(text).run().changes }, population('sqlite', size, now), (line) => log(`  SQLite ${line}`));
    // The app opens it in WAL mode again; no -wal file is left behind.
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
  return { seconds: (performance.now() - start) / 1000, bytes: fs.statSync(file).size };
}

/**
 * Seeds `size` users and ledger rows into the migrated, unused PostgreSQL database at `url`. The
 * ledger's indexes stay in place, grown as the app grows them: dropping its three and building
 * them afterwards made the seeding 1.5 times as fast at 1,000,000 rows (7.2 s against 10.6 s),
 * not enough to tie this file to the app's index definitions.
 */
export async function seedPostgres(url: string, size: SeedSize, now: number): Promise<Seeded> {
  const start = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const run = async (text: string) => (await client.query(text)).rowCount ?? 0;
    // No per-row foreign-key triggers (the rows are consistent by construction; needs a superuser,
    // as the test databases' owner is) and no waiting for the WAL's flush at each commit.
    await run('set session_replication_role = replica');
    await run('set synchronous_commit = off');
    await run(`set work_mem = '256MB'`);
    await run(`set maintenance_work_mem = '1GB'`);
    await runAll({ run }, population('postgres', size, now), (line) => log(`  PostgreSQL ${line}`));
    // What autovacuum would have done over 13 months to the seeded tables: statistics, the
    // visibility map and hint bits, so the bench's first reads do not write them. Only those: a
    // table analyzed while empty (usage_seconds, team_members) is planned as empty, with sequential
    // scans kept in the prepared statements' plans as it fills, where the empty database's
    // never-analyzed tables get index scans.
    const vacuum = performance.now();
    await run(`vacuum analyze ${SEEDED_TABLES.join(', ')}`);
    log(`  PostgreSQL vacuum analyze: ${secondsSince(vacuum)} s`);
    const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    return { seconds: (performance.now() - start) / 1000, bytes: Number(rows[0]!.bytes) };
  } finally {
    await client.end();
  }
}

function population(engine: Engine, size: SeedSize, now: number): Statement[] {
  const calendar = calendarBefore(now);
  return [...DROP_TEMP, ...setUp(calendar), ...newUsers(engine, size.users, calendar, now), ...usage(engine, size.users, size.ledgerRows, calendar), ...DROP_TEMP];
}

/**
 * Gives users registered through the API (on a running app) 13 months of history, as much as an
 * average seeded user has, with counters that agree with it. Runs on one of the app's connections.
 */
export async function addHistory(db: Kysely<Database>, engine: Engine, userIds: string[]): Promise<void> {
  const calendar = calendarBefore(Date.now());
  const statements = [
    ...DROP_TEMP,
    ...setUp(calendar),
    ...existingUsers(engine, userIds),
    ...usage(engine, userIds.length, userIds.length * HISTORY_PER_USER, calendar),
    ...DROP_TEMP,
  ];
  await db.connection().execute((conn) => runAll({ run: async (text) => Number((await sql.raw(text).execute(conn)).numAffectedRows ?? 0) }, statements, null));
}

export const engineName = (engine: Engine) => ENGINE_NAMES[engine];

export function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}
