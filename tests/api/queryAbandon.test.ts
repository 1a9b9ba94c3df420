import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../../server/db/database';
import { periodsAt } from '../../server/domain/usageReport';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakeAi';
import { eventually } from '../helpers/eventually';
import { listeningApp, openQuery } from '../helpers/queryStreams';
import { bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

/**
 * Issue #34: a query whose client leaves before its answer is complete is not charged. The server
 * listens on 127.0.0.1 and the client is a real socket that is destroyed at each stage of the
 * query; the provider is a local fake OpenAI-compatible endpoint that sees the call aborted.
 */

jest.setTimeout(30_000);

/**
 * The app's database, with a gate on one user's next write: `hold(userId)` makes that user's next
 * unit (or, on PostgreSQL, the next `settle_query` call, which runs outside the units) wait until
 * `open()`; `held` resolves when one is waiting.
 */
function gatedDatabase(database: DatabaseHandle) {
  let target: string | null = null;
  let arrived = () => undefined as void;
  let open = () => undefined as void;
  const gate = <T>(go: () => Promise<T>): Promise<T> => {
    target = null;
    arrived();
    return new Promise<void>((resolve) => (open = resolve)).then(go);
  };
  const gated: DatabaseHandle = {
    ...database,
    groupCommit: (work, key) => (key !== undefined && key === target ? gate(() => database.groupCommit(work, key)) : database.groupCommit(work, key)),
    preparedFirst: (name, query) => (name === 'settle_query' && target !== null ? gate(() => database.preparedFirst(name, query)) : database.preparedFirst(name, query)),
  };
  return {
    gated,
    hold(userId: string) {
      target = userId;
      return { held: new Promise<void>((resolve) => (arrived = resolve)), open: () => open() };
    },
  };
}

/** Server-side sockets of an app, so a test can wait until the server saw its client leave. */
function serverSockets(app: FastifyInstance) {
  const closed: Array<Promise<void>> = [];
  app.server.on('connection', (socket: Socket) => closed.push(new Promise((resolve) => socket.once('close', () => resolve()))));
  return { lastClosed: () => closed.at(-1)! };
}

/** The tokens of the last prompt the fake was sent, as the server approximates them (four bytes a token, four a message). */
const promptOf = (fake: FakeOpenAi) => fake.requests.at(-1)!.body.messages.reduce((sum, m) => sum + Math.ceil(Buffer.byteLength(m.content) / 4) + 4, 0);

describe.each(ENGINES)('abandoned queries on %s', (engine) => {
  const ctx = useTestApp(engine);
  let fake: FakeOpenAi;
  let app: FastifyInstance;
  let port: number;
  let gate: ReturnType<typeof gatedDatabase>;
  let sockets: ReturnType<typeof serverSockets>;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    gate = gatedDatabase(ctx.app.database);
    ({ app, port } = await listeningApp(ctx, fake, gate.gated));
    sockets = serverSockets(app);
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  const usage = async (token: string) => (await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) })).json();
  /** What the operator sees of the user's day: queries and tokens counted, and abandoned. */
  const day = async (userId: string) => {
    const row = await ctx.app.database.db
      .selectFrom('usage_days')
      .select(['queries', 'tokens', 'abandoned_queries', 'abandoned_tokens'])
      .where('user_id', '=', userId)
      .where('day', '=', periodsAt(ctx.clock.now()).day)
      .executeTakeFirst();
    return row && { queries: Number(row.queries), tokens: Number(row.tokens), abandoned_queries: Number(row.abandoned_queries), abandoned_tokens: Number(row.abandoned_tokens) };
  };
  const ledger = (userId: string) => ctx.app.database.db.selectFrom('usage_ledger').select('status').where('user_id', '=', userId).execute();
  const nothingUsed = { monthly_queries: 0, daily_tokens: 0, queries_per_minute: 0, processing_time: 0, total_queries: 0 };

  it('aborts the provider call and refunds the query when the client leaves before the provider answers', async () => {
    const { access_token, user } = await register(ctx.app);
    const before = { ...fake.counts };
    fake.script({ kind: 'hang' });
    const query = openQuery(port, access_token, { task: 'ask', prompt: 'a slow question' });
    await fake.received(before.received + 1);
    // The reservation is made before the provider is called.
    expect((await usage(access_token)).monthly_queries).toBe(1);
    query.leave();
    await fake.aborted(before.aborted + 1);
    await eventually(() => day(user.id), { queries: 0, tokens: 0, abandoned_queries: 1, abandoned_tokens: promptOf(fake) });
    expect(await usage(access_token)).toEqual(nothingUsed);
    expect(await ledger(user.id)).toEqual([]);
  });

  it('aborts the provider call and refunds the query when the client leaves while the answer streams', async () => {
    const { access_token, user } = await register(ctx.app);
    const before = { ...fake.counts };
    fake.script({ kind: 'stream', parts: ['The first words '], hold: true });
    const query = openQuery(port, access_token, { task: 'ask', prompt: 'a long answer', stream: true });
    await query.sees('The first words');
    query.leave();
    await fake.aborted(before.aborted + 1);
    // What the provider spent: the prompt, and the four tokens it had written.
    await eventually(() => day(user.id), { queries: 0, tokens: 0, abandoned_queries: 1, abandoned_tokens: promptOf(fake) + 4 });
    expect(await usage(access_token)).toEqual(nothingUsed);
    expect(await ledger(user.id)).toEqual([]);
  });

  it('refunds a query whose answer is complete when its client left before it was sent', async () => {
    const { access_token, user } = await register(ctx.app);
    fake.script({ kind: 'answer', content: 'finished', usage: { prompt_tokens: 40, completion_tokens: 9 } });
    const before = fake.counts.received;
    const query = openQuery(port, access_token, { task: 'ask', prompt: 'answered too late' });
    // Reserved once the provider is called; the query's next unit is its settling, held until the client is gone.
    await fake.received(before + 1);
    const settling = gate.hold(user.id);
    await settling.held;
    query.leave();
    await sockets.lastClosed();
    settling.open();
    await eventually(() => day(user.id), { queries: 0, tokens: 0, abandoned_queries: 1, abandoned_tokens: 49 });
    expect(await usage(access_token)).toEqual(nothingUsed);
    expect(await ledger(user.id)).toEqual([]);
  });

  it.each([
    ['plain', {}],
    ['streamed', { stream: true }],
  ])('aborts the repair round of a formula query (%s) and refunds it when the client leaves during the second call', async (_how, extra) => {
    const { access_token, user } = await register(ctx.app);
    const before = { ...fake.counts };
    // The first formula fails on the data (column 3 of a 2-column range), so a second call repairs it; that one never answers.
    fake.script({ kind: 'answer', content: '```excel\n=VLOOKUP("North",A2:B3,3,FALSE)\n```', usage: { prompt_tokens: 50, completion_tokens: 20 } }, { kind: 'hang' });
    const data = [['Region', 'Revenue'], ['North', 120], ['South', 80]];
    const query = openQuery(port, access_token, { task: 'formula', prompt: 'Total revenue of North', data, ...extra });
    await fake.received(before.received + 2);
    expect(fake.requests.at(-1)!.body.messages.at(-1)!.content).toContain('gives #REF! on the data');
    query.leave();
    await fake.aborted(before.aborted + 1);
    // What the provider spent: both of the first call's counts, and the repair call's prompt.
    await eventually(() => day(user.id), { queries: 0, tokens: 0, abandoned_queries: 1, abandoned_tokens: 70 + promptOf(fake) });
    expect(await usage(access_token)).toEqual(nothingUsed);
    expect(await ledger(user.id)).toEqual([]);
  });

  it('still counts a query whose client stayed', async () => {
    const { access_token, user } = await register(ctx.app);
    fake.script({ kind: 'answer', content: 'here', usage: { prompt_tokens: 40, completion_tokens: 9 } });
    const { status, text } = await openQuery(port, access_token, { task: 'ask', prompt: 'I wait' }).response;
    expect([status, JSON.parse(text).answer]).toEqual([200, 'here']);
    expect(await day(user.id)).toEqual({ queries: 1, tokens: 49, abandoned_queries: 0, abandoned_tokens: 0 });
  });
});
