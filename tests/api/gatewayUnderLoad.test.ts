import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../server/app';
import { RETRY_FLOOR } from '../../server/ai/retryBudget';
import { loadConfig } from '../../server/config';
import { setPlan, startFakeOpenAi, type FakeOpenAi } from '../helpers/fakeAi';
import { bearer, ENGINES, register, useTestApp, type TestContext } from '../helpers/testApp';

/**
 * Issue #34: the gateway while many queries wait on the model. Small numbers here; the big ones
 * are `npm run bench -- --slow-model` (docs/performance.md).
 */

jest.setTimeout(60_000);

async function appOn(ctx: TestContext, fake: FakeOpenAi, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const { ai, databasePoolSize } = loadConfig({ LLM_BASE_URL: fake.baseUrl, LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '20000', LLM_MAX_TOKENS: '300', ...env });
  // Without `database`, the app opens its own: with its own pool of `databasePoolSize` on PostgreSQL.
  return buildApp({ config: { ...ctx.config, logLevel: 'silent', ai, databasePoolSize }, clock: ctx.clock });
}

describe('queries waiting on the model, on postgres', () => {
  const ctx = useTestApp('postgres');
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    app = await appOn(ctx, fake, { DATABASE_POOL_SIZE: '2' });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('hold no connection in a transaction: with a pool of 2, ten queries wait on the model while the database serves everything else', async () => {
    const { access_token, user } = await register(ctx.app);
    await setPlan(ctx.app.database.db, user.id, 'team', ctx.clock.now());
    fake.script(...Array.from({ length: 10 }, (_, i) => ({ kind: 'answer' as const, content: `answer ${i}`, hold: true })));
    const before = fake.counts.received;
    const queries = Array.from({ length: 10 }, (_, i) =>
      app.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(access_token), payload: { task: 'ask', prompt: `question ${i}` } }),
    );
    await fake.received(before + 10);

    const { rows } = await sql<{ state: string; n: number }>`select state, count(*)::int as n from pg_stat_activity where datname = current_database() group by state`.execute(
      ctx.app.database.db,
    );
    expect(rows.filter((row) => /transaction/.test(row.state ?? ''))).toEqual([]);
    // Both pooled connections are free: the usage read, the readiness check and the health check answer meanwhile.
    const usage = await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(access_token) });
    expect([usage.statusCode, usage.json().monthly_queries]).toEqual([200, 10]);
    expect((await app.inject({ method: 'GET', url: '/api/v1/health/ready' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/v1/health' })).json()).toMatchObject({ status: 'ok' });

    fake.release();
    const answers = await Promise.all(queries);
    expect(answers.map((res) => res.statusCode)).toEqual(Array(10).fill(200));
  });
});

describe.each(ENGINES)('a provider outage on %s', (engine) => {
  const ctx = useTestApp(engine);
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  beforeAll(async () => {
    fake = await startFakeOpenAi({ failing: 0.3, keepRequests: false });
    app = await appOn(ctx, fake);
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('retries within the budget: 300 queries with 3 calls in 10 failing make at most a tenth more calls, and only answered queries count', async () => {
    const { access_token, user } = await register(ctx.app);
    await setPlan(ctx.app.database.db, user.id, 'team', ctx.clock.now());
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        app.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(access_token), payload: { task: 'ask', prompt: `question ${i}` } }),
      ),
    );
    const answered = answers.filter((res) => res.statusCode === 200).length;
    expect(answers.filter((res) => res.statusCode !== 200).map((res) => res.json().error.code)).toEqual(Array(300 - answered).fill('provider_error'));
    // Without a budget, a retry of each failure (and of each failed retry) makes about 1.4 times the calls.
    expect(fake.counts.received).toBeGreaterThan(300);
    expect(fake.counts.received).toBeLessThanOrEqual(300 * 1.1 + RETRY_FLOOR);
    const usage = await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(access_token) });
    expect(usage.json().monthly_queries).toBe(answered);
  });
});
