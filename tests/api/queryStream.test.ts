import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../server/config';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakeAi';
import { sseEvents } from '../helpers/queryStreams';
import { appOnSameDatabase, bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

/** Issue #34: `POST /query` answered as server-sent events, with a local fake OpenAI-compatible model that streams. */

describe.each(ENGINES)('streamed answers on %s', (engine) => {
  const ctx = useTestApp(engine);
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const { ai } = loadConfig({ LLM_BASE_URL: fake.baseUrl, LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '5000', LLM_MAX_TOKENS: '300' });
    app = await appOnSameDatabase(ctx, { config: { ai } });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  const ask = (on: FastifyInstance, token: string, body: object, headers: Record<string, string> = {}) =>
    on.inject({ method: 'POST', url: '/api/v1/query', payload: body, headers: { ...bearer(token), ...headers } });
  const usage = async (token: string) => (await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) })).json();

  it.each([
    ['Accept: text/event-stream', {}, { accept: 'text/event-stream' }],
    ['"stream": true', { stream: true }, {}],
  ])('sends the answer as the model writes it, then the whole answer object, with %s', async (_how, extra, headers) => {
    const { access_token } = await register(ctx.app);
    fake.script({ kind: 'answer', content: 'Use SUMIF over the region.', usage: { prompt_tokens: 30, completion_tokens: 8 } });
    const res = await ask(app, access_token, { task: 'ask', prompt: 'How do I total by region?', ...extra }, headers);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const events = sseEvents(res.body);
    expect(events.slice(0, -1)).toEqual(['Use ', 'SUMIF ', 'over ', 'the ', 'region.'].map((text) => ({ event: 'delta', data: { text } })));
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: {
        answer: 'Use SUMIF over the region.',
        task: 'ask',
        tokens: { prompt: 30, completion: 8, total: 38 },
        processing_time_ms: expect.any(Number),
        usage: { monthly_queries: 1, daily_tokens: 38, queries_per_minute: 1, processing_time: expect.any(Number), total_queries: 1 },
        request_id: expect.any(String),
        replayed: false,
        formula: null,
        verified: false,
        engine: 'fake-model',
      },
    });
    // The model was asked to stream, and to count the tokens in its last chunk.
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams the first answer of a formula query and sends the repaired one, checked, in done', async () => {
    const { access_token } = await register(ctx.app);
    const fenced = (formula: string) => `\`\`\`excel\n${formula}\n\`\`\` adds North.`;
    const broken = fenced('=VLOOKUP("North",A2:B3,3,FALSE)');
    const good = fenced('=SUMIF(A2:A3,"North",B2:B3)');
    fake.script(
      { kind: 'answer', content: broken, usage: { prompt_tokens: 50, completion_tokens: 20 } },
      { kind: 'answer', content: good, usage: { prompt_tokens: 90, completion_tokens: 15 } },
    );
    const data = [['Region', 'Revenue'], ['North', 120], ['South', 80]];
    const res = await ask(app, access_token, { task: 'formula', prompt: 'Total revenue of North', data, stream: true });
    const events = sseEvents(res.body);
    // The deltas are the first answer's, as the model wrote it; the repair round is not streamed.
    expect(events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text).join('')).toBe(broken);
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: expect.objectContaining({
        answer: good,
        formula: expect.objectContaining({ text: '=SUMIF(A2:A3,"North",B2:B3)', valid: true, value: 120, error: null }),
        verified: true,
        engine: 'fake-model',
        tokens: { prompt: 140, completion: 35, total: 175 },
        usage: expect.objectContaining({ monthly_queries: 1, daily_tokens: 175 }),
      }),
    });
    expect(fake.requests.slice(-2).map((r) => r.body.stream ?? false)).toEqual([true, false]);
  });

  it('answers an error before the first byte with its HTTP status and error body', async () => {
    const { access_token } = await register(ctx.app);
    fake.script(...Array(3).fill({ kind: 'status', status: 500 }));
    const failed = await ask(app, access_token, { task: 'ask', prompt: 'fails at once', stream: true });
    expect([failed.statusCode, failed.headers['content-type'], failed.json().error.code]).toEqual([502, 'application/json; charset=utf-8', 'provider_error']);
    const invalid = await ask(app, access_token, { task: 'sing', prompt: 'bad task' }, { accept: 'text/event-stream' });
    expect([invalid.statusCode, invalid.json().error.field]).toEqual([400, 'task']);
    expect((await usage(access_token)).monthly_queries).toBe(0);
  });

  it('ends with an error event when the provider fails after the first byte, and does not count the query', async () => {
    const { access_token } = await register(ctx.app);
    fake.script({ kind: 'stream', parts: ['Half ', 'an '], failAfter: true });
    const res = await ask(app, access_token, { task: 'ask', prompt: 'cut short', stream: true });
    expect(res.statusCode).toBe(200);
    expect(sseEvents(res.body)).toEqual([
      { event: 'delta', data: { text: 'Half ' } },
      { event: 'delta', data: { text: 'an ' } },
      { event: 'error', data: { error: { code: 'provider_error', message: 'The AI provider could not answer. The query was not counted; please try again.' } } },
    ]);
    expect(await usage(access_token)).toMatchObject({ monthly_queries: 0, daily_tokens: 0 });
  });

  it('streams an answer worked out in memory (offline) as one delta, and a replay as its done alone', async () => {
    const { access_token } = await register(ctx.app);
    const body = { task: 'analyze', prompt: 'Summarise', data: [['Units'], [3], [4]], stream: true };
    const headers = { 'idempotency-key': `stream-${engine}` };
    const first = sseEvents((await ask(ctx.app, access_token, body, headers)).body);
    expect(first.map((event) => event.event)).toEqual(['delta', 'done']);
    expect(first[0]!.data).toEqual({ text: (first[1]!.data as { answer: string }).answer });
    expect((first[1]!.data as { answer: string }).answer).toContain('sum 7');
    const again = await ask(ctx.app, access_token, body, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(sseEvents(again.body)).toEqual([{ event: 'done', data: expect.objectContaining({ answer: null, replayed: true }) }]);
  });
});
