import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations';
import type { Database, Engine } from './types';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** Answers whether the database can run a statement now. */
  ping(): Promise<boolean>;
  /**
   * Runs one read on a hot path straight on the driver, as a statement prepared once (SQLite) or
   * a named prepared statement (PostgreSQL); `?` placeholders, first row or undefined.
   */
  preparedFirst<T>(name: string, sqlText: string, params: unknown[]): Promise<T | undefined>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'sheetmind.db');
}

function openSqlite(dataDir: string): SQLite.Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = new SQLite(sqliteFile(dataDir));
  // WAL lets readers proceed during a write; FULL syncs every commit so an acknowledged write
  // survives a power cut, not only a process crash.
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = FULL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  return file;
}

/**
 * better-sqlite3 with compiled statements reused by SQL text: Kysely prepares every query anew,
 * and compiling costs more than running these small lookups. Statements run synchronously, so
 * one compiled statement is never in use twice at once.
 */
function withStatementCache(file: SQLite.Database, limit = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => file.close(),
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

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let handle: DatabaseHandle;
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 20 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const ping = () => pool.query('select 1').then(() => true, () => false);
    const texts = new Map<string, string>();
    const preparedFirst = async <T,>(name: string, sqlText: string, params: unknown[]) => {
      let text = texts.get(name);
      if (!text) {
        let n = 0;
        text = sqlText.replace(/\?/g, () => `$${++n}`);
        texts.set(name, text);
      }
      const result = await pool.query({ name, text, values: params });
      return result.rows[0] as T | undefined;
    };
    handle = { db, engine: 'postgres', ping, preparedFirst, close: () => db.destroy() };
  } else {
    const file = openSqlite(options.dataDir);
    const statements = withStatementCache(file);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    const probe = file.prepare('select 1');
    const ping = async () => {
      try {
        probe.get();
        return true;
      } catch {
        return false;
      }
    };
    const preparedFirst = async <T,>(_name: string, sqlText: string, params: unknown[]) =>
      statements.prepare(sqlText).get(...params) as T | undefined;
    handle = { db, engine: 'sqlite', ping, preparedFirst, close: () => db.destroy() };
  }
  try {
    await migrate(handle.db);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
}

export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
