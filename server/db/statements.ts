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
  type OperationNode,
  type RawBuilder,
  type ValueNode,
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

/** SQL texts of `sql` templates by their call site (its strings), one map per engine's builder. */
const templateTexts = new WeakMap<Kysely<Database>, WeakMap<ReadonlyArray<string>, string>>();

/**
 * The SQL and parameters of a built statement, in the placeholders of `builder`'s engine.
 * A `sql` template whose every value is a plain value compiles to the same text at every call of
 * its site, so that text is compiled once per site: compiling anew cost more than running the
 * metering statements themselves (about twice the time of a query's unit on SQLite).
 */
export function compile<T>(builder: Kysely<Database>, query: Compilable<T> | RawBuilder<T>): Pick<CompiledQuery<T>, 'sql' | 'parameters'> {
  if (!('isRawBuilder' in query)) return query.compile();
  const node = query.toOperationNode();
  if (node.kind !== 'RawNode' || !node.parameters.every(isPlainValue)) return query.compile(builder);
  let texts = templateTexts.get(builder);
  if (!texts) templateTexts.set(builder, (texts = new WeakMap()));
  let text = texts.get(node.sqlFragments);
  if (text === undefined) {
    text = query.compile(builder).sql;
    texts.set(node.sqlFragments, text);
  }
  return { sql: text, parameters: node.parameters.map((parameter) => (parameter as ValueNode).value) };
}

/** A value sent as a parameter (not `sql.lit`, which is written into the text). */
function isPlainValue(node: OperationNode): boolean {
  return node.kind === 'ValueNode' && !(node as ValueNode).immediate;
}
