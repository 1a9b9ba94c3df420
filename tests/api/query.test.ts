// Over 300 lines: the query gateway's rules, each an `it` (answers, token and monthly limits, per-minute
// count, bad input, idempotency, the daily chart, privacy), on both engines with one test app.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { approxTokens } from '../../server/ai/provider';
import { setPlan, tinyProvider } from '../helpers/fakeAi';
import { appOnSameDatabase, bearer, ENGINES, newAccount, post, register, useTestApp } from '../helpers/testApp';

type Account = ReturnType<typeof newAccount>;

function query(app: FastifyInstance, token: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/api/v1/query', payload: body as object, headers: { ...bearer(token), ...headers } });
}

async function usage(app: FastifyInstance, token: string) {
  const res = await app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json() as Record<string, number>;
}

/** A sheet of `rows` data rows under a header row: about 25 tokens a row once sent. */
function sheet(rows: number) {
  return [['Region', 'Revenue', 'Units'], ...Array.from({ length: rows }, (_, i) => [`Region ${i}`, 100 + i, String(i)])];
}

describe.each(ENGINES)('query gateway on %s', (engine) => {
  // The most verbose logs: the canary must stay out of even these.
  const ctx = useTestApp(engine, { env: { LOG_LEVEL: 'trace' } });
  /** Same database and clock, with queries that cost two tokens: only the monthly limit binds. */
  let tiny: FastifyInstance;
  beforeAll(async () => {
    tiny = await appOnSameDatabase(ctx, { aiProvider: tinyProvider });
  });
  afterAll(() => tiny.close());

  /** Moves the clock to an ISO time (forward only, as time goes). */
  const at = (iso: string) => {
    const time = Date.parse(iso);
    expect(time).toBeGreaterThanOrEqual(ctx.clock.time);
    ctx.clock.time = time;
  };
  /** A fresh access token: tokens live 15 minutes, and these tests move the clock by days. */
  const signIn = async (account: Account) => {
    const res = await post(ctx.app, '/api/v1/auth/login/email', { email: account.email, password: account.password });
    expect(res.statusCode).toBe(200);
    return res.json().access_token as string;
  };

  it('answers analyze with descriptive statistics of each column and counts the query', async () => {
    const { access_token } = await register(ctx.app);
    const data = [
      ['Region', 'Revenue', 'Units'],
      ['North', 120.5, '3'],
      ['South', 80, null],
      ['East', '', 7],
    ];
    const res = await query(ctx.app, access_token, { task: 'analyze', prompt: 'Summarise my sales', data });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.task).toBe('analyze');
    expect(body.answer.split('\n')).toEqual([
      expect.stringContaining('3 rows × 3 columns (the first row is used as headers)'),
      'A "Region": 3 values, 0 numeric, 0 blanks; 3 distinct. No text value repeats.',
      'B "Revenue": 2 values, 2 numeric, 1 blank; sum 200.5, mean 100.25, min 80, max 120.5; 2 distinct.',
      'C "Units": 2 values, 2 numeric, 1 blank; sum 10, mean 5, min 3, max 7; 2 distinct.',
    ]);
    expect(body).toMatchObject({ formula: null, verified: false, engine: 'offline' });
    // The documented approximation: about four bytes of UTF-8 a token.
    expect(body.tokens.completion).toBe(approxTokens(body.answer));
    expect(body.tokens.prompt).toBeGreaterThan(approxTokens('Summarise my sales' + JSON.stringify(data.slice(1))));
    expect(body.tokens.total).toBe(body.tokens.prompt + body.tokens.completion);
    expect(body.processing_time_ms).toBeGreaterThanOrEqual(1);
    expect(body.usage).toEqual({
      monthly_queries: 1,
      daily_tokens: body.tokens.total,
      queries_per_minute: 1,
      processing_time: body.processing_time_ms,
      total_queries: 1,
    });
    expect(body.replayed).toBe(false);
    expect(await usage(ctx.app, access_token)).toEqual(body.usage);
  });

  it('analyzes distinct and frequent values, trends, outliers (1.5 × IQR) and strong correlations', async () => {
    const { access_token } = await register(ctx.app);
    const data = [
      ['Region', 'Units', 'Revenue'],
      ['North', 10, 100],
      ['South', 12, 118],
      ['North', 14, 141],
      ['East', 16, 160],
      ['North', 18, 179],
      ['South', 90, 200],
    ];
    const res = await query(ctx.app, access_token, { task: 'analyze', prompt: 'What stands out?', data });
    // Worked by hand: quartiles of Units 12.5 and 17.5, so 90 is past 17.5 + 1.5 × 5; slopes by least squares over rows 0–5.
    expect(res.json().answer.split('\n').slice(1)).toEqual([
      'A "Region": 6 values, 0 numeric, 0 blanks; 3 distinct. Most frequent: "North" (3), "South" (2).',
      'B "Units": 6 values, 6 numeric, 0 blanks; sum 160, mean 26.6666666667, min 10, max 90; 6 distinct. Trend in row order: rising (slope 12 a row). Outliers (beyond 1.5 × IQR): 90 (row 7).',
      'C "Revenue": 6 values, 6 numeric, 0 blanks; sum 898, mean 149.666666667, min 100, max 200; 6 distinct. Trend in row order: rising (slope 20.06 a row). Outliers (beyond 1.5 × IQR): none.',
      'Strong correlations (|r| ≥ 0.7): B "Units" and C "Revenue" (r = 0.72).',
    ]);
  });

  it('answers formula and explain offline with a formula the engine checked on the data, placed by range', async () => {
    const { access_token, user } = await register(ctx.app);
    await setPlan(ctx.app.database.db, user.id, 'team', ctx.clock.now());
    const data = [
      ['Region', 'Revenue'],
      ['North', 120],
      ['South', 80],
      ['North', 30],
    ];
    const built = (await query(ctx.app, access_token, { task: 'formula', prompt: 'Total Revenue for North', data, range: 'C3:D6' })).json();
    expect(built.answer.split('\n')).toEqual([
      'Understood: the total of Revenue where Region is "North".',
      '=SUMIF(C4:C6,"North",D4:D6)',
      '=SUMIF(C4:C6,"North",D4:D6) gives 150 on the selected data (checked by the formula engine).',
    ]);
    expect(built).toMatchObject({
      formula: { text: '=SUMIF(C4:C6,"North",D4:D6)', valid: true, value: 150, error: null, references: ['C4:C6', 'D4:D6'], functions: ['SUMIF'] },
      verified: true,
      engine: 'offline',
    });

    const explained = (await query(ctx.app, access_token, { task: 'explain', prompt: 'What does MAX(B2:B4)-MIN(B2:B4) give?', data })).json();
    expect(explained.answer.split('\n')).toEqual([
      '=MAX(B2:B4)-MIN(B2:B4) gives 90 on the selected data.',
      'Functions:',
      '- MAX: gives the largest of its numbers.',
      '- MIN: gives the smallest of its numbers.',
      'Ranges it reads:',
      '- B2:B4: column B "Revenue"',
      'How it computes, innermost first:',
      '1. MAX(B2:B4) → 120',
      '2. MIN(B2:B4) → 30',
      '3. The operators around them give 90.',
    ]);
    expect(explained).toMatchObject({ formula: { value: 90, error: null }, verified: true });

    // Every kind of value goes out as it is: an array, a truth value, text.
    const values = await Promise.all(
      ['=TRANSPOSE(B2:B3)', '=A2="north"', '=A3&"!"'].map(async (formula) => (await query(ctx.app, access_token, { task: 'explain', prompt: formula, data })).json().formula.value),
    );
    expect(values).toEqual([[[120, 80]], true, 'South!']);

    const broken = (await query(ctx.app, access_token, { task: 'explain', prompt: '=SUM(B2:B4', data })).json();
    expect(broken.answer.split('\n')).toEqual([
      'The formula =SUM(B2:B4 does not parse: at position 11, expected a closing parenthesis ")" but found the end of the formula.',
      '    =SUM(B2:B4',
      '              ^',
    ]);
    expect(broken).toMatchObject({ formula: { valid: false, error: '#ERROR!', value: null }, verified: false });

    const unsupported = (await query(ctx.app, access_token, { task: 'formula', prompt: 'Is =XLOOKUP("North",A2:A4,B2:B4) right?', data })).json();
    expect(unsupported.answer).toMatch(/^Writing this formula needs an AI model.*\nThe formula in the request was checked: =XLOOKUP\("North",A2:A4,B2:B4\) gives unsupported_function on the selected data: the engine does not evaluate XLOOKUP\.$/s);
    expect(unsupported).toMatchObject({ formula: { valid: true, value: null, error: 'unsupported_function', functions: ['XLOOKUP'] }, verified: false });
  });

  it('cuts the answer to the tokens left today', async () => {
    const { access_token, user } = await register(ctx.app);
    const columns = ['Region', 'Q1', 'Q2', 'Q3', 'Q4', 'Units', 'Returns', 'Margin'];
    const data = [columns, ...Array.from({ length: 4 }, (_, row) => [`Region ${row}`, ...columns.slice(1).map((_, i) => 100 * row + i)])];
    const body = { task: 'analyze', prompt: 'Describe the sheet', data };
    const whole = (await query(ctx.app, access_token, body)).json();
    expect(whole.tokens.completion).toBeGreaterThan(100);
    // Earlier queries of the day leave room for this one's prompt and 80 tokens of answer.
    const spent = 1000 - (whole.tokens.prompt + 80);
    await ctx.app.database.db.updateTable('usage_days').set({ tokens: spent }).where('user_id', '=', user.id).execute();

    const res = await query(ctx.app, access_token, body);
    expect(res.statusCode).toBe(200);
    const cut = res.json();
    expect(cut.answer.startsWith(whole.answer.slice(0, 100))).toBe(true);
    expect(cut.answer).toMatch(/ … \[cut: the answer reached its token limit\]$/);
    expect(cut.tokens.completion).toBe(approxTokens(cut.answer));
    expect(cut.tokens.completion).toBeLessThanOrEqual(80);
    expect(cut.usage).toMatchObject({ monthly_queries: 2, daily_tokens: spent + cut.tokens.total });
    expect(await usage(ctx.app, access_token)).toEqual(cut.usage);
  });

  it('counts the tokens an in-memory answer took, not the ones it was granted', async () => {
    // Granted 10 + 100 tokens; the answer takes 3 of its 100.
    const terse = await appOnSameDatabase(ctx, {
      aiProvider: {
        inMemory: true,
        promptTokens: () => 10,
        maxCompletionTokens: () => 100,
        answer: async () => ({ answer: 'Fine.', tokens: { prompt: 10, completion: 3, total: 13 } }),
      },
    });
    try {
      const { access_token } = await register(terse);
      const first = (await query(terse, access_token, { task: 'ask', prompt: 'How is it?' })).json();
      const second = (await query(terse, access_token, { task: 'ask', prompt: 'And now?' })).json();
      expect(first.usage).toMatchObject({ monthly_queries: 1, daily_tokens: 13 });
      expect(second.usage).toMatchObject({ monthly_queries: 2, daily_tokens: 26, queries_per_minute: 2, total_queries: 2 });
      expect(await usage(terse, access_token)).toEqual(second.usage);
    } finally {
      await terse.close();
    }
  });

  it('counts queries per minute over the last 60 seconds', async () => {
    const { access_token } = await register(tiny);
    await query(tiny, access_token, { task: 'ask', prompt: 'one' });
    ctx.clock.advance(30_000);
    await query(tiny, access_token, { task: 'ask', prompt: 'two' });
    expect((await usage(tiny, access_token)).queries_per_minute).toBe(2);
    ctx.clock.advance(31_000);
    expect((await usage(tiny, access_token)).queries_per_minute).toBe(1);
    ctx.clock.advance(30_000);
    expect((await usage(tiny, access_token)).queries_per_minute).toBe(0);
  });

  it('reads a sheet without a text header row as columns A, B, … and says so when there is no data', async () => {
    const { access_token } = await register(ctx.app);
    const res = await query(ctx.app, access_token, { task: 'analyze', prompt: 'Describe', data: [[1, 'x'], [2, true], [0.1, 0.2]] });
    expect(res.json().answer.split('\n').slice(1)).toEqual([
      'A: 3 values, 3 numeric, 0 blanks; sum 3.1, mean 1.03333333333, min 0.1, max 2; 3 distinct. Trend in row order: falling (slope -0.45 a row).',
      'B: 3 values, 1 numeric, 0 blanks; sum 0.2, mean 0.2, min 0.2, max 0.2; 3 distinct. No text value repeats.',
    ]);
    const empty = await query(ctx.app, access_token, { task: 'analyze', prompt: 'Describe' });
    expect(empty.statusCode).toBe(200);
    expect(empty.json().answer).toMatch(/^No data came with this request/);
  });

  it('answers the other tasks with a plain statement of what the offline assistant can do', async () => {
    const { access_token } = await register(ctx.app);
    for (const task of ['formula', 'explain', 'guide', 'ask']) {
      const res = await query(ctx.app, access_token, { task, prompt: 'Sum column B where A is North', data: sheet(2) });
      expect(res.statusCode).toBe(200);
      expect(res.json().answer).toMatch(/needs an AI model, and this server runs the offline assistant.*analyze task \(this request came with 3 rows × 3 columns\)/);
    }
    expect((await usage(ctx.app, access_token)).monthly_queries).toBe(4);
  });

  it('refuses bad input with the right 4xx and counts none of it', async () => {
    const { access_token } = await register(ctx.app);
    const ok = { task: 'ask', prompt: 'What is in column B?' };
    const cases: Array<[string, unknown, number, string, string?]> = [
      ['no task', { prompt: 'x' }, 400, 'invalid_input', 'task'],
      ['an unknown task', { ...ok, task: 'summarize' }, 400, 'invalid_input', 'task'],
      ['an empty prompt', { ...ok, prompt: '' }, 400, 'invalid_input', 'prompt'],
      ['a blank prompt', { ...ok, prompt: ' \n\t ' }, 400, 'invalid_input', 'prompt'],
      ['a prompt of 4,001 characters', { ...ok, prompt: 'x'.repeat(4001) }, 400, 'invalid_input', 'prompt'],
      ['a prompt that is not text', { ...ok, prompt: 42 }, 400, 'invalid_input', 'prompt'],
      ['data that is not a table', { ...ok, data: 'a,b' }, 400, 'invalid_input', 'data'],
      ['data with a row that is not a list', { ...ok, data: [[1], 2] }, 400, 'invalid_input', 'data.1'],
      ['a cell that is an object', { ...ok, data: [[1, { formula: '=A1' }]] }, 400, 'invalid_input', 'data.0.1'],
      ['an unknown field', { ...ok, model: 'gpt-5' }, 400, 'invalid_input', 'model'],
      ['10,001 cells', { ...ok, data: [...Array.from({ length: 100 }, () => Array(100).fill(1)), [1]] }, 413, 'data_too_large', 'data'],
      ['data over 1 MiB', { ...ok, data: Array.from({ length: 100 }, () => ['x'.repeat(10_600)]) }, 413, 'data_too_large', 'data'],
      ['a body of 2 MiB', { ...ok, data: [['x'.repeat(2 * 1024 * 1024)]] }, 413, 'payload_too_large'],
      // Fits the limits of the request, not the 1,000 tokens a day of the Free plan.
      ['data larger than the plan allows in a day', { ...ok, data: [['x'.repeat(5000)]] }, 413, 'query_too_large', 'data'],
    ];
    for (const [what, body, status, code, field] of cases) {
      const res = await query(ctx.app, access_token, body);
      expect({ what, status: res.statusCode, error: res.json().error }).toEqual({
        what,
        status,
        error: { code, message: expect.any(String), ...(field ? { field } : {}) },
      });
    }

    const malformed = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/query',
      headers: { ...bearer(access_token), 'content-type': 'application/json' },
      payload: '{"task": "ask", "prompt": ',
    });
    expect([malformed.statusCode, malformed.json().error.code]).toEqual([400, 'invalid_json']);
    const text = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/query',
      headers: { ...bearer(access_token), 'content-type': 'text/plain' },
      payload: 'What is in column B?',
    });
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'unsupported_media_type']);
    for (const key of ['has space', 'k'.repeat(256), 'clé']) {
      const res = await query(ctx.app, access_token, ok, { 'idempotency-key': key });
      expect([res.statusCode, res.json().error.field]).toEqual([400, 'Idempotency-Key']);
    }
    const anonymous = await post(ctx.app, '/api/v1/query', ok);
    expect([anonymous.statusCode, anonymous.json().error.code]).toEqual([401, 'missing_token']);
    for (const url of ['/api/v1/query/usage', '/api/v1/query/usage/daily']) {
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    }

    expect(await usage(ctx.app, access_token)).toEqual({
      monthly_queries: 0,
      daily_tokens: 0,
      queries_per_minute: 0,
      processing_time: 0,
      total_queries: 0,
    });
  });

  it('takes a selection of exactly 10,000 cells', async () => {
    const { access_token, user } = await register(ctx.app);
    await setPlan(ctx.app.database.db, user.id, 'team', ctx.clock.now());
    const data = Array.from({ length: 100 }, (_, row) => Array.from({ length: 100 }, (_, column) => row * 100 + column));
    const res = await query(ctx.app, access_token, { task: 'analyze', prompt: 'Describe', data });
    expect(res.statusCode).toBe(200);
    const lines = res.json().answer.split('\n');
    expect(lines[1]).toBe(
      'A: 100 values, 100 numeric, 0 blanks; sum 495000, mean 4950, min 0, max 9900; 100 distinct. Trend in row order: rising (slope 100 a row). Outliers (beyond 1.5 × IQR): none.',
    );
    // 100 columns that rise together: the ten strongest pairs, and a count of the rest.
    expect(lines.at(-1)).toMatch(/^Strong correlations \(\|r\| ≥ 0\.7\): A and B \(r = 1\.00\);.*; and 4940 more pairs\.$/);
  });

  it('gives a query sent without an Idempotency-Key a time-ordered id (a UUIDv7)', async () => {
    const { access_token } = await register(ctx.app);
    const body = { task: 'analyze', prompt: 'Totals please', data: sheet(3) };
    const before = Date.now();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await query(ctx.app, access_token, body)).json().request_id as string);
    const after = Date.now();
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = parseInt(id.replace('-', '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('answers a retried Idempotency-Key with the first answer’s counts and does not count it again', async () => {
    const { access_token } = await register(ctx.app);
    const key = { 'idempotency-key': `retry-${crypto.randomUUID()}` };
    const body = { task: 'analyze', prompt: 'Totals please', data: sheet(3) };
    const first = await query(ctx.app, access_token, body, key);
    expect(first.statusCode).toBe(200);
    expect(first.json().request_id).toBe(key['idempotency-key']);

    const retry = await query(ctx.app, access_token, body, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // The answer was never stored (it can quote the data); the counts were.
    expect(retry.json()).toEqual({ ...first.json(), answer: null, replayed: true });

    const otherTask = await query(ctx.app, access_token, { ...body, task: 'formula' }, key);
    expect([otherTask.statusCode, otherTask.json().error.code]).toEqual([422, 'idempotency_key_reused']);
    const another = await query(ctx.app, access_token, body, { 'idempotency-key': `retry-${crypto.randomUUID()}` });
    expect(another.json().usage.monthly_queries).toBe(2);
  });

  it('lists the last 30 UTC days for the chart, oldest first, today last, zeros for days without use', async () => {
    at('2026-11-22T23:59:00Z');
    const account = newAccount();
    await post(ctx.app, '/api/v1/auth/register', account);
    let token = await signIn(account);
    const first = await query(ctx.app, token, { task: 'ask', prompt: 'Hello' });
    at('2026-11-24T08:00:00Z');
    token = await signIn(account);
    const later = [await query(ctx.app, token, { task: 'ask', prompt: 'Hi' }), await query(ctx.app, token, { task: 'analyze', prompt: 'Go', data: sheet(2) })];

    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage/daily', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    const { days } = res.json() as { days: Array<{ date: string; queries: number; tokens: number }> };
    expect(days).toHaveLength(30);
    expect(days[0]!.date).toBe('2026-10-26');
    expect(days.map((d) => d.date)).toEqual(days.map((_, i) => new Date(Date.UTC(2026, 9, 26 + i)).toISOString().slice(0, 10)));
    expect(days.at(-1)).toEqual({ date: '2026-11-24', queries: 2, tokens: later[0]!.json().tokens.total + later[1]!.json().tokens.total });
    expect(days.at(-3)).toEqual({ date: '2026-11-22', queries: 1, tokens: first.json().tokens.total });
    expect(days.filter((d) => d.queries === 0 && d.tokens === 0)).toHaveLength(28);
    // Today's tokens only; the month's queries.
    expect(await usage(ctx.app, token)).toMatchObject({ monthly_queries: 3, daily_tokens: days.at(-1)!.tokens, total_queries: 3 });
  });

  it('refuses with 429 daily_tokens_exceeded when the day’s tokens are used, with queries left, until midnight UTC', async () => {
    at('2026-11-25T18:00:00Z');
    const account = newAccount();
    await post(ctx.app, '/api/v1/auth/register', account);
    let token = await signIn(account);
    const body = { task: 'analyze', prompt: 'Describe the sheet', data: sheet(12) };
    let refused;
    let accepted = 0;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await query(ctx.app, token, body);
      if (res.statusCode === 200) accepted += 1;
      else refused = res;
    }
    expect(refused?.statusCode).toBe(429);
    expect(refused!.json().error.code).toBe('daily_tokens_exceeded');
    expect(refused!.headers['retry-after']).toBe(String(6 * 3600));
    expect(accepted).toBeGreaterThan(0);
    const spent = await usage(ctx.app, token);
    expect(spent.monthly_queries).toBe(accepted);
    expect(spent.monthly_queries).toBeLessThan(100);
    expect(spent.daily_tokens).toBeLessThanOrEqual(1000);

    at('2026-11-26T00:00:00Z');
    token = await signIn(account);
    const nextDay = await query(ctx.app, token, body);
    expect(nextDay.statusCode).toBe(200);
    expect(nextDay.json().usage).toMatchObject({ monthly_queries: accepted + 1, daily_tokens: nextDay.json().tokens.total });
  });

  it('refuses the 101st query of a Free month with 429 monthly_quota_exceeded until the 1st (UTC)', async () => {
    at('2026-11-27T12:00:00Z');
    const account = newAccount();
    await post(ctx.app, '/api/v1/auth/register', account);
    let token = await signIn(account);
    for (let i = 0; i < 100; i++) expect((await query(tiny, token, { task: 'ask', prompt: `q${i}` })).statusCode).toBe(200);
    const refused = await query(tiny, token, { task: 'ask', prompt: 'one more' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('monthly_quota_exceeded');
    expect(refused.headers['retry-after']).toBe(String((3 * 24 + 12) * 3600));
    expect((await usage(tiny, token)).monthly_queries).toBe(100);

    at('2026-12-01T00:00:00Z');
    token = await signIn(account);
    const december = await query(tiny, token, { task: 'ask', prompt: 'new month' });
    expect(december.statusCode).toBe(200);
    expect(december.json().usage).toMatchObject({ monthly_queries: 1, total_queries: 101 });
  });

  it('applies a plan change to the very next query', async () => {
    const { access_token, user } = await register(ctx.app);
    for (let i = 0; i < 100; i++) await query(tiny, access_token, { task: 'ask', prompt: `q${i}` });
    expect((await query(tiny, access_token, { task: 'ask', prompt: 'more' })).statusCode).toBe(429);

    await setPlan(ctx.app.database.db, user.id, 'professional', ctx.clock.now());
    const upgraded = await query(tiny, access_token, { task: 'ask', prompt: 'more' });
    expect(upgraded.statusCode).toBe(200);
    expect(upgraded.json().usage.monthly_queries).toBe(101);

    await ctx.app.database.db.updateTable('subscriptions').set({ status: 'canceled' }).where('user_id', '=', user.id).execute();
    expect((await query(tiny, access_token, { task: 'ask', prompt: 'more' })).json().error.code).toBe('monthly_quota_exceeded');
  });

  it('keeps prompts and data out of the database, the logs and the data directory', async () => {
    const canary = `CANARY-${crypto.randomUUID()}`;
    const { access_token, user } = await register(ctx.app);
    // Room in the day for every path below.
    await setPlan(ctx.app.database.db, user.id, 'team', ctx.clock.now());
    const data = [
      ['Region', `${canary} header`, 'Units'],
      ['North', `${canary} cell`, 5],
      ['South', `${canary} cell`, 7],
    ];
    const answered = await query(ctx.app, access_token, { task: 'analyze', prompt: `Look at ${canary}`, data }, { 'idempotency-key': 'canary-1' });
    expect(answered.statusCode).toBe(200);
    // It went through the whole path: the answer names the column it read.
    expect(answered.json().answer).toContain(canary);
    await query(ctx.app, access_token, { task: 'formula', prompt: `Use ${canary}`, data });
    // The formula engine's paths: a request built into a formula, a formula explained, one that does not parse.
    const built = await query(ctx.app, access_token, { task: 'formula', prompt: `total Units for ${canary} cell`, data });
    expect(built.json()).toMatchObject({ verified: true, formula: { value: 12, text: expect.stringContaining(canary) } });
    const explained = await query(ctx.app, access_token, { task: 'explain', prompt: `=IF(B2="${canary} cell",C2,0)`, data });
    expect(explained.json()).toMatchObject({ verified: true, formula: { value: 5 } });
    const broken = await query(ctx.app, access_token, { task: 'explain', prompt: `=SUM("${canary}"`, data });
    expect(broken.json().answer).toContain(canary);
    await query(ctx.app, access_token, { task: 'analyze', prompt: `Look at ${canary}`, data }, { 'idempotency-key': 'canary-1' });
    await query(ctx.app, access_token, { task: 'ask', prompt: `${canary} `.repeat(200) });
    await query(ctx.app, access_token, { task: 'ask', prompt: 'x', data: [[{ note: canary }]] });
    await query(ctx.app, access_token, { task: 'ask', prompt: canary, data: [['x'.repeat(5000)]] });

    const logs = ctx.logs();
    expect(logs).toContain('/api/v1/query');
    expect(logs).not.toContain(canary);

    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const stored = files(ctx.dataDir);
    if (engine === 'sqlite') expect(stored.map((f) => path.basename(f))).toContain('sheetmind.db');
    for (const file of stored) {
      const bytes = fs.readFileSync(file);
      expect({ file, hit: bytes.includes(canary) || bytes.includes(Buffer.from(canary, 'utf16le')) }).toEqual({ file, hit: false });
    }

    if (engine === 'postgres') {
      const { db } = ctx.app.database;
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(db);
      expect(tables.rows.map((t) => t.table_name)).toEqual(expect.arrayContaining(['usage_ledger', 'usage_months', 'usage_days']));
      for (const { table_name } of tables.rows) {
        const rows = await sql`select * from ${sql.table(table_name)}`.execute(db);
        expect({ table_name, hit: JSON.stringify(rows.rows).includes(canary) }).toEqual({ table_name, hit: false });
      }
    }
  });
});
