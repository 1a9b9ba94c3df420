import path from 'node:path';
import SQLite from 'better-sqlite3';
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
