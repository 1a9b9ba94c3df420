import type { FastifyInstance } from 'fastify';
import { tinyProvider } from '../helpers/fakeAi';
import { join, teamOwner, type Account } from '../helpers/teams';
import { appOnSameDatabase, bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

describe.each(ENGINES)('team usage and member caps on %s', (engine) => {
  const ctx = useTestApp(engine);
  /**
   * A second instance with its own database handle (its own pool on PostgreSQL) whose provider does
   * I/O, so its queries are reserved and settled in two units, where the first app answers in one.
   */
  let other: FastifyInstance;
  beforeAll(async () => {
    other = await appOnSameDatabase(ctx, { database: 'own', aiProvider: tinyProvider });
  });
  afterAll(() => other.close());

  const month = () => new Date(ctx.clock.now()).toISOString().slice(0, 7);
  const today = () => new Date(ctx.clock.now()).toISOString().slice(0, 10);
  const query = (who: Account, task = 'ask', app = ctx.app) =>
    app.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(who.access_token), payload: { task, prompt: `Sum column B for ${task}` } });
  const get = (who: Account, url: string) => ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(who.access_token) });
  const setCap = (admin: Account, member: Account, cap: number | null) =>
    ctx.app.inject({ method: 'PATCH', url: `/api/v1/teams/me/members/${member.user.id}`, headers: bearer(admin.access_token), payload: { monthly_query_cap: cap } });
  const tokensOf = (res: { json(): { tokens: { total: number } } }) => res.json().tokens.total;

  it('counts for the team only the queries made while in it, per day, member and task, as the members’ own answers add up', async () => {
    const owner = await teamOwner(ctx);
    const member = await register(ctx.app);
    expect((await query(member)).statusCode).toBe(200);
    await join(ctx, owner, member);
    const made = [await query(member, 'formula'), await query(member, 'formula'), await query(member, 'explain'), await query(owner, 'formula')];
    expect(made.map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/v1/teams/me/members/${member.user.id}`, headers: bearer(member.access_token) })).statusCode).toBe(204);
    expect((await query(member)).statusCode).toBe(200);

    const usage = await get(owner, `/teams/me/usage?month=${month()}`);
    expect(usage.statusCode).toBe(200);
    const [m1, m2, m3, o1] = made.map(tokensOf);
    const byUser = (id: string) => usage.json().days.find((d: { user_id: string }) => d.user_id === id);
    expect(byUser(member.user.id)).toEqual({ date: today(), user_id: member.user.id, queries: 3, tokens: m1! + m2! + m3! });
    expect(byUser(owner.user.id)).toEqual({ date: today(), user_id: owner.user.id, queries: 1, tokens: o1 });
    expect(usage.json().by_task).toEqual([
      { task: 'explain', queries: 1, tokens: m3 },
      { task: 'formula', queries: 3, tokens: m1! + m2! + o1! },
    ]);
    expect(usage.json().members).toEqual(
      expect.arrayContaining([{ user_id: member.user.id, full_name: member.account.full_name, email: member.account.email, queries: 3, tokens: m1! + m2! + m3! }]),
    );
    // The member's own day has all five of their queries; the team's has the three made for it.
    const own = (await get(member, '/query/usage/daily')).json().days.at(-1);
    expect(own.queries).toBe(5);
  });

  it('downloads a CSV a spreadsheet opens as is: BOM, header, RFC 4180 quoting, non-Latin letters, formulas neutralised', async () => {
    const owner = await teamOwner(ctx, { full_name: 'Ada, "the" Countess' });
    const tricky = await register(ctx.app, { full_name: '=HYPERLINK("http://evil.example","x") Łódź 名前' });
    await join(ctx, owner, tricky);
    const a = await query(owner);
    const b = await query(tricky);
    const res = await get(owner, `/teams/me/usage.csv?month=${month()}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="team-usage-${month()}.csv"`);
    const rows = [
      `${today()},${owner.user.id},"Ada, ""the"" Countess",${owner.account.email},1,${tokensOf(a)}`,
      `${today()},${tricky.user.id},"'=HYPERLINK(""http://evil.example"",""x"") Łódź 名前",${tricky.account.email},1,${tokensOf(b)}`,
    ].sort((x, y) => (x.split(',')[1]! < y.split(',')[1]! ? -1 : 1));
    expect(res.rawPayload.toString('utf8')).toBe(`\uFEFFdate,user_id,full_name,email,queries,tokens\r\n${rows.join('\r\n')}\r\n`);
  });

  it('admits exactly 5 of 20 queries sent at once (to two instances) by a member with 5 left under their cap, then 429 member_cap_reached', async () => {
    const owner = await teamOwner(ctx);
    const member = await register(ctx.app);
    await join(ctx, owner, member);
    expect((await setCap(owner, member, 7)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await query(member)).statusCode).toBe(200);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => query(member, 'ask', i % 2 ? other : ctx.app)));
    const statuses = results.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const refusal = results.find((res) => res.statusCode === 429)!.json().error;
    expect(refusal.code).toBe('member_cap_reached');
    expect(refusal.message).toMatch(/^You have used all 7 queries your team’s admin allows you this month\./);
    const row = (await get(owner, '/teams/me/members')).json().members.find((m: { user_id: string }) => m.user_id === member.user.id);
    expect(row).toMatchObject({ month_queries: 7, monthly_query_cap: 7 });
    expect((await get(owner, `/teams/me/usage?month=${month()}`)).json().members.find((m: { user_id: string }) => m.user_id === member.user.id).queries).toBe(7);

    // Raising or removing the cap lets the member go on at once.
    expect((await setCap(owner, member, null)).statusCode).toBe(200);
    expect((await query(member)).statusCode).toBe(200);
  });

  it('refuses every query of a member capped at 0, and leaves people in no team alone', async () => {
    const owner = await teamOwner(ctx);
    const member = await register(ctx.app);
    await join(ctx, owner, member);
    await setCap(owner, member, 0);
    const refused = await query(member);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('member_cap_reached');
    // Nothing of the refused query was kept.
    expect((await get(member, '/query/usage')).json().monthly_queries).toBe(0);
    const loner = await register(ctx.app);
    expect((await query(loner)).statusCode).toBe(200);
  });
});
