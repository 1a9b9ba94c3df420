import { payFor, signIn, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

const DAY = 86_400_000;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * Advanced analytics and the per-query CSV (decisions.md, "Professional's promises"), read from the
 * ledger: every figure is the ledger's own, the p50 and p95 exact over the range's answered queries.
 */
describe.each(ENGINES)('usage analytics and the per-query CSV on %s', (engine) => {
  const ctx = useTestApp(engine);
  const db = () => ctx.app.database.db;
  const get = (token: string, url: string) => ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(token) });
  const query = async (token: string, task: string, prompt = `Sum column B for ${task}`) => {
    const res = await post(ctx.app, '/api/v1/query', { task, prompt, data: [['Region', 'Sales'], ['North', 3]] }, bearer(token));
    expect(res.statusCode).toBe(200);
    return res.json().tokens.total as number;
  };
  const newKey = async (owner: Account, name: string) => {
    const res = await post(ctx.app, '/api/v1/api-keys', { name, scopes: ['query', 'usage:read'] }, bearer(owner.access_token));
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string; key: string };
  };
  /** Gives the user's answered queries these processing times, oldest query first. */
  async function setTimes(userId: string, times: number[]) {
    const rows = await db().selectFrom('usage_ledger').select('request_id').where('user_id', '=', userId).orderBy('created_at').orderBy('request_id').execute();
    expect(rows).toHaveLength(times.length);
    for (const [i, row] of rows.entries()) {
      await db().updateTable('usage_ledger').set({ processing_time_ms: times[i]! }).where('request_id', '=', row.request_id).execute();
    }
  }

  it('answers every day of the range, by task and by credential, with the exact p50 and p95 of the answered queries', async () => {
    const start = ctx.clock.now();
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    const script = await newKey(pro, 'Nightly report');
    const firstDay = [await query(pro.access_token, 'formula'), await query(pro.access_token, 'formula'), await query(pro.access_token, 'explain')];
    ctx.clock.advance(1000);
    const byKey = await query(script.key, 'ask');
    ctx.clock.advance(2 * DAY);
    await signIn(ctx, pro);
    const later = await query(pro.access_token, 'formula');
    await setTimes(pro.user.id, [100, 200, 300, 1000, 400]);

    const res = await get(pro.access_token, `/usage/analytics?from=${dayOf(start - DAY)}&to=${dayOf(start + 2 * DAY)}`);
    expect(res.statusCode).toBe(200);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(res.json()).toEqual({
      from: dayOf(start - DAY),
      to: dayOf(start + 2 * DAY),
      days: [
        { date: dayOf(start - DAY), queries: 0, tokens: 0, avg_processing_ms: 0 },
        { date: dayOf(start), queries: 4, tokens: sum(firstDay) + byKey, avg_processing_ms: 400 },
        { date: dayOf(start + DAY), queries: 0, tokens: 0, avg_processing_ms: 0 },
        { date: dayOf(start + 2 * DAY), queries: 1, tokens: later, avg_processing_ms: 400 },
      ],
      by_task: [
        { task: 'formula', queries: 3, tokens: firstDay[0]! + firstDay[1]! + later },
        { task: 'ask', queries: 1, tokens: byKey },
        { task: 'explain', queries: 1, tokens: firstDay[2] },
      ],
      by_credential: [
        { kind: 'web', id: expect.any(String), name: 'Web app', queries: 3, tokens: sum(firstDay) },
        { kind: 'api_key', id: script.id, name: 'Nightly report', queries: 1, tokens: byKey },
        { kind: 'web', id: expect.any(String), name: 'Web app', queries: 1, tokens: later },
      ],
      // Nearest rank over 100, 200, 300, 400, 1000: the 3rd and the 5th.
      p50_processing_ms: 300,
      p95_processing_ms: 1000,
    });
    // The two web rows are the two sessions (signed in again in between).
    const [first, , second] = res.json().by_credential;
    expect(first.id).not.toBe(second.id);

    // A range of the later day alone reads that day's one query.
    const oneDay = (await get(script.key, `/usage/analytics?from=${dayOf(start + 2 * DAY)}&to=${dayOf(start + 2 * DAY)}`)).json();
    expect(oneDay).toMatchObject({ p50_processing_ms: 400, p95_processing_ms: 400, by_task: [{ task: 'formula', queries: 1, tokens: later }] });
  });

  it("gives one CSV row per query, never a prompt or data, with every text cell neutralised against formulas", async () => {
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    const hostile = await newKey(pro, '=HYPERLINK("https://evil.example","x")');
    const plus = await newKey(pro, '+cmd|calc');
    const canary = `canary-${Date.now()}`;
    const at = ctx.clock.now();
    const made = [
      await post(ctx.app, '/api/v1/query', { task: 'analyze', prompt: `Look at ${canary}`, data: [[canary, 1]] }, bearer(pro.access_token)),
      await post(ctx.app, '/api/v1/query', { task: 'ask', prompt: `Ask ${canary}` }, bearer(hostile.key)),
      await post(ctx.app, '/api/v1/query', { task: 'explain', prompt: 'Why?' }, bearer(plus.key)),
    ];
    expect(made.map((res) => res.statusCode)).toEqual([200, 200, 200]);
    await setTimes(pro.user.id, [12, 34, 56]);

    const res = await get(pro.access_token, `/usage/export.csv?from=${dayOf(at)}&to=${dayOf(at)}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="usage-${dayOf(at)}-to-${dayOf(at)}.csv"`);
    expect(res.body).not.toContain(canary);
    const iso = new Date(at).toISOString();
    const counts = (i: number) => `${made[i]!.json().tokens.prompt},${made[i]!.json().tokens.completion}`;
    expect(res.body).toBe(
      '\uFEFF' +
        [
          'at,task,credential_kind,credential_name,prompt_tokens,completion_tokens,processing_ms',
          `${iso},analyze,web,Web app,${counts(0)},12`,
          `${iso},ask,api_key,"'=HYPERLINK(""https://evil.example"",""x"")",${counts(1)},34`,
          `${iso},explain,api_key,'+cmd|calc,${counts(2)},56`,
        ].join('\r\n') +
        '\r\n',
    );
  });

  it('answers 400 naming the field for a malformed day, a range that ends in the future, runs backwards, is over 366 days or starts before retention', async () => {
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    const now = ctx.clock.now();
    // RETENTION_MONTHS is 13 by default: usage is kept from the first day of the month 13 months back.
    const date = new Date(now);
    const kept = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 13, 1);
    const cases: Array<[string, string, string]> = [
      ['2026-02-30', dayOf(now), 'from'],
      ['yesterday', dayOf(now), 'from'],
      [dayOf(now), '2026-13-01', 'to'],
      [dayOf(now), dayOf(now + DAY), 'to'],
      [dayOf(now), dayOf(now - DAY), 'from'],
      [dayOf(kept), dayOf(kept + 366 * DAY), 'to'],
      [dayOf(kept - DAY), dayOf(kept + DAY), 'from'],
    ];
    for (const [from, to, field] of cases) {
      for (const url of ['/usage/analytics', '/usage/export.csv']) {
        const res = await get(pro.access_token, `${url}?from=${from}&to=${to}`);
        expect([from, to, url, res.statusCode, res.json().error.code, res.json().error.field]).toEqual([from, to, url, 400, 'invalid_input', field]);
      }
    }
    const missing = await get(pro.access_token, `/usage/analytics?from=${dayOf(now)}`);
    expect([missing.statusCode, missing.json().error.field]).toEqual([400, 'to']);
    // The longest range there is: 366 days from the first day kept.
    const longest = await get(pro.access_token, `/usage/analytics?from=${dayOf(kept)}&to=${dayOf(kept + 365 * DAY)}`);
    expect(longest.statusCode).toBe(200);
    expect(longest.json().days).toHaveLength(366);
  });
});
