import { Kysely, PostgresDialect, type Compilable, type RawBuilder } from 'kysely';
import pg from 'pg';
import { compile, statementBuilder, type SqlTransaction } from './statements';
import type { Database } from './types';

/**
 * The PostgreSQL engine: a pool of `DATABASE_POOL_SIZE` connections (20 by default) shared by
 * Kysely and the hand-written statements, and one connection of its own for the health probe, so
 * a probe never queues behind thousands of queries for a pooled connection.
 *
 * Invariants:
 * - BIGINT columns (epoch milliseconds) are read as numbers: well inside Number's exact range.
 * - Hand-written statements use `?` placeholders everywhere and become `$1, $2, …` here, each text
 *   a named prepared statement, so each is parsed once per connection.
 * - A connection that could not even roll back is dropped, never handed to the next unit.
 * - Prepared statements (the named ones, and the statements of `answer_query`) are planned once per
 *   connection (`plan_cache_mode = force_generic_plan`). They all find rows by key. Left to choose,
 *   PostgreSQL re-plans them on every run once its tables have statistics, since a custom plan
 *   looks cheaper: on a database of 100,000 users the session check then read about a third
 *   slower (`BENCH_SEEDED=1 npm run bench`, seeded against empty). Kysely's unnamed statements
 *   are planned for their values, as before.
 */

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Rejects when `work` takes longer than `ms` (a probe on a connection stuck somewhere). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
export function numberedParams(sqlText: string): string {
  let n = 0;
  return sqlText.replace(/\?/g, () => `$${++n}`);
}

export function openPostgres(databaseUrl: string, poolSize = 20) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, options: '-c plan_cache_mode=force_generic_plan' });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const probes = new pg.Pool({ connectionString: databaseUrl, max: 1, idleTimeoutMillis: 60_000 });
  probes.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // Health checks that come while one is on its way share its answer: one round trip for all.
  let pinging: Promise<boolean> | null = null;
  const ping = (timeoutMs = 1000) =>
    (pinging ??= withTimeout(probes.query('select 1'), timeoutMs)
      .then(() => true, () => false)
      .finally(() => {
        pinging = null;
      }));
  const preparedFirst = async <T>(name: string, query: Compilable<T> | RawBuilder<T>) => {
    const { sql: text, parameters } = compile(db, query);
    const result = await pool.query({ name, text, values: parameters as unknown[] });
    return result.rows[0] as T | undefined;
  };
  const builder = statementBuilder('postgres');
  const named = new Map<string, { name: string; text: string }>();
  const prepared = (sqlText: string, numbered: string) => {
    let statement = named.get(sqlText);
    if (!statement) {
      statement = { name: `unit_${named.size}`, text: numbered };
      named.set(sqlText, statement);
    }
    return statement;
  };
  /** Runs `work` in a transaction of its own on one pooled connection. */
  const inTransaction = async <T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    const tx: SqlTransaction = {
      db: builder,
      async all<R>(sqlText: string, params: readonly unknown[]) {
        const result = await client.query({ ...prepared(sqlText, numberedParams(sqlText)), values: params as unknown[] });
        return result.rows as R[];
      },
      async run<R>(query: Compilable<R> | RawBuilder<R>) {
        const { sql: sqlText, parameters } = compile(builder, query);
        const result = await client.query({ ...prepared(sqlText, sqlText), values: parameters as unknown[] });
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
      client.release(broken);
    }
  };
  const close = async () => {
    await probes.end();
    await db.destroy();
  };
  return { pool, db, ping, preparedFirst, inTransaction, close };
}

export type PostgresEngine = ReturnType<typeof openPostgres>;
