import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { callsInBatches, UNSYNCED_COMMIT, type CommitOptions } from '../../server/db/batching';
import type { SqlTransaction } from '../../server/db/statements';
import type { Database } from '../../server/db/types';
import { ENGINES, useTestApp } from '../helpers/testApp';

describe.each(ENGINES)('group commit on %s', (engine) => {
  const ctx = useTestApp(engine);

  const put = (key: string, fail = false) =>
    ctx.app.database.groupCommit(async (tx) => {
      await tx.all('insert into settings (key, value) values (?, ?)', [key, 'v']);
      if (fail) throw new Error(`unit ${key} failed`);
      return (await tx.all<{ value: string }>('select value from settings where key = ?', [key]))[0]!.value;
    });
  const keysLike = async (prefix: string) =>
    (await ctx.app.database.db.selectFrom('settings').select('key').where('key', 'like', `${prefix}%`).orderBy('key').execute()).map((k) => k.key);

  it('commits the units submitted together, except one that throws, which takes nothing', async () => {
    const outcomes = await Promise.allSettled([put('gc-a'), put('gc-b', true), put('gc-c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('unit gc-b failed');
    expect(await keysLike('gc-')).toEqual(['gc-a', 'gc-c']);
  });

  it('takes nothing of a unit submitted alone that throws, and commits the next', async () => {
    await expect(put('alone-a', true)).rejects.toThrow('unit alone-a failed');
    await expect(put('alone-b')).resolves.toBe('v');
    expect(await keysLike('alone-')).toEqual(['alone-b']);
  });

  it('runs units of one key one after another, in the order they came', async () => {
    const order: string[] = [];
    const unit = (name: string) =>
      ctx.app.database.groupCommit(async (tx) => {
        order.push(`${name} starts`);
        await tx.all('select 1 as one', []);
        order.push(`${name} ends`);
      }, 'same-key');
    await Promise.all([unit('first'), unit('second')]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts', 'second ends']);
  });
});

describe('group commit on sqlite', () => {
  const ctx = useTestApp('sqlite');

  it('commits the units submitted in one turn together, and reports none before that commit', async () => {
    // Another connection sees only what is committed.
    const other = new SQLite(path.join(ctx.dataDir, 'sheetmind.db'), { readonly: true });
    const committed = (key: string) => (other.prepare('select count(*) as n from settings where key = ?').get(key) as { n: number }).n === 1;
    try {
      let firstCommittedDuringSecond: boolean | undefined;
      const first = ctx.app.database
        .groupCommit((tx) => tx.all('insert into settings (key, value) values (?, ?)', ['turn-a', 'v']))
        .then(() => committed('turn-a'));
      const second = ctx.app.database.groupCommit(async (tx) => {
        await tx.all('insert into settings (key, value) values (?, ?)', ['turn-b', 'v']);
        firstCommittedDuringSecond = committed('turn-a');
      });
      expect(await first).toBe(true);
      await second;
      expect(firstCommittedDuringSecond).toBe(false);
      expect(committed('turn-b')).toBe(true);
    } finally {
      other.close();
    }
  });

  it("reports a unit that does not wait for the disk at its commit, before the units of its batch that wait for the WAL's sync", async () => {
    const reported: string[] = [];
    const insert = (key: string) => (tx: SqlTransaction) => tx.all('insert into settings (key, value) values (?, ?)', [key, 'v']);
    await Promise.all([
      ctx.app.database.groupCommit(insert('sync-a')).then(() => reported.push('synced')),
      ctx.app.database.groupCommit(insert('sync-b'), 'a-user', { synced: false }).then(() => reported.push('unsynced')),
    ]);
    expect(reported).toEqual(['unsynced', 'synced']);
    const keys = await ctx.app.database.db.selectFrom('settings').select('key').where('key', 'like', 'sync-%').orderBy('key').execute();
    expect(keys.map((k) => k.key)).toEqual(['sync-a', 'sync-b']);
  });
});

describe('group commit on postgres, for one key', () => {
  const ctx = useTestApp('postgres');

  it('commits the units that waited for the same key in one transaction, and one that throws takes nothing', async () => {
    const { database } = ctx.app;
    const put = (key: string, fail = false) =>
      database.groupCommit(async (tx) => {
        await tx.all('insert into settings (key, value) values (?, ?)', [key, 'v']);
        if (fail) throw new Error(`unit ${key} failed`);
        return (await tx.all<{ id: string }>('select txid_current()::text as id', []))[0]!.id;
      }, 'one-user');
    // The first runs alone; the others wait for it, then share a transaction.
    const outcomes = await Promise.allSettled([put('pg-a'), put('pg-b'), put('pg-c', true), put('pg-d')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const [a, b, , d] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : null));
    expect(b).toBe(d);
    expect(a).not.toBe(b);
    const keys = await database.db.selectFrom('settings').select('key').where('key', 'like', 'pg-%').orderBy('key').execute();
    expect(keys.map((k) => k.key)).toEqual(['pg-a', 'pg-b', 'pg-d']);
  });
});

describe('commits that do not wait for the disk, on postgres', () => {
  // One pooled connection, whose session waits for the disk as a production database does (the
  // tests' databases do not: `createMigratedDatabase`).
  const ctx = useTestApp('postgres', { env: { DATABASE_POOL_SIZE: '1' } });
  const setting = async (connection: Kysely<Database>, from = '') =>
    (await sql<{ s: string }>`select current_setting('synchronous_commit') as s ${sql.raw(from)}`.execute(connection)).rows[0]!.s;
  beforeEach(() => sql`set synchronous_commit = on`.execute(ctx.app.database.db));

  it('turns synchronous_commit off for the transaction of a unit that does not wait, keyed or not, and for that transaction only', async () => {
    const { database } = ctx.app;
    const inUnit = (key?: string, options?: CommitOptions) =>
      database.groupCommit(async (tx) => (await tx.all<{ s: string }>("select current_setting('synchronous_commit') as s", []))[0]!.s, key, options);
    expect(await inUnit('a-user', { synced: false })).toBe('off');
    expect(await inUnit(undefined, { synced: false })).toBe('off');
    expect(await inUnit('a-user')).toBe('on');
    expect(await inUnit()).toBe('on');
    expect(await setting(database.db)).toBe('on');
  });

  it("turns it off in a reservation's statement (UNSYNCED_COMMIT in its FROM) for that statement's transaction only", async () => {
    const { database } = ctx.app;
    expect(await setting(database.db, `from ${UNSYNCED_COMMIT}`)).toBe('off');
    expect(await setting(database.db)).toBe('on');
  });
});

describe('calls in batches', () => {
  /** A call that answers its item doubled, or refuses an odd one, once `release` is called. */
  function recorder() {
    const sent: number[][] = [];
    const waiting: Array<() => void> = [];
    const later = <T>(value: () => T) => new Promise<T>((resolve, reject) => waiting.push(() => {
      try {
        resolve(value());
      } catch (error) {
        reject(error);
      }
    }));
    const answer = (item: number) => {
      if (item % 2 === 1) throw new Error(`${item} refused`);
      return item * 2;
    };
    return {
      sent,
      release: () => waiting.splice(0).forEach((go) => go()),
      one: (item: number) => {
        sent.push([item]);
        return later(() => answer(item));
      },
      many: (items: number[]) => {
        sent.push(items);
        return later(() => items.map((item) => {
          try {
            return { value: answer(item) };
          } catch (error) {
            return { error: error as Error };
          }
        }));
      },
    };
  }
  const settled = (promises: Array<Promise<number>>) => Promise.allSettled(promises).then((outcomes) => outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)));
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('sends the calls of one turn together, and those that come while they are on their way as the next batch, each answered its own outcome', async () => {
    const calls = recorder();
    const call = callsInBatches<number, number>({ maxBatch: 3, maxInFlight: 1, one: calls.one, many: calls.many });
    const first = [call(2), call(3), call(4), call(6)];
    await tick();
    // The first three went; the fourth waits for a batch to come back.
    expect(calls.sent).toEqual([[2, 3, 4]]);
    const second = [call(8), call(9)];
    await tick();
    expect(calls.sent).toEqual([[2, 3, 4]]);
    calls.release();
    expect(await settled(first.slice(0, 3))).toEqual([4, '3 refused', 8]);
    await tick();
    expect(calls.sent).toEqual([[2, 3, 4], [6, 8, 9]]);
    calls.release();
    expect(await settled([first[3]!, ...second])).toEqual([12, 16, '9 refused']);
  });

  it('sends a call alone through `one`, and several at once up to the calls allowed on their way', async () => {
    const calls = recorder();
    const call = callsInBatches<number, number>({ maxBatch: 2, maxInFlight: 2, one: calls.one, many: calls.many });
    const alone = call(10);
    await tick();
    expect(calls.sent).toEqual([[10]]);
    const more = [call(12), call(14), call(16), call(18), call(20)];
    await tick();
    // One on its way already: one more batch of two goes; the other three wait.
    expect(calls.sent).toEqual([[10], [12, 14]]);
    calls.release();
    expect(await settled([alone, more[0]!, more[1]!])).toEqual([20, 24, 28]);
    await tick();
    expect(calls.sent).toEqual([[10], [12, 14], [16, 18], [20]]);
    calls.release();
    expect(await settled(more.slice(2))).toEqual([32, 36, 40]);
  });

  it('fails every call of a batch that failed, or sends them again one by one when the failure kept nothing', async () => {
    for (const [aloneAfter, expected] of [
      [() => false, ['deadlock', 'deadlock']],
      [(error: unknown) => (error as Error).message === 'deadlock', [4, '3 refused']],
    ] as const) {
      const calls = recorder();
      const call = callsInBatches<number, number>({ maxBatch: 4, maxInFlight: 1, one: calls.one, many: () => Promise.reject(new Error('deadlock')), aloneAfter });
      const outcomes = settled([call(2), call(3)]);
      await tick();
      calls.release();
      await tick();
      calls.release();
      expect(await outcomes).toEqual(expected);
    }
  });
});
