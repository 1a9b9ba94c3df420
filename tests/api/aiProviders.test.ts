import crypto from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { messageTokens } from '../../server/ai/provider';
import { periodsAt } from '../../server/domain/usageReport';
import { ConfigError, loadConfig } from '../../server/config';
import { startFakeOpenAi, type FakeBehaviour, type FakeOpenAi } from '../helpers/fakeAi';
import { appOnSameDatabase, bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

describe('AI provider configuration', () => {
  it('is offline unless an endpoint is configured', () => {
    expect(loadConfig({}).ai).toMatchObject({ provider: 'offline', timeoutMs: 30_000, maxCompletionTokens: 1024 });
    expect(loadConfig({ LLM_BASE_URL: 'https://llm.example/v1/', LLM_MODEL: 'm', LLM_API_KEY: 'k' }).ai).toEqual({
      provider: 'openai',
      baseUrl: 'https://llm.example/v1',
      apiKey: 'k',
      model: 'm',
      timeoutMs: 30_000,
      maxCompletionTokens: 1024,
    });
  });

  it.each([
    [{ AI_PROVIDER: 'claude' }, 'AI_PROVIDER'],
    [{ AI_PROVIDER: 'openai', LLM_MODEL: 'm' }, 'LLM_BASE_URL'],
    [{ LLM_BASE_URL: 'https://llm.example/v1' }, 'LLM_MODEL'],
    [{ LLM_BASE_URL: 'ftp://llm.example', LLM_MODEL: 'm' }, 'LLM_BASE_URL'],
    [{ LLM_TIMEOUT_MS: 'soon' }, 'LLM_TIMEOUT_MS'],
    [{ LLM_TIMEOUT_MS: '0' }, 'LLM_TIMEOUT_MS'],
    [{ LLM_MAX_TOKENS: '5' }, 'LLM_MAX_TOKENS'],
  ])('rejects %p naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });
});

describe.each(ENGINES)('OpenAI-compatible provider on %s', (engine) => {
  const ctx = useTestApp(engine);
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  let logs = '';

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const { ai } = loadConfig({ LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: 'sk-test', LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '1500', LLM_MAX_TOKENS: '300' });
    app = await appOnSameDatabase(ctx, { config: { logLevel: 'trace', ai }, logStream });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  const query = (token: string, body: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/v1/query', payload: body, headers: { ...bearer(token), ...headers } });
  const usage = async (token: string) => (await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) })).json();

  it('sends the task, prompt and data to the model and counts the tokens it reports', async () => {
    const { access_token } = await register(ctx.app);
    fake.script({ kind: 'answer', content: '=SUMIF(A:A,"North",B:B)', usage: { prompt_tokens: 57, completion_tokens: 12 } });
    const body = { task: 'formula', prompt: 'Total revenue of North', data: [['Region', 'Revenue'], ['North', 120]] };
    const res = await query(access_token, body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ answer: '=SUMIF(A:A,"North",B:B)', tokens: { prompt: 57, completion: 12, total: 69 } });
    // Checked on the data at once, and good: no second call.
    expect(res.json()).toMatchObject({ formula: { text: '=SUMIF(A:A,"North",B:B)', valid: true, value: 120, error: null }, verified: true, engine: 'fake-model' });
    expect(res.json().usage).toMatchObject({ monthly_queries: 1, daily_tokens: 69 });

    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body.model).toBe('fake-model');
    expect(sent.body.max_tokens).toBe(300);
    expect(sent.body.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('formula') });
    expect(sent.body.messages[1]!.content).toBe('Total revenue of North\n\nSpreadsheet data, one JSON array per row:\n["Region","Revenue"]\n["North",120]');
  });

  const sales = [
    ['Region', 'Revenue'],
    ['North', 120],
    ['South', 80],
  ];
  const fenced = (formula: string) => `Here it is:\n\`\`\`excel\n${formula}\n\`\`\`\nIt adds the North rows.`;

  it('sends a formula that fails on the data back once with its error, and shows the repaired one verified', async () => {
    const { access_token } = await register(ctx.app);
    const before = fake.requests.length;
    const broken = fenced('=VLOOKUP("North",A2:B3,3,FALSE)');
    const good = fenced('=SUMIF(A2:A3,"North",B2:B3)');
    fake.script(
      { kind: 'answer', content: broken, usage: { prompt_tokens: 50, completion_tokens: 20 } },
      { kind: 'answer', content: good, usage: { prompt_tokens: 90, completion_tokens: 15 } },
    );
    const res = await query(access_token, { task: 'formula', prompt: 'Total revenue of North', data: sales });
    expect(res.json()).toMatchObject({
      answer: good,
      formula: { text: '=SUMIF(A2:A3,"North",B2:B3)', valid: true, value: 120, error: null, references: ['A2:A3', 'B2:B3'], functions: ['SUMIF'] },
      verified: true,
      engine: 'fake-model',
      // Both calls count.
      tokens: { prompt: 140, completion: 35, total: 175 },
      usage: { monthly_queries: 1, daily_tokens: 175 },
    });
    expect(fake.requests.length - before).toBe(2);
    const repair = fake.requests.at(-1)!.body.messages;
    expect(repair.slice(2)).toEqual([
      { role: 'assistant', content: broken },
      { role: 'user', content: expect.stringContaining('The formula =VLOOKUP("North",A2:B3,3,FALSE) gives #REF! on the data') },
    ]);
  });

  it('shows a formula still failing after the repair round unverified, with its error, and counts both calls', async () => {
    const { access_token } = await register(ctx.app);
    fake.script(
      { kind: 'answer', content: fenced('=SUMIF(A2:A3,"North",B2:B3)/0'), usage: { prompt_tokens: 50, completion_tokens: 20 } },
      { kind: 'answer', content: fenced('=SUMIF(A2:A3,"North",B2:B3'), usage: { prompt_tokens: 95, completion_tokens: 18 } },
    );
    const res = await query(access_token, { task: 'explain', prompt: 'What does my North total do?', data: sales });
    expect(res.json()).toMatchObject({
      formula: { text: '=SUMIF(A2:A3,"North",B2:B3', valid: false, value: null, error: '#ERROR!' },
      verified: false,
      tokens: { prompt: 145, completion: 38, total: 183 },
      usage: { daily_tokens: 183 },
    });
    expect(fake.requests.at(-1)!.body.messages.at(-1)!.content).toContain('gives #DIV/0! on the data');
  });

  it('makes no repair round the day has no room for: the first formula is shown unverified', async () => {
    const { access_token, user } = await register(ctx.app);
    const body = { task: 'formula', prompt: 'Total revenue of North', data: sales };
    // Earlier queries of the day leave room for the prompt and 150 tokens of answer: one call, not two.
    const { day } = periodsAt(ctx.clock.now());
    const spent = 1000 - messageTokens(body as never) - 150;
    await ctx.app.database.db.insertInto('usage_days').values({ user_id: user.id, day, queries: 0, tokens: spent, last_grant: 0 }).execute();
    const before = fake.requests.length;
    fake.script({ kind: 'answer', content: fenced('=SUMIF(A2:A3,"North",B2:B3)/0'), usage: { prompt_tokens: 50, completion_tokens: 20 } });
    const res = await query(access_token, body);
    expect(fake.requests.length - before).toBe(1);
    expect(fake.requests.at(-1)!.body.max_tokens).toBe(150);
    expect(res.json()).toMatchObject({ formula: { error: '#DIV/0!' }, verified: false, tokens: { total: 70 }, usage: { daily_tokens: spent + 70 } });
  });

  it('tells the model where the data sits, and checks its formula there', async () => {
    const { access_token } = await register(ctx.app);
    fake.script({ kind: 'answer', content: fenced('=SUMIF(C4:C5,"North",D4:D5)') });
    const res = await query(access_token, { task: 'formula', prompt: 'Total revenue of North', data: sales, range: 'C3:D5' });
    expect(fake.requests.at(-1)!.body.messages[1]!.content).toMatch(/^Total revenue of North\n\nThe data sits at C3:D5\.\n\nSpreadsheet data/);
    expect(res.json()).toMatchObject({ formula: { value: 120, error: null }, verified: true });
  });

  it('never passes a function the engine cannot evaluate as verified', async () => {
    const { access_token } = await register(ctx.app);
    const xlookup = fenced('=XLOOKUP("North",A2:A3,B2:B3)');
    fake.script({ kind: 'answer', content: xlookup }, { kind: 'answer', content: xlookup });
    const res = await query(access_token, { task: 'formula', prompt: 'Revenue of North', data: sales });
    expect(res.json()).toMatchObject({ formula: { valid: true, value: null, error: 'unsupported_function' }, verified: false });
    expect(fake.requests.at(-1)!.body.messages.at(-1)!.content).toMatch(/uses a function the checker cannot evaluate \(the engine does not evaluate XLOOKUP\)/);
  });

  it('asks for no more tokens than are left today, and approximates counts the provider does not report', async () => {
    const { access_token } = await register(ctx.app);
    fake.script({ kind: 'answer', content: 'x'.repeat(40), usage: { prompt_tokens: 30, completion_tokens: 700 } });
    expect((await query(access_token, { task: 'ask', prompt: 'first' })).json().usage.daily_tokens).toBe(730);

    fake.script({ kind: 'answer', content: 'Sixteen bytes!!!', usage: null });
    const body = { task: 'ask', prompt: 'second' };
    const res = await query(access_token, body);
    expect(fake.requests.at(-1)!.body.max_tokens).toBe(1000 - 730 - messageTokens(body as never));
    expect(res.json().tokens).toEqual({ prompt: messageTokens(body as never), completion: 4, total: messageTokens(body as never) + 4 });
  });

  it('retries a 429 and a 500, then answers', async () => {
    const { access_token } = await register(ctx.app);
    const before = fake.requests.length;
    fake.script({ kind: 'status', status: 429, retryAfter: '0' }, { kind: 'status', status: 500 }, { kind: 'answer', content: 'third time' });
    const res = await query(access_token, { task: 'ask', prompt: 'persist' });
    expect(res.json().answer).toBe('third time');
    expect(fake.requests.length - before).toBe(3);
  });

  it('does not retry past the query deadline: a Retry-After longer than what is left ends the query at once', async () => {
    const { access_token } = await register(ctx.app);
    const before = fake.requests.length;
    fake.script({ kind: 'status', status: 429, retryAfter: '2' });
    const res = await query(access_token, { task: 'ask', prompt: 'later?' });
    expect([res.statusCode, res.json().error.code, fake.requests.length - before]).toEqual([503, 'provider_busy', 1]);
  });

  const failures: Array<[string, FakeBehaviour[], number, string, number]> = [
    ['429 on every try', Array(3).fill({ kind: 'status', status: 429, retryAfter: '0' }), 503, 'provider_busy', 3],
    ['500 on every try', Array(3).fill({ kind: 'status', status: 500 }), 502, 'provider_error', 3],
    ['a timeout', [{ kind: 'hang' }], 504, 'provider_timeout', 1],
    ['a malformed body', [{ kind: 'malformed' }], 502, 'provider_error', 1],
    ['a 401 (a wrong key is not retried)', [{ kind: 'status', status: 401 }], 502, 'provider_error', 1],
  ];
  it.each(failures)('refunds the query after %s', async (_what, behaviours, status, code, attempts) => {
    const { access_token } = await register(ctx.app);
    const before = fake.requests.length;
    fake.script(...behaviours);
    const res = await query(access_token, { task: 'ask', prompt: 'will this fail?' });
    expect([res.statusCode, res.json().error.code]).toEqual([status, code]);
    if (status === 503) expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(fake.requests.length - before).toBe(attempts);
    expect(await usage(access_token)).toEqual({ monthly_queries: 0, daily_tokens: 0, queries_per_minute: 0, processing_time: 0, total_queries: 0 });
  });

  it('answers a failed Idempotency-Key anew when it is retried', async () => {
    const { access_token } = await register(ctx.app);
    const key = { 'idempotency-key': crypto.randomUUID() };
    fake.script({ kind: 'malformed' });
    expect((await query(access_token, { task: 'ask', prompt: 'again' }, key)).statusCode).toBe(502);
    const retry = await query(access_token, { task: 'ask', prompt: 'again' }, key);
    expect(retry.json()).toMatchObject({ answer: 'You said: again', replayed: false, usage: { monthly_queries: 1 } });
  });

  it('gives back a query its server left unanswered when its Idempotency-Key is retried', async () => {
    const { access_token, user } = await register(ctx.app);
    const key = crypto.randomUUID();
    // What a server that stopped mid-call leaves: a reservation that was never settled.
    const { db } = ctx.app.database;
    const { month, day } = periodsAt(ctx.clock.now());
    await db.insertInto('usage_months').values({ user_id: user.id, month, queries: 1, settled: 0, processing_ms: 0 }).execute();
    await db.insertInto('usage_days').values({ user_id: user.id, day, queries: 1, tokens: 500, last_grant: 500 }).execute();
    await db
      .insertInto('usage_ledger')
      .values({ user_id: user.id, request_id: key, task: 'ask', month, day, status: 'reserved', reserved_tokens: 500, prompt_tokens: null, completion_tokens: null, processing_time_ms: null, created_at: ctx.clock.now(), settled_at: null })
      .execute();

    const soon = await query(access_token, { task: 'ask', prompt: 'still there?' }, { 'idempotency-key': key });
    expect([soon.statusCode, soon.json().error.code]).toEqual([409, 'request_in_progress']);

    // A formula query may still be in its repair round, a second call of up to the timeout (1.5 s here).
    ctx.clock.advance(1500 + 60_000 + 1);
    const repairing = await query(access_token, { task: 'ask', prompt: 'still there?' }, { 'idempotency-key': key });
    expect([repairing.statusCode, repairing.json().error?.code]).toEqual([409, 'request_in_progress']);

    ctx.clock.advance(1500);
    const later = await query(access_token, { task: 'ask', prompt: 'still there?' }, { 'idempotency-key': key });
    expect(later.json()).toMatchObject({ answer: 'You said: still there?', replayed: false, usage: { monthly_queries: 1, daily_tokens: 49 } });
  });

  it('never logs what the provider echoes of the prompt', async () => {
    const canary = `CANARY-${crypto.randomUUID()}`;
    const { access_token } = await register(ctx.app);
    fake.script(...Array(3).fill({ kind: 'status', status: 500 }));
    expect((await query(access_token, { task: 'ask', prompt: canary })).statusCode).toBe(502);
    fake.script({ kind: 'malformed' });
    expect((await query(access_token, { task: 'ask', prompt: canary })).statusCode).toBe(502);
    expect((await query(access_token, { task: 'ask', prompt: canary })).json().answer).toBe(`You said: ${canary}`);
    // A formula quoting the canary that fails on the data, twice: checked, sent back, shown unverified.
    fake.script({ kind: 'answer', content: `\`\`\`\n=SUM("${canary}"\n\`\`\`` }, { kind: 'answer', content: `\`\`\`\n=VLOOKUP("${canary}",A1:A2,2,FALSE)\n\`\`\`` });
    const checked = await query(access_token, { task: 'formula', prompt: `Find ${canary}`, data: [['Name'], [canary]] });
    expect(checked.json()).toMatchObject({ verified: false, formula: { text: expect.stringContaining(canary) } });
    expect(logs).toContain('query.provider_failed');
    expect(logs).not.toContain(canary);
  });
});
