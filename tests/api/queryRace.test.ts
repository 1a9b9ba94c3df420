import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../server/db/types';
import { periodsAt } from '../../server/domain/usageReport';
import { setPlan, tinyProvider } from '../helpers/fakeAi';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { startServer, type RunningServer } from '../helpers/server';
import { appOnSameDatabase, bearer, ENGINES, newAccount, register, useTestApp } from '../helpers/testApp';

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe.each(ENGINES)('quota race on %s', (engine) => {
  const ctx = useTestApp(engine);
  /**
   * Queries of two tokens each: a Free day's 1,000 tokens outlast its 100 queries, so the race is
   * on queries. Answered between two units (a provider that does I/O), and inside one (in memory).
   */
  const apps: Record<string, FastifyInstance> = {};
  beforeAll(async () => {
    for (const [name, aiProvider] of [
      ['two units', tinyProvider],
      ['one unit', { ...tinyProvider, inMemory: true }],
    ] as const) {
      apps[name] = await appOnSameDatabase(ctx, { aiProvider });
    }
  });
  afterAll(() => Promise.all(Object.values(apps).map((app) => app.close())));

  it.each(['two units', 'one unit'])('admits exactly 100 of 300 concurrent queries of a Free user (%s), and the counters match the ledger', async (flow) => {
    const tiny = apps[flow]!;
    const { access_token, user } = await register(ctx.app);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        tiny.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(access_token), payload: { task: 'ask', prompt: `question ${i}` } }),
      ),
    );
    expect(tally(results.map((r) => r.statusCode))).toEqual({ 200: 100, 429: 200 });
    expect(new Set(results.filter((r) => r.statusCode === 429).map((r) => r.json().error.code))).toEqual(new Set(['monthly_quota_exceeded']));

    const { db } = ctx.app.database;
    const { month, day } = periodsAt(ctx.clock.now());
    const counter = await db.selectFrom('usage_months').selectAll().where('user_id', '=', user.id).where('month', '=', month).executeTakeFirstOrThrow();
    const ledger = await db.selectFrom('usage_ledger').selectAll().where('user_id', '=', user.id).execute();
    const tokens = await db.selectFrom('usage_days').selectAll().where('user_id', '=', user.id).where('day', '=', day).executeTakeFirstOrThrow();
    expect(Number(counter.queries)).toBe(100);
    expect(ledger).toHaveLength(100);
    expect(ledger.every((row) => row.status === 'settled')).toBe(true);
    expect(Number(tokens.tokens)).toBe(ledger.reduce((sum, row) => sum + row.prompt_tokens! + row.completion_tokens!, 0));
    expect(Number(tokens.queries)).toBe(100);
  });

  it.each(['two units', 'one unit'])('answers the queries of others sent together with a refused user\'s (%s)', async (flow) => {
    const tiny = apps[flow]!;
    const [spent, first, second] = await Promise.all([register(ctx.app), register(ctx.app), register(ctx.app)]);
    const { month } = periodsAt(ctx.clock.now());
    await ctx.app.database.db.insertInto('usage_months').values({ user_id: spent.user.id, month, queries: 100, settled: 100, processing_ms: 0 }).execute();
    // Interleaved, so the queries of one moment (on PostgreSQL: one call) mix the three users.
    const senders = Array.from({ length: 60 }, (_, i) => [spent, first, second][i % 3]!);
    const results = await Promise.all(
      senders.map((sender, i) =>
        tiny.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(sender.access_token), payload: { task: 'ask', prompt: `mixed ${i}` } }),
      ),
    );
    const statuses = (who: typeof spent) => tally(results.filter((_, i) => senders[i] === who).map((r) => r.statusCode));
    expect(statuses(spent)).toEqual({ 429: 20 });
    expect(statuses(first)).toEqual({ 200: 20 });
    expect(statuses(second)).toEqual({ 200: 20 });
    const { db } = ctx.app.database;
    for (const [who, queries] of [[spent, 100], [first, 20], [second, 20]] as const) {
      const counter = await db.selectFrom('usage_months').select('queries').where('user_id', '=', who.user.id).where('month', '=', month).executeTakeFirstOrThrow();
      const ledger = await db.selectFrom('usage_ledger').select('request_id').where('user_id', '=', who.user.id).execute();
      expect(Number(counter.queries)).toBe(queries);
      expect(ledger).toHaveLength(queries === 100 ? 0 : queries);
    }
    // Each answer reports its own user's usage, not another's of the same call; answered in the
    // reserving unit, each sees its own count.
    const counts = results.filter((r, i) => senders[i] === first && r.statusCode === 200).map((r) => r.json().usage.monthly_queries as number);
    expect(Math.max(...counts)).toBe(20);
    expect(counts.every((n) => n >= 1)).toBe(true);
    if (flow === 'one unit') expect(new Set(counts).size).toBe(20);
  });

  it.each(['two units', 'one unit'])('counts 30 concurrent sends of one Idempotency-Key once (%s)', async (flow) => {
    const tiny = apps[flow]!;
    const { access_token, user } = await register(ctx.app);
    const headers = { ...bearer(access_token), 'idempotency-key': 'same-key' };
    const results = await Promise.all(
      Array.from({ length: 30 }, () => tiny.inject({ method: 'POST', url: '/api/v1/query', headers, payload: { task: 'ask', prompt: 'once' } })),
    );
    // One answer; each other send is told it is a replay, or still in progress.
    expect(results.filter((r) => r.statusCode === 200 && r.json().replayed === false)).toHaveLength(1);
    for (const other of results.filter((r) => !(r.statusCode === 200 && r.json().replayed === false))) {
      expect(other.statusCode === 200 ? other.json().replayed : other.json().error.code).toBe(other.statusCode === 200 ? true : 'request_in_progress');
    }
    const ledger = await ctx.app.database.db.selectFrom('usage_ledger').select('request_id').where('user_id', '=', user.id).execute();
    expect(ledger).toEqual([{ request_id: 'same-key' }]);
  });
});

