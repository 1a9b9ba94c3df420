import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type Compilable,
  type RawBuilder,
} from 'kysely';
import type { Database, Engine } from './types';

/**
 * How the hand-made paths (units of `batching.ts`, `preparedFirst`) build their statements with
 * Kysely and run them on the driver themselves.
 *
 * Invariant: a statement is compiled for the engine it runs on (`?` on SQLite, `$1` on
 * PostgreSQL); its SQL text is the key its prepared statement is kept under, so a statement's
 * text must not carry values: they go in as parameters, as Kysely's builder and `sql` template do.
 */

/**
 * The statements of one unit, run straight on the driver inside the batch's transaction: Kysely's
 * own transactions cannot hold a batch of units, each in a savepoint, on the one SQLite connection
 * the batch already holds. Statements are built with Kysely (`db`, or a `sql` template) and run
 * with `run`; both answer the rows (a write's RETURNING rows).
 */
export interface SqlTransaction {
  /** Builds this unit's statements, for the unit's engine; it runs nothing itself (its `execute` throws). */
  readonly db: Kysely<Database>;
  run<T>(query: Compilable<T> | RawBuilder<T>): Promise<T[]>;
  /** SQL text with `?` placeholders (savepoints, tests). */
  all<T>(sqlText: string, params: readonly unknown[]): Promise<T[]>;
}

/** A Kysely that only compiles: a statement it built is run by a unit's `run`, never on its own. */
class CompileOnlyDriver extends DummyDriver {
  override acquireConnection(): never {
    throw new Error("A unit's statements run with tx.run(query), not query.execute().");
  }
}

export function statementBuilder(engine: Engine): Kysely<Database> {
  const sqlite = engine === 'sqlite';
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new CompileOnlyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

/** The SQL and parameters of a built statement, in the placeholders of `builder`'s engine. */
export function compile<T>(builder: Kysely<Database>, query: Compilable<T> | RawBuilder<T>): CompiledQuery<T> {
  return 'isRawBuilder' in query ? query.compile(builder) : query.compile();
}
