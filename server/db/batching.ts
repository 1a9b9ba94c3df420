import fs from 'node:fs';
import type { Compilable, Kysely, RawBuilder } from 'kysely';
import type { StatementCache } from './sqlite';
import { compile, statementBuilder, type SqlTransaction } from './statements';
import type { Database } from './types';

/**
 * Units of writes, batched: what `DatabaseHandle.groupCommit` runs on each engine.
 *
 * Invariants (tests/api/groupCommit.test.ts):
 * - A unit commits or rolls back whole; in a batch each unit has its own savepoint, so a unit that
 *   throws takes back only its own writes, and its error reaches only its caller.
 * - No unit is reported done before its commit is on disk (SQLite: the WAL synced; PostgreSQL: the
 *   server's COMMIT answered), except one submitted with `{ synced: false }`, which is reported
 *   once committed (see `CommitOptions`). A batch that fails to commit rejects every unit of it,
 *   and one that fails to sync every unit still waiting for it.
 * - A unit awaits nothing but its `tx` statements: the batch's transaction stays open meanwhile.
 * - SQLite: the units submitted in one turn of the event loop share one transaction and one sync.
 *   PostgreSQL: units of one key run one after another in the order they came; those that waited
 *   together share one transaction.
 */

export interface CommitOptions {
  /**
   * False: the unit is reported as soon as its transaction commits, before the commit is on disk
   * (PostgreSQL: `synchronous_commit` off for that transaction). Only for a unit whose loss in a
   * power cut nobody could see, as a query's reservation (`queries.ts`, step 3, says why); a
   * process that crashes loses nothing either way. True by default.
   */
  synced?: boolean;
}

export type GroupCommit = <T>(work: (tx: SqlTransaction) => Promise<T>, key?: string, options?: CommitOptions) => Promise<T>;

/**
 * Collects what is asked during one turn of the event loop and hands it to `flush` as one batch,
 * once the turn's I/O callbacks (the requests that came together) have all asked.
 */
export function perTurn<T>(flush: (batch: T[]) => void): (item: T) => void {
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

/**
 * Whether PostgreSQL ended a statement's transaction to break a deadlock or a serialization
 * conflict: nothing of it was kept, so its work may be asked again.
 */
export const endedByPostgres = (error: unknown): boolean => ['40P01', '40001'].includes(String((error as { code?: unknown }).code));

/** How a batch's calls came out, in their order. */
export type Outcomes<R> = Array<{ value: R } | { error: Error }>;

/**
 * Calls of one kind that come while others are on their way go together: at most `maxInFlight`
 * are on their way at once, and the calls that come meanwhile (or in the same turn of the event
 * loop) wait and go as the next batch, up to `maxBatch` a batch. A call alone goes through `one`;
 * several through `many`, which answers each call's outcome in their order. When `many` fails,
 * every call of it fails with that error, unless `aloneAfter(error)` says the calls may go again
 * one by one (a batch that kept nothing, such as one PostgreSQL chose to end in a deadlock).
 */
export function callsInBatches<I, R>(options: {
  maxBatch: number;
  maxInFlight: number;
  one: (item: I) => Promise<R>;
  many: (items: I[]) => Promise<Outcomes<R>>;
  aloneAfter?: (error: unknown) => boolean;
}): (item: I) => Promise<R> {
  const { maxBatch, maxInFlight, one, many, aloneAfter } = options;
  type Call = { item: I; resolve: (value: R) => void; reject: (error: unknown) => void };
  const queue: Call[] = [];
  let inFlight = 0;
  let scheduled = false;
  const send = async (batch: Call[]) => {
    if (batch.length === 1) {
      const [call] = batch;
      await one(call!.item).then(call!.resolve, call!.reject);
      return;
    }
    try {
      const outcomes = await many(batch.map((call) => call.item));
      batch.forEach((call, i) => {
        const outcome = outcomes[i];
        if (!outcome) call.reject(new Error(`a batch of ${batch.length} calls answered ${outcomes.length}`));
        else if ('error' in outcome) call.reject(outcome.error);
        else call.resolve(outcome.value);
      });
    } catch (error) {
      if (aloneAfter?.(error)) await Promise.all(batch.map((call) => one(call.item).then(call.resolve, call.reject)));
      else for (const call of batch) call.reject(error);
    }
  };
  const pump = () => {
    while (queue.length > 0 && inFlight < maxInFlight) {
      inFlight += 1;
      void send(queue.splice(0, maxBatch)).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        pump();
      });
    });
}