describe('quota race across two server processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  const servers: RunningServer[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    // Both instances sign with one secret, as a fleet behind a load balancer does.
    const env = { DATABASE_URL: database.url, AUTH_SECRET: 'a-shared-secret-of-at-least-32-characters', LOG_LEVEL: 'warn' };
    servers.push(await startServer(env));
    servers.push(await startServer(env));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    for (const server of servers) fs.rmSync(server.dataDir, { recursive: true, force: true });
    await database?.drop();
  }, 30_000);

  it('admits exactly the last 100 queries of a Professional month out of 300 sent to both', async () => {
    const account = newAccount();
    const registered = await fetch(`${servers[0]!.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    const { access_token, user } = (await registered.json()) as { access_token: string; user: { id: string } };

    // A Professional user with 900 of the month's 1,000 queries used: the offline provider's
    // tokens then last, and the race is on the monthly limit.
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }) });
    try {
      await setPlan(db, user.id, 'professional', Date.now());
      await db.insertInto('usage_months').values({ user_id: user.id, month: periodsAt(Date.now()).month, queries: 900, settled: 900, processing_ms: 0 }).execute();

      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          fetch(`${servers[i % 2]!.baseUrl}/api/v1/query`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(access_token) },
            body: JSON.stringify({ task: 'ask', prompt: `question ${i}` }),
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error?: { code: string } } })),
        ),
      );
      expect(tally(results.map((r) => r.status))).toEqual({ 200: 100, 429: 200 });
      expect(new Set(results.filter((r) => r.status === 429).map((r) => r.body.error?.code))).toEqual(new Set(['monthly_quota_exceeded']));
      // Both instances answered some of the 100.
      const perServer = [0, 1].map((s) => results.filter((r, i) => i % 2 === s && r.status === 200).length);
      expect(perServer.every((n) => n > 0)).toBe(true);

      const counter = await db.selectFrom('usage_months').select('queries').where('user_id', '=', user.id).execute();
      const ledger = await db.selectFrom('usage_ledger').select('status').where('user_id', '=', user.id).execute();
      expect(counter).toEqual([{ queries: 1000 }]);
      expect(ledger).toHaveLength(100);
      expect(ledger.every((row) => row.status === 'settled')).toBe(true);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});
