// The retention job (docs/retention.md): what it prunes is gone, and nothing the dashboard, the
// team's usage and CSV, the members list or the quota checks read changes, across a month
// boundary and when runs overlap; on both engines with one test app (and a second on PostgreSQL).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { pruneOnce, startRetention, type Pruned } from '../../server/domain/retention';
import { join, payFor, signIn, teamOwner, type Account } from '../helpers/teams';
import { appOnSameDatabase, bearer, ENGINES, post, register, useTestApp } from '../helpers/testApp';

const DAY_MS = 86_400_000;
const MONTHS = 13;

describe.each(ENGINES)('retention job on %s', (engine) => {
  const ctx = useTestApp(engine);
  /** PostgreSQL: a second instance on the same database, with its own pool, as a second server would be. */
  let other: FastifyInstance | undefined;
  beforeAll(async () => {
    if (engine === 'postgres') other = await appOnSameDatabase(ctx, { database: 'own' });
  });
  afterAll(async () => other?.close());

  const db = () => ctx.app.database.db;
  const at = (iso: string) => {
    const time = Date.parse(iso);
    expect(time).toBeGreaterThan(ctx.clock.time);
    ctx.clock.time = time;
  };
  const query = (who: Account, task = 'ask', data?: unknown[][]) =>
    ctx.app.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(who.access_token), payload: { task, prompt: `Sum column B for ${task}`, ...(data ? { data } : {}) } });
  const get = async (who: Account, url: string): Promise<LightMyRequestResponse> => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(who.access_token) });
    expect(res.statusCode).toBe(200);
    return res;
  };
  const count = async (table: string, where: string) =>
    Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${sql.raw(where)}`.execute(db())).rows[0]!.n);
  const sum = async (table: string, column: string, where: string) =>
    Number((await sql<{ n: number }>`select coalesce(sum(${sql.ref(column)}), 0) as n from ${sql.table(table)} where ${sql.raw(where)}`.execute(db())).rows[0]!.n);

  let owner: Account;
  let member: Account;
  let solo: Account;

  /** Everything the dashboard, the team's usage (JSON and CSV bytes) and the members list show, and what a query at a limit gets. */
  async function everythingRead(months: string[]) {
    const reads: Record<string, unknown> = {};
    for (const [name, who] of [['owner', owner], ['member', member], ['solo', solo]] as const) {
      reads[`${name} usage`] = (await get(who, '/query/usage')).json();
      reads[`${name} daily`] = (await get(who, '/query/usage/daily')).json();
    }
    for (const month of months) {
      reads[`team ${month}`] = (await get(owner, `/teams/me/usage?month=${month}`)).json();
      reads[`csv ${month}`] = (await get(owner, `/teams/me/usage.csv?month=${month}`)).rawPayload.toString('base64');
    }
    reads.members = (await get(owner, '/teams/me/members')).json();
    const capped = await query(member);
    const spent = await query(solo, 'analyze', sheet(100));
    reads.refused = [capped.statusCode, capped.json().error.code, spent.statusCode, spent.json().error.code];
    return reads;
  }

  /** A sheet of `rows` data rows: about 6 tokens a row once sent, so 100 rows take over half a Free day. */
  const sheet = (rows: number) => [['Region', 'Revenue'], ...Array.from({ length: rows }, (_, i) => [`Region ${i}`, 100 + i])];

  it('keeps every figure the dashboard, the team’s usage and CSV, the members list and the quota checks read across a month boundary while the ledger rows of a month past the horizon go', async () => {
    at('2026-11-30T22:00:00Z');
    owner = await teamOwner(ctx, { full_name: 'Ada, "the" Countess' });
    member = await register(ctx.app, { full_name: '=cmd Łódź' });
    solo = await register(ctx.app);
    await join(ctx, owner, member);
    const made = [await query(owner, 'formula'), await query(owner, 'formula'), await query(member), await query(member, 'explain'), await query(solo), await query(solo)];
    at('2026-11-30T23:59:00Z');
    await signIn(ctx, member);
    made.push(await query(member, 'formula'));
    at('2026-12-01T00:30:00Z');
    for (const who of [owner, member, solo]) await signIn(ctx, who);
    made.push(await query(owner), await query(member), await query(member, 'analyze', sheet(2)), await query(solo));
    expect(made.map((res) => res.statusCode)).toEqual(made.map(() => 200));

    at('2028-01-15T12:00:00Z');
    for (const who of [owner, member, solo]) await signIn(ctx, who);
    // This month: a member at their cap, and a Free user whose day's tokens are spent.
    expect((await ctx.app.inject({ method: 'PATCH', url: `/api/v1/teams/me/members/${member.user.id}`, headers: bearer(owner.access_token), payload: { monthly_query_cap: 2 } })).statusCode).toBe(200);
    expect([(await query(member)).statusCode, (await query(member, 'formula')).statusCode, (await query(owner)).statusCode]).toEqual([200, 200, 200]);
    expect((await query(solo, 'analyze', sheet(100))).statusCode).toBe(200);

    const months = ['2026-11', '2026-12', '2028-01'];
    const before = await everythingRead(months);
    expect(before.refused).toEqual([429, 'member_cap_reached', 429, 'daily_tokens_exceeded']);
    expect((before['team 2026-11'] as { members: Array<{ queries: number }> }).members.map((m) => m.queries).sort()).toEqual([2, 3]);
    const november = await count('usage_ledger', "month = '2026-11'");
    const teamNovember = await count('usage_ledger', "month = '2026-11' and team_id is not null");
    const december = await count('usage_ledger', "month = '2026-12'");
    expect([november, teamNovember, december]).toEqual([7, 5, 4]);

    const pruned = await pruneOnce(ctx.app.database, ctx.clock.now(), { months: MONTHS });
    expect(pruned).toMatchObject({ usage_ledger: november, stopped: false });
    expect(await everythingRead(months)).toEqual(before);

    // November's rows are rolled up (team rows only) and gone; December's are still in the ledger.
    expect(await count('usage_ledger', "month < '2026-12'")).toBe(0);
    expect(await count('usage_ledger', "month = '2026-12'")).toBe(december);
    expect(await sum('usage_rollups', 'queries', "month = '2026-11'")).toBe(teamNovember);
    expect(await count('usage_rollups', "month <> '2026-11'")).toBe(0);
    expect(await count('usage_days', "day < '2026-12-01'")).toBe(0);
    expect(await count('usage_days', "day like '2026-12-%'")).toBe(3);
    expect(await count('team_member_months', "month < '2026-12'")).toBe(0);
    expect(await count('team_audit_log', `at < ${Date.UTC(2026, 11, 1)}`)).toBe(0);
    // The invitation the member accepted expired in December 2026.
    expect(await count('team_invitations', 'true')).toBe(0);
    // Its mail stopped counting a day after it went.
    expect(await count('invitation_mails', 'true')).toBe(0);
    // The mails of 2026 (the invitation's, sent) and their attempts.
    expect(await count('mail_outbox', 'true')).toBe(0);
    expect(await count('mail_attempts', 'true')).toBe(0);
    expect(await count('usage_seconds', `second < ${Math.floor(ctx.clock.now() / 1000) - 3600}`)).toBe(0);
    expect(await count('usage_seconds', 'true')).toBeGreaterThan(0);
  });

  it('counts each pruned row once when runs overlap: two at once on one instance, and on a second instance on PostgreSQL', async () => {
    at('2028-02-15T12:00:00Z');
    for (const who of [owner, member, solo]) await signIn(ctx, who);
    // A new month and day: the member takes their cap again, the Free user their day's tokens.
    const spent = [await query(member), await query(member, 'formula'), await query(solo, 'analyze', sheet(100))];
    expect(spent.map((res) => res.statusCode)).toEqual([200, 200, 200]);
    const months = ['2026-11', '2026-12', '2028-01'];
    const before = await everythingRead(months);
    expect(before.refused).toEqual([429, 'member_cap_reached', 429, 'daily_tokens_exceeded']);
    const due = await count('usage_ledger', "month < '2027-01'");
    const teamDue = await count('usage_ledger', "month < '2027-01' and team_id is not null");
    const rolled = await sum('usage_rollups', 'queries', 'true');
    expect([due, teamDue]).toEqual([4, 3]);

    const instances = other ? [ctx.app, ctx.app, other] : [ctx.app, ctx.app];
    // One row a batch, so the runs take turns batch by batch.
    const runs: Pruned[] = await Promise.all(instances.map((app) => pruneOnce(app.database, ctx.clock.now(), { months: MONTHS, batchSize: 1 })));
    expect(runs.reduce((total, run) => total + run.usage_ledger, 0)).toBe(due);
    expect(await count('usage_ledger', "month < '2027-01'")).toBe(0);
    expect(await sum('usage_rollups', 'queries', 'true')).toBe(rolled + teamDue);
    expect(await everythingRead(months)).toEqual(before);
    // Nothing is left to do.
    expect(Object.values(await pruneOnce(ctx.app.database, ctx.clock.now(), { months: MONTHS })).filter((n) => n !== 0 && n !== false)).toEqual([]);
  });

  it('forgets expired sessions with their refresh tokens, spent reset links and billing events past 90 days; a signed-in user stays signed in', async () => {
    const start = ctx.clock.now();
    const early = await register(ctx.app);
    expect((await post(ctx.app, '/api/v1/auth/password-reset-request', { email: early.account.email })).statusCode).toBe(202);
    await ctx.mail.latestTo(early.account.email, 'password_reset');
    const payer = await register(ctx.app);
    await payFor(ctx, payer, 'professional');
    ctx.clock.time = start + 61 * DAY_MS;
    const recent = await register(ctx.app);
    await payFor(ctx, recent, 'professional');
    ctx.clock.time = start + 91 * DAY_MS;
    const old = early.refresh_token;
    const again = await post(ctx.app, '/api/v1/auth/login/email', { email: early.account.email, password: early.account.password });
    early.access_token = again.json().access_token;
    const live = await post(ctx.app, '/api/v1/auth/login/email', { email: recent.account.email, password: recent.account.password });
    const eventsOf = (who: Account) => count('billing_events', `user_id = '${who.user.id}'`);
    expect(await eventsOf(payer)).toBeGreaterThan(0);
    const recentEvents = await eventsOf(recent);
    expect(recentEvents).toBeGreaterThan(0);
    const sessionsOf = (who: Account) => count('sessions', `user_id = '${who.user.id}'`);
    expect(await sessionsOf(early)).toBe(2);

    const pruned = await pruneOnce(ctx.app.database, ctx.clock.now(), { months: MONTHS });
    expect(pruned.sessions).toBeGreaterThanOrEqual(1);
    expect(await sessionsOf(early)).toBe(1);
    expect(await count('refresh_tokens', `session_id not in (select id from sessions)`)).toBe(0);
    expect(await count('password_resets', `user_id = '${early.user.id}'`)).toBe(0);
    expect(await eventsOf(payer)).toBe(0);
    expect(await eventsOf(recent)).toBe(recentEvents);
    // The live sessions still work, the expired one answers as it did.
    expect((await get(early, '/users/me')).json().id).toBe(early.user.id);
    expect((await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: again.json().refresh_token })).statusCode).toBe(200);
    expect((await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: live.json().refresh_token })).statusCode).toBe(200);
    const expired = await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: old });
    expect([expired.statusCode, expired.json().error.code]).toEqual([401, 'invalid_refresh_token']);
  });

  it('runs on its timer, once an interval has passed, and stops', async () => {
    const leaving = await register(ctx.app);
    ctx.clock.advance(32 * DAY_MS);
    const sessions = () => count('sessions', `user_id = '${leaving.user.id}'`);
    jest.useFakeTimers({ doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout'] });
    try {
      const job = startRetention(ctx.app.database, ctx.clock, ctx.app.log, { months: MONTHS, intervalMinutes: 1 });
      jest.advanceTimersByTime(59_000);
      expect(await sessions()).toBe(1);
      jest.advanceTimersByTime(1_000);
      await job.stop();
      expect(await sessions()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
