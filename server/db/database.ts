import { Migrator, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import { postgresGroupCommit, sqliteGroupCommit, type GroupCommit } from './batching';
import { walCheckpoints } from './checkpoints';
import { postgresKeyedReads, sqliteKeyedReads, type KeyedRead } from './keyedReads';
import { migrations } from './migrations';
import { openPostgres } from './postgres';
import { openSqlite } from './sqlite';
import type { Database, Engine } from './types';

/**
 * The database handle the app is given: one engine (`sqlite.ts` or `postgres.ts`) with Kysely for
 * everyday statements and three hand-made paths where the hot paths need them, composed here:
 * cached or batched reads by key (`keyedReads.ts`), units of writes batched into shared commits
 * (`batching.ts`), and single prepared reads; on SQLite, WAL checkpoints on a thread of their own
 * once the WAL grows (`checkpoints.ts`). Each file states the invariants it keeps.
 * Migrations run on open, on both engines, before the handle is returned.
 */

export type { SqlTransaction } from './statements';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /**
   * Answers whether the database can run a statement now, within `timeoutMs`: on PostgreSQL on a
   * connection of its own, so it never waits behind the pool's queue.
   */
  ping(timeoutMs?: number): Promise<boolean>;
  /**
   * Runs one read on a hot path straight on the driver, as a statement prepared once (SQLite) or
   * a named prepared statement (PostgreSQL), built with Kysely (`db` or a `sql` template); first
   * row or undefined.
   */
  preparedFirst<T>(name: string, query: Compilable<T> | RawBuilder<T>): Promise<T | undefined>;
  /**
   * The row of one key, for a read that runs on most requests (the session check). `sqlFor(keys)`
   * gives the statement, with `keys` where the key is compared (`where sessions.id ${keys}`), and
   * must select the key as `key`. The answer is always the one a read made after the call would
   * give, but cheaper than one read per call. On SQLite the statement may read only the tables
   * whose changes move `account_generation` (see `keyedReads.ts`); it must not depend on the time.
   */
  keyedRead: KeyedRead;
  /**
   * Runs `work` as one unit of writes that commits or rolls back whole; what it throws comes back
   * to the caller, and nothing of it is kept. `work` must await nothing but `tx` statements.
   * Units submitted together share a commit (`batching.ts`); on PostgreSQL, units of one `key`
   * (the rows they lock) run one after another.
   */
  groupCommit: GroupCommit;
  /** How many connections the handle's statements share: PostgreSQL's pool size, 1 on SQLite. */
  connections: number;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL's pool size; 20 when not given. */
  databasePoolSize?: number;
  /** SQLite: where a checkpoint that failed on the checkpoints' thread is told (`checkpoints.ts`). */
  onCheckpointError?: (message: string) => void;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let handle: DatabaseHandle;
  if (options.databaseUrl) {
    const poolSize = options.databasePoolSize ?? 20;
    const { pool, db, ping, preparedFirst, inTransaction, close } = openPostgres(options.databaseUrl, poolSize);
    handle = {
      db,
      engine: 'postgres',
      connections: poolSize,
      ping,
      preparedFirst,
      keyedRead: postgresKeyedReads(pool),
      groupCommit: postgresGroupCommit(inTransaction),
      close,
    };
  } else {
    const { file, statements, db, ping, preparedFirst, walPath } = openSqlite(options.dataDir);
    const checkpoints = walCheckpoints(file.name, walPath, { onError: options.onCheckpointError });
    const commits = sqliteGroupCommit(db, statements, walPath, checkpoints.committed);
    const close = async () => {
      await checkpoints.close();
      commits.close();
      await db.destroy();
    };
    handle = { db, engine: 'sqlite', connections: 1, ping, preparedFirst, keyedRead: sqliteKeyedReads(file, statements), groupCommit: commits.groupCommit, close };
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
