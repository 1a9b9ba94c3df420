import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Compilable, type RawBuilder } from 'kysely';
import { compile } from './statements';
import type { Database } from './types';

/**
 * The SQLite engine: one file, one connection, opened for durability and owner-only access.
 *
 * Invariants:
 * - The file and its -wal and -shm companions are readable by the server's user only (0600): the
 *   file holds the signing secret and the password hashes.
 * - Every commit is synced (synchronous=FULL), except a group commit's, which syncs the WAL itself
 *   before reporting (see `batching.ts`).
 * - Statements compiled for a SQL text are reused; better-sqlite3 runs them synchronously, so one
 *   compiled statement is never in use twice at once.
 */

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'sheetmind.db');
}

/**
 * SQLite gives the -wal and -shm files the database file's mode, so creating that one 0600 is
 * enough for new files; files left by an older version are narrowed on open.
 */
function openFile(dataDir: string): SQLite.Database {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const name = sqliteFile(dataDir);
  fs.closeSync(fs.openSync(name, 'a', 0o600));
  for (const owned of [name, `${name}-wal`, `${name}-shm`]) {
    if (fs.existsSync(owned)) fs.chmodSync(owned, 0o600);
  }
  const file = new SQLite(name);
  // WAL lets readers proceed during a write; FULL syncs every commit so an acknowledged write
  // survives a power cut, not only a process crash.
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = FULL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  // A checkpoint copies the WAL's pages into the database file and syncs it, on the event loop
  // (once the WAL has grown, mostly on a thread of its own instead: `checkpoints.ts`).
  // The metering rows a burst of queries updates are the same few pages again and again: after
  // 10,000 pages (40 MiB) rather than SQLite's 1,000, a checkpoint copies each of them once for
  // ten times as many commits. Measured under 100 clients: about a tenth less CPU per query.
  file.pragma('wal_autocheckpoint = 10000');
  return file;
}

/**
 * better-sqlite3 with compiled statements reused by SQL text: Kysely prepares every query anew,
 * and compiling costs more than running these small lookups.
 */
function withStatementCache(file: SQLite.Database, limit = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => file.close(),
    get inTransaction() {
      return file.inTransaction;
    },
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (!statement) {
        if (cache.size >= limit) cache.clear();
        statement = file.prepare(sqlText);
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

export type StatementCache = ReturnType<typeof withStatementCache>;

export function openSqlite(dataDir: string) {
  const file = openFile(dataDir);
  const statements = withStatementCache(file);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  const probe = file.prepare('select 1');
  // As on PostgreSQL, the health checks that come in together share one probe.
  let pinging: Promise<boolean> | null = null;
  const ping = () =>
    (pinging ??= new Promise<boolean>((resolve) =>
      setImmediate(() => {
        pinging = null;
        try {
          probe.get();
          resolve(true);
        } catch {
          resolve(false);
        }
      }),
    ));
  const preparedFirst = async <T>(_name: string, query: Compilable<T> | RawBuilder<T>) => {
    const { sql: sqlText, parameters } = compile(db, query);
    return statements.prepare(sqlText).get(...parameters) as T | undefined;
  };
  return { file, statements, db, ping, preparedFirst, walPath: `${sqliteFile(dataDir)}-wal` };
}
