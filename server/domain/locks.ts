import type { Transaction } from 'kysely';
import type { Database, Engine } from '../db/types';
import type { ApiError } from '../errors';

/**
 * A limit that holds for requests sent at once (a team's seats, a person's or a team's custom
 * functions): the transaction that adds one first locks the row that owns what is counted, then
 * counts, then adds, so the next one counts only after it commits. On PostgreSQL the lock is
 * `select … for update` of that row; SQLite runs one write transaction at a time (one connection),
 * so the transaction itself is the lock.
 */

type Trx = Transaction<Database>;

/** The row whose lock stands for everything it owns. */
export interface Owner {
  table: 'teams' | 'users';
  id: string;
}

/** Locks the owner's row until the transaction ends (PostgreSQL; see above for SQLite). */
export async function lockOwner(trx: Trx, engine: Engine, owner: Owner): Promise<void> {
  if (engine === 'postgres') await trx.selectFrom(owner.table).select('id').where('id', '=', owner.id).forUpdate().execute();
}

/**
 * Counts under the owner's lock and throws `full()` when the count has reached `limit`; the caller
 * then adds its one in the same transaction. Taking the lock again where the transaction holds it
 * already (`actingIn` locked the team) costs a round trip and keeps the rule in one place.
 */
export async function countUnderLock(trx: Trx, engine: Engine, owner: Owner, count: () => Promise<number>, limit: number, full: () => ApiError): Promise<void> {
  await lockOwner(trx, engine, owner);
  if ((await count()) >= limit) throw full();
}
