import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations';
import type { Database, Engine } from './types';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Statements of one transaction straight on the driver: `?` placeholders; answers the rows (a write's RETURNING rows). */
export interface SqlTransaction {
  all<T>(sqlText: string, params: readonly unknown[]): Promise<T[]>;
}

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
  /**
   * The row of one key, for a read that runs on most requests (the session check). `sqlFor(keys)`
   * gives the statement, with `keys` where the key is compared (`where sessions.id ${keys}`), and
   * must select the key as `key`. The answer is always the one a read made after the call would
   * give, but cheaper than one read per call:
   * - SQLite keeps answers for as long as the account tables (sessions, users, subscriptions)
   *   have not changed since they were read: triggers move a counter (`account_generation`) in
   *   the same transaction as any change to them, by any connection or process, so a keyed read
   *   may read those tables only. The keys asked for in one turn of the event loop share one
   *   look at the counter, made after all of them were asked.
   * - PostgreSQL, where other instances write unseen, reads every time, but the keys asked for
   *   in one turn of the event loop share one statement (one round trip for all of them).
   * The SQL must not depend on the time: compare times in code.
   */
  keyedRead<T extends { key: string }>(name: string, sqlFor: (keys: string) => string, key: string): Promise<T | undefined>;
  /**
   * Runs `work` as one unit of writes that commits or rolls back whole; what it throws comes back
   * to the caller, and nothing of it is kept. `work` must await nothing but `tx` statements.
   * SQLite syncs every commit to disk (synchronous=FULL), so units submitted in the same turn of
   * the event loop share one transaction and one sync (group commit), each in its own savepoint.
   * PostgreSQL gives each unit its own transaction: the server already flushes concurrent commits
   * together. There, units of one `key` (the rows they lock) run one after another, so they
   * wait for each other here rather than on row locks while holding pooled connections, and
   * those that waited together then share one transaction, each in its own savepoint.
   */
  groupCommit<T>(work: (tx: SqlTransaction) => Promise<T>, key?: string): Promise<T>;
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

/**
 * The file holds the signing secret and the password hashes: only the server's user may read it.
 * SQLite gives the -wal and -shm files the database file's mode, so creating that one 0600 is
 * enough for new files; files left by an older version are narrowed on open.
 */
function openSqlite(dataDir: string): SQLite.Database {
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
  // A checkpoint copies the WAL's pages into the database file and syncs it, on the event loop.
  // The metering rows a burst of queries updates are the same few pages again and again: after
  // 10,000 pages (40 MiB) rather than SQLite's 1,000, a checkpoint copies each of them once for
  // ten times as many commits. Measured under 100 clients: about a tenth less CPU per query.
  file.pragma('wal_autocheckpoint = 10000');
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

/**
 * Collects what is asked during one turn of the event loop and hands it to `flush` as one batch,
 * once the turn's I/O callbacks (the requests that came together) have all asked.
 */
function perTurn<T>(flush: (batch: T[]) => void): (item: T) => void {
  let queue: T[] = [];
  return (item) => {
    if (queue.length === 0) {
      setImmediate(() => {
        const batch = queue;
        queue = [];
        flush(batch);
      });
    }
    queue.push(item);
  };
}

/** A caller waiting for its row of a batched read. */
interface WaitingRead {
  key: string;
  resolve: (row: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs a batch's units one after another in an open transaction, each in its own savepoint, so a
 * unit that throws takes back only its own writes. Returns how to report each unit, to be called
 * once the transaction is known to be committed. A batch of one needs no savepoint: its error
 * ends the transaction.
 */
async function runUnits(tx: SqlTransaction, batch: Unit[]): Promise<Array<() => void>> {
  const outcomes: Array<() => void> = [];
  const alone = batch.length === 1;
  for (const unit of batch) {
    if (!alone) await tx.all('savepoint unit', []);
    try {
      const value = await unit.work(tx);
      if (!alone) await tx.all('release savepoint unit', []);
      outcomes.push(() => unit.resolve(value));
    } catch (error) {
      if (alone) throw error;
      await tx.all('rollback to savepoint unit', []);
      await tx.all('release savepoint unit', []);
      outcomes.push(() => unit.reject(error));
    }
  }
  return outcomes;
}

/**
 * Reads by key on SQLite, answered from what was read before for as long as the account tables
 * stay as they were then (their `account_generation`, moved by triggers on every change). Looking
 * at it costs a read transaction, whose file locks cost more than the lookups themselves, so the
 * keys asked for in one turn of the event loop are answered together after one look, made after
 * every one of them was asked. Answers read inside a transaction are never kept: they may be
 * rolled back.
 */
function sqliteKeyedReads(file: SQLite.Database, statements: ReturnType<typeof withStatementCache>, limit = 10_000) {
  const answers = new Map<string, unknown>();
  // Prepared at the first read: the table comes with the migrations, which run after opening.
  let generationStatement: SQLite.Statement | null = null;
  const generation = () => (generationStatement ??= file.prepare('select generation from account_generation where id = 1').pluck()).get() as number;
  let seenGeneration = -1;
  const texts = new Map<string, string>();

  const ask = perTurn<WaitingRead & { kept: string; sqlText: string }>((batch) => {
    const keep = !statements.inTransaction;
    try {
      const now = generation();
      if (now !== seenGeneration || answers.size >= limit) {
        answers.clear();
        seenGeneration = now;
      }
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    for (const w of batch) {
      try {
        if (keep && answers.has(w.kept)) {
          w.resolve(answers.get(w.kept));
          continue;
        }
        // Frozen: every caller gets this same object.
        const answer = Object.freeze(statements.prepare(w.sqlText).get(w.key));
        if (keep) answers.set(w.kept, answer);
        w.resolve(answer);
      } catch (error) {
        w.reject(error);
      }
    }
  });

  return <T extends { key: string }>(name: string, sqlFor: (keys: string) => string, key: string): Promise<T | undefined> =>
    new Promise<T | undefined>((resolve, reject) => {
      let sqlText = texts.get(name);
      if (!sqlText) {
        sqlText = sqlFor('= ?');
        texts.set(name, sqlText);
      }
      ask({ kept: `${name}\u0000${key}`, sqlText, key, resolve: resolve as (row: unknown) => void, reject });
    });
}

/**
 * Reads by key on PostgreSQL: the keys asked for in one turn of the event loop are read with one
 * statement (`= any($1)`), at most `batchSize` at a time. Each caller's read starts after its call.
 */
function postgresKeyedReads(pool: pg.Pool, batchSize = 200) {
  const readers = new Map<string, (waiting: WaitingRead) => void>();
  const read = async (name: string, text: string, waiting: WaitingRead[]) => {
    try {
      const keys = [...new Set(waiting.map((w) => w.key))];
      const result = await pool.query({ name, text, values: [keys] });
      const rows = new Map<string, unknown>(result.rows.map((row: { key: string }) => [row.key, row]));
      for (const w of waiting) w.resolve(rows.get(w.key));
    } catch (error) {
      for (const w of waiting) w.reject(error);
    }
  };
  return <T extends { key: string }>(name: string, sqlFor: (keys: string) => string, key: string): Promise<T | undefined> =>
    new Promise<T | undefined>((resolve, reject) => {
      let ask = readers.get(name);
      if (!ask) {
        const text = numberedParams(sqlFor('= any(?)'));
        ask = perTurn<WaitingRead>((waiting) => {
          for (let i = 0; i < waiting.length; i += batchSize) void read(name, text, waiting.slice(i, i + batchSize));
        });
        readers.set(name, ask);
      }
      ask({ key, resolve: resolve as (row: unknown) => void, reject });
    });
}

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
function numberedParams(sqlText: string): string {
  let n = 0;
  return sqlText.replace(/\?/g, () => `$${++n}`);
}

interface Unit {
  work: (tx: SqlTransaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Syncs the WAL file to disk on libuv's thread pool, so the event loop goes on meanwhile. A sync
 * covers every commit made before it starts: callers that arrive while one runs share the next.
 */
function walSyncer(walPath: string) {
  let fd: number | null = null;
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const syncNow = () => {
    fd ??= fs.openSync(walPath, 'r');
    const handle = fd;
    return new Promise<void>((resolve, reject) => fs.fdatasync(handle, (error) => (error ? reject(error) : resolve())));
  };
  const sync = (): Promise<void> => {
    if (!running) {
      running = syncNow().finally(() => {
        running = null;
      });
      return running;
    }
    queued ??= running.then(
      () => {
        queued = null;
        return sync();
      },
      () => {
        queued = null;
        return sync();
      },
    );
    return queued;
  };
  return {
    sync,
    close() {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}

/**
 * Group commit on the one SQLite connection. The batch takes the connection through Kysely, so it
 * never lands inside a Kysely transaction that is waiting on something; its statements then run
 * synchronously on the driver, so nothing else writes between them.
 *
 * What the units report is as durable as under synchronous=FULL: no outcome is reported before
 * its commit is on disk. The batch commits with synchronous=NORMAL, which skips the sync SQLite would do inside
 * COMMIT, on the event loop; `walSyncer` then syncs the WAL off the loop, where the requests of
 * the next batch can be parsed meanwhile. Checkpoints still sync as under FULL, and every other
 * transaction on the connection keeps FULL.
 */
function sqliteGroupCommit(db: Kysely<Database>, statements: ReturnType<typeof withStatementCache>, wal: ReturnType<typeof walSyncer>) {
  const run = <T,>(sqlText: string, params: readonly unknown[] = []): T[] => {
    const statement = statements.prepare(sqlText);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  };
  const tx: SqlTransaction = { all: async (sqlText, params) => run(sqlText, params) };

  const flush = async (batch: Unit[]) => {
    let outcomes: Array<() => void>;
    try {
      outcomes = await db.connection().execute(async () => {
        run('PRAGMA synchronous = NORMAL');
        try {
          run('BEGIN IMMEDIATE');
          const reports = await runUnits(tx, batch);
          run('COMMIT');
          return reports;
        } catch (error) {
          // The batch failed (disk full, I/O error, or the error of a batch of one): nothing of
          // it is kept. Still holding the connection, so the rollback cannot reach anyone else's
          // transaction.
          if (statements.inTransaction) run('ROLLBACK');
          throw error;
        } finally {
          run('PRAGMA synchronous = FULL');
        }
      });
      await wal.sync();
    } catch (error) {
      // Rolled back, or committed but not known to be on disk: no unit is reported done.
      for (const unit of batch) unit.reject(error);
      return;
    }
    for (const outcome of outcomes) outcome();
  };

  const submit = perTurn<Unit>((batch) => void flush(batch));
  return <T,>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => submit({ work, resolve: resolve as (value: unknown) => void, reject }));
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let handle: DatabaseHandle;
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 20 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    // Health checks that come while one is on its way share its answer: one round trip for all.
    let pinging: Promise<boolean> | null = null;
    const ping = () =>
      (pinging ??= pool
        .query('select 1')
        .then(() => true, () => false)
        .finally(() => {
          pinging = null;
        }));
    const texts = new Map<string, string>();
    const preparedFirst = async <T,>(name: string, sqlText: string, params: unknown[]) => {
      let text = texts.get(name);
      if (!text) {
        text = numberedParams(sqlText);
        texts.set(name, text);
      }
      const result = await pool.query({ name, text, values: params });
      return result.rows[0] as T | undefined;
    };
    const named = new Map<string, { name: string; text: string }>();
    const inTransaction = async <T,>(work: (tx: SqlTransaction) => Promise<T>) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      const tx: SqlTransaction = {
        async all<R>(sqlText: string, params: readonly unknown[]) {
          let statement = named.get(sqlText);
          if (!statement) {
            statement = { name: `unit_${named.size}`, text: numberedParams(sqlText) };
            named.set(sqlText, statement);
          }
          const result = await client.query({ ...statement, values: params as unknown[] });
          return result.rows as R[];
        },
      };
      try {
        await client.query('BEGIN');
        const value = await work(tx);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        // A connection that could not even roll back is dropped, not reused.
        client.release(broken);
      }
    };
    // Units waiting for their key's transaction to end; a key is here while one is running.
    const waiting = new Map<string, Unit[]>();
    /**
     * The units of one key that waited together commit together, each in a savepoint (as a SQLite
     * batch does): a user's queries that come at once share a commit instead of queueing for one
     * each.
     */
    const commitTogether = async (key: string, batch: Unit[]) => {
      try {
        const outcomes = await inTransaction((tx) => runUnits(tx, batch));
        for (const outcome of outcomes) outcome();
      } catch (error) {
        for (const unit of batch) unit.reject(error);
      }
      const next = waiting.get(key)!;
      if (next.length === 0) {
        waiting.delete(key);
      } else {
        waiting.set(key, []);
        void commitTogether(key, next);
      }
    };
    const groupCommit = <T,>(work: (tx: SqlTransaction) => Promise<T>, key?: string): Promise<T> => {
      if (key === undefined) return inTransaction(work);
      return new Promise<T>((resolve, reject) => {
        const unit: Unit = { work, resolve: resolve as (value: unknown) => void, reject };
        const queue = waiting.get(key);
        if (queue) {
          queue.push(unit);
          return;
        }
        waiting.set(key, []);
        void commitTogether(key, [unit]);
      });
    };
    const keyedRead = postgresKeyedReads(pool);
    handle = { db, engine: 'postgres', ping, preparedFirst, keyedRead, groupCommit, close: () => db.destroy() };
  } else {
    const file = openSqlite(options.dataDir);
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
    const preparedFirst = async <T,>(_name: string, sqlText: string, params: unknown[]) =>
      statements.prepare(sqlText).get(...params) as T | undefined;
    const keyedRead = sqliteKeyedReads(file, statements);
    const wal = walSyncer(`${sqliteFile(options.dataDir)}-wal`);
    const groupCommit = sqliteGroupCommit(db, statements, wal);
    const close = async () => {
      wal.close();
      await db.destroy();
    };
    handle = { db, engine: 'sqlite', ping, preparedFirst, keyedRead, groupCommit, close };
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
