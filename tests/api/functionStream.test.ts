import type { FastifyInstance } from 'fastify';
import { periodsAt } from '../../server/domain/usageReport';
import { startFakeOpenAi, type FakeBehaviour, type FakeOpenAi } from '../helpers/fakeAi';
import { eventually } from '../helpers/eventually';
import { listeningApp, openQuery, sseEvents } from '../helpers/queryStreams';
import { payFor } from '../helpers/teams';
import { bearer, checkedAgainstDocument, ENGINES, post, register, useTestApp } from '../helpers/testApp';

/**
 * `POST /functions/{name}/run` answers exactly as `/query` does (decisions.md, "Professional's
 * promises"), so it streams as `/query` streams ("The gateway under real AI load"): the same events,
 * the same errors before and after the first byte, and a run whose client leaves is refunded.
 */

jest.setTimeout(30_000);

const input = [['Region', 'Sales'], ['North', 3], ['South', 4]];

describe.each(ENGINES)('streamed function runs on %s', (engine) => {
  const ctx = useTestApp(engine);
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    ({ app, port } = await listeningApp(ctx, fake));
    checkedAgainstDocument(app);
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  const usage = async (token: string) => (await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) })).json();
  const run = (token: string, name: string, body: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/api/v1/functions/${name}/run`, payload: { input, ...body }, headers: { ...bearer(token), ...headers } });
  /** A Professional account with one function, TOTAL_BY_REGION, of the task `ask`. */
  const professionalWithFunction = async () => {
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    const made = await post(app, '/api/v1/functions', { name: 'TOTAL_BY_REGION', task: 'ask', prompt: 'Total {{input}} by region', description: '' }, bearer(pro.access_token));
    expect(made.statusCode).toBe(201);
    return pro;
  };

  it.each([
    ['Accept: text/event-stream', {}, { accept: 'text/event-stream' }],
    ['"stream": true', { stream: true }, {}],
  ])('sends the answer as the model writes it, then the answer object of a plain run, with %s', async (_how, extra, headers) => {
    const pro = await professionalWithFunction();
    fake.script({ kind: 'answer', content: 'North sells 3, South 4.', usage: { prompt_tokens: 30, completion_tokens: 8 } });
    const res = await run(pro.access_token, 'TOTAL_BY_REGION', extra, headers);
    expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const events = sseEvents(res.body);
    expect(events.slice(0, -1)).toEqual(['North ', 'sells ', '3, ', 'South ', '4.'].map((text) => ({ event: 'delta', data: { text } })));
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: expect.objectContaining({ answer: 'North sells 3, South 4.', task: 'ask', tokens: { prompt: 30, completion: 8, total: 38 }, replayed: false, engine: 'fake-model' }),
    });
    // The function's prompt went to the model, streamed, with the cells where {{input}} was.
    const asked = fake.requests.at(-1)!.body;
    expect(asked.stream).toBe(true);
    expect(asked.messages.map((m) => m.content).join('\n')).toContain('Total the cells given as data by region');
    expect(await usage(pro.access_token)).toMatchObject({ monthly_queries: 1, daily_tokens: 38 });
  });

  it('answers an error before the first byte with its HTTP status and error body, and counts nothing', async () => {
    const pro = await professionalWithFunction();
    const missing = await run(pro.access_token, 'NOT_THERE', { stream: true });
    expect([missing.statusCode, missing.headers['content-type'], missing.json().error.code]).toEqual([404, 'application/json; charset=utf-8', 'function_not_found']);
    fake.script(...Array(3).fill({ kind: 'status', status: 500 }));
    const failed = await run(pro.access_token, 'TOTAL_BY_REGION', {}, { accept: 'text/event-stream' });
    expect([failed.statusCode, failed.json().error.code]).toEqual([502, 'provider_error']);
    const free = await register(ctx.app);
    const refused = await run(free.access_token, 'TOTAL_BY_REGION', { stream: true });
    expect([refused.statusCode, refused.json().error.code, refused.json().error.required_plan]).toEqual([403, 'plan_required', 'professional']);
    expect((await usage(pro.access_token)).monthly_queries).toBe(0);
  });

  it('ends with an error event when the provider fails after the first byte, and does not count the run', async () => {
    const pro = await professionalWithFunction();
    fake.script({ kind: 'stream', parts: ['North ', 'sells '], failAfter: true });
    const res = await run(pro.access_token, 'TOTAL_BY_REGION', { stream: true });
    expect(res.statusCode).toBe(200);
    expect(sseEvents(res.body)).toEqual([
      { event: 'delta', data: { text: 'North ' } },
      { event: 'delta', data: { text: 'sells ' } },
      { event: 'error', data: { error: { code: 'provider_error', message: 'The AI provider could not answer. The query was not counted; please try again.' } } },
    ]);
    expect(await usage(pro.access_token)).toMatchObject({ monthly_queries: 0, daily_tokens: 0 });
  });

  it.each([
    ['while the answer streams', { stream: true }, { kind: 'stream', parts: ['North sells '], hold: true }],
    ['before the provider answers a plain run', {}, { kind: 'hang' }],
  ] as Array<[string, object, FakeBehaviour]>)('aborts the provider call and refunds the run when the client leaves %s', async (_when, extra, behaviour) => {
    const pro = await professionalWithFunction();
    const before = { ...fake.counts };
    fake.script(behaviour);
    const running = openQuery(port, pro.access_token, { input, ...extra }, {}, '/api/v1/functions/TOTAL_BY_REGION/run');
    if (behaviour.kind === 'stream') await running.sees('North sells');
    else await fake.received(before.received + 1);
    // Reserved before the provider was called.
    expect((await usage(pro.access_token)).monthly_queries).toBe(1);
    running.leave();
    await fake.aborted(before.aborted + 1);
    const abandoned = async () => {
      const row = await ctx.app.database.db
        .selectFrom('usage_days')
        .select(['queries', 'abandoned_queries'])
        .where('user_id', '=', pro.user.id)
        .where('day', '=', periodsAt(ctx.clock.now()).day)
        .executeTakeFirst();
      return { queries: Number(row?.queries ?? 0), abandoned_queries: Number(row?.abandoned_queries ?? 0) };
    };
    await eventually(abandoned, { queries: 0, abandoned_queries: 1 });
    expect(await usage(pro.access_token)).toMatchObject({ monthly_queries: 0, daily_tokens: 0 });
  });
});