interface Unit {
  work: (tx: SqlTransaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  synced: boolean;
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

const syncedUnit = (options?: CommitOptions) => options?.synced !== false;

/**
 * PostgreSQL, in a statement's FROM: the statement's transaction commits without waiting for its
 * WAL to reach the disk (`synchronous_commit` off until that transaction ends; `CommitOptions`).
 */
export const UNSYNCED_COMMIT = "set_config('synchronous_commit', 'off', true) as unsynced_commit";
const commitUnsynced = (tx: SqlTransaction) => tx.all(`select 1 from ${UNSYNCED_COMMIT}`, []);

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
export function sqliteGroupCommit(db: Kysely<Database>, statements: StatementCache, walPath: string, afterCommit: () => void = () => undefined) {
  const wal = walSyncer(walPath);
  const run = <T>(sqlText: string, params: readonly unknown[] = []): T[] => {
    const statement = statements.prepare(sqlText);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  };
  const builder = statementBuilder('sqlite');
  const tx: SqlTransaction = {
    db: builder,
    all: async (sqlText, params) => run(sqlText, params),
    run: async <T>(query: Compilable<T> | RawBuilder<T>) => {
      const { sql: sqlText, parameters } = compile(builder, query);
      return run<T>(sqlText, parameters);
    },
  };

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
    } catch (error) {
      // Rolled back: no unit is reported done.
      for (const unit of batch) unit.reject(error);
      return;
    }
    // The units that do not wait for the disk are told now, the others once the WAL is synced; a
    // batch with none of those leaves its commit to the next sync, which covers it.
    const waiting: Array<() => void> = [];
    batch.forEach((unit, i) => (unit.synced ? waiting.push(outcomes[i]!) : outcomes[i]!()));
    try {
      if (waiting.length > 0) await wal.sync();
      afterCommit();
    } catch (error) {
      // Committed but not known to be on disk: no unit still waiting is reported done.
      for (const unit of batch) if (unit.synced) unit.reject(error);
      return;
    }
    for (const outcome of waiting) outcome();
  };

  const submit = perTurn<Unit>((batch) => void flush(batch));
  const groupCommit: GroupCommit = <T>(work: (tx: SqlTransaction) => Promise<T>, _key?: string, options?: CommitOptions) =>
    new Promise<T>((resolve, reject) => submit({ work, resolve: resolve as (value: unknown) => void, reject, synced: syncedUnit(options) }));
  return { groupCommit, close: () => wal.close() };
}

/**
 * PostgreSQL gives each unit its own transaction: the server already flushes concurrent commits
 * together. Units of one `key` (the rows they lock) run one after another, so they wait for each
 * other here rather than on row locks while holding pooled connections, and those that waited
 * together then share one transaction, each in its own savepoint: a user's queries that come at
 * once share a commit instead of queueing for one each.
 */
export function postgresGroupCommit(inTransaction: <T>(work: (tx: SqlTransaction) => Promise<T>) => Promise<T>): GroupCommit {
  // Units waiting for their key's transaction to end; a key is here while one is running.
  const waiting = new Map<string, Unit[]>();
  const commitTogether = async (key: string, batch: Unit[]) => {
    try {
      const outcomes = await inTransaction(async (tx) => {
        if (!batch.some((unit) => unit.synced)) await commitUnsynced(tx);
        return runUnits(tx, batch);
      });
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
  return <T>(work: (tx: SqlTransaction) => Promise<T>, key?: string, options?: CommitOptions): Promise<T> => {
    const synced = syncedUnit(options);
    if (key === undefined) return inTransaction(synced ? work : async (tx) => (await commitUnsynced(tx), work(tx)));
    return new Promise<T>((resolve, reject) => {
      const unit: Unit = { work, resolve: resolve as (value: unknown) => void, reject, synced };
      const queue = waiting.get(key);
      if (queue) {
        queue.push(unit);
        return;
      }
      waiting.set(key, []);
      void commitTogether(key, [unit]);
    });
  };
}
