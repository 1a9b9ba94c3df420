import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { perTurn } from './batching';
import { numberedParams } from './postgres';
import type { StatementCache } from './sqlite';

/**
 * Reads of one row by key, for reads that run on most requests (the session check): what
 * `DatabaseHandle.keyedRead` runs on each engine.
 *
 * Invariants:
 * - An answer is always the one a read made after the call would give.
 * - SQLite keeps answers only while the tables the statement reads have not changed: triggers move
 *   `account_generation` in the same transaction as any change to `sessions`, `users` and
 *   `subscriptions` (by any connection or process). A keyed read may therefore read only tables
 *   with such triggers; tests/api/sessionCacheInvariant.test.ts fails when one does not.
 * - Answers read inside a transaction are never kept: it may be rolled back.
 * - The statement does not depend on the time: callers compare times in code.
 */

export type KeyedRead = <T extends { key: string }>(name: string, sqlFor: (keys: string) => string, key: string) => Promise<T | undefined>;

/** A caller waiting for its row of a batched read. */
interface WaitingRead {
  key: string;
  resolve: (row: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads by key on SQLite, answered from what was read before for as long as `account_generation`
 * stays as it was then. Looking at it costs a read transaction, whose file locks cost more than
 * the lookups themselves, so the keys asked for in one turn of the event loop are answered
 * together after one look, made after every one of them was asked.
 */
export function sqliteKeyedReads(file: SQLite.Database, statements: StatementCache, limit = 10_000): KeyedRead {
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
 * Reads by key on PostgreSQL, where other instances write unseen, so nothing is kept: the keys
 * asked for in one turn of the event loop are read with one statement (`= any($1)`), at most
 * `batchSize` at a time. Each caller's read starts after its call.
 */
export function postgresKeyedReads(pool: pg.Pool, batchSize = 200): KeyedRead {
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
