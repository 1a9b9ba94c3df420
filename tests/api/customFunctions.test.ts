import { join, payFor, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useSecondInstance, useTestApp } from '../helpers/testApp';

/** Custom functions (decisions.md, "Professional's promises"): the calls, the limits per plan, and `run` as one query. */
describe.each(ENGINES)('custom functions on %s', (engine) => {
  const ctx = useTestApp(engine);
  const other = useSecondInstance(ctx);
  const call = (token: string, method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: object, app = ctx.app) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
  const create = (who: Account | string, body: object, app = ctx.app) =>
    post(app, '/api/v1/functions', body, bearer(typeof who === 'string' ? who : who.access_token));
  const fn = (name: string, extra: object = {}) => ({ name, task: 'analyze', prompt: 'Total {{input}} by region', description: `Totals for ${name}`, ...extra });
  const run = (token: string, name: string, app = ctx.app) => post(app, `/api/v1/functions/${name}/run`, { input: [['Region', 'Sales'], ['North', 3], ['South', 4]] }, bearer(token));
  const professional = async () => {
    const user = await register(ctx.app);
    await payFor(ctx, user, 'professional');
    return user;
  };

  it('is not on Free: 403 plan_required naming Professional', async () => {
    const free = await register(ctx.app);
    for (const res of [await create(free, fn('TOTAL')), await call(free.access_token, 'GET', '/functions'), await run(free.access_token, 'TOTAL')]) {
      expect([res.statusCode, res.json().error.code, res.json().error.required_plan]).toEqual([403, 'plan_required', 'professional']);
    }
  });

  it('creates, lists, changes and deletes a personal function, with its name and prompt checked', async () => {
    const pro = await professional();
    const created = await create(pro, fn('TOTAL_BY_REGION'));
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(String),
      name: 'TOTAL_BY_REGION',
      task: 'analyze',
      prompt: 'Total {{input}} by region',
      description: 'Totals for TOTAL_BY_REGION',
      scope: 'personal',
      created_at: new Date(ctx.clock.now()).toISOString(),
      updated_at: new Date(ctx.clock.now()).toISOString(),
    });
    const again = await create(pro, fn('TOTAL_BY_REGION'));
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'function_exists']);
    for (const [body, field] of [
      [fn('total'), 'name'],
      [fn('A'.repeat(31)), 'name'],
      [fn('NO_INPUT', { prompt: 'Total by region' }), 'prompt'],
      [fn('LONG', { prompt: `{{input}}${'x'.repeat(2000)}` }), 'prompt'],
    ] as const) {
      const res = await create(pro, body);
      expect([res.statusCode, res.json().error.field]).toEqual([400, field]);
    }
    // Another person's name is theirs.
    const someone = await professional();
    expect((await create(someone, fn('TOTAL_BY_REGION'))).statusCode).toBe(201);

    const id = created.json().id as string;
    const changed = await call(pro.access_token, 'PATCH', `/functions/${id}`, { description: 'Sales per region', task: 'explain' });
    expect(changed.json()).toMatchObject({ description: 'Sales per region', task: 'explain', name: 'TOTAL_BY_REGION' });
    expect((await call(pro.access_token, 'GET', '/functions')).json().functions.map((f: { name: string }) => f.name)).toEqual(['TOTAL_BY_REGION']);
    // Not someone else's.
    expect((await call(someone.access_token, 'DELETE', `/functions/${id}`)).statusCode).toBe(404);
    expect((await call(pro.access_token, 'DELETE', `/functions/${id}`)).statusCode).toBe(204);
    expect((await call(pro.access_token, 'GET', '/functions')).json().functions).toEqual([]);
  });

  it('runs a function as one query of its task, answered as /query answers, also with an API key of scope query', async () => {
    const pro = await professional();
    expect((await create(pro, fn('SUM_UP'))).statusCode).toBe(201);
    const before = (await call(pro.access_token, 'GET', '/query/usage')).json().monthly_queries;
    const res = await run(pro.access_token, 'SUM_UP');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ task: 'analyze', answer: expect.stringContaining('Sales'), replayed: false, usage: { monthly_queries: before + 1 } });
    const key = (await post(ctx.app, '/api/v1/api-keys', { name: 'Sheet', scopes: ['query'] }, bearer(pro.access_token))).json().key as string;
    expect((await run(key, 'SUM_UP')).json().usage.monthly_queries).toBe(before + 2);
    // The add-on lists what it can offer as cell functions with the same scope.
    expect((await call(key, 'GET', '/functions')).json().functions.map((f: { name: string }) => f.name)).toEqual(['SUM_UP']);
    const reader = (await post(ctx.app, '/api/v1/api-keys', { name: 'Reader', scopes: ['usage:read'] }, bearer(pro.access_token))).json().key as string;
    expect((await run(reader, 'SUM_UP')).json().error.code).toBe('insufficient_scope');
    expect((await run(pro.access_token, 'NOT_THERE')).statusCode).toBe(404);
  });

  it('keeps a person to 25 functions when 30 are asked for at once on two instances', async () => {
    const pro = await professional();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => create(pro, fn(`F${i}`), i % 2 ? other.current : ctx.app)));
    const statuses = results.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(25);
    expect(results.filter((res) => res.statusCode !== 201).map((res) => res.json().error.code)).toEqual(Array(5).fill('function_limit_reached'));
    expect((await call(pro.access_token, 'GET', '/functions')).json().functions).toHaveLength(25);
  });

  it("shares a team's functions: admins make up to 100 of them (at once on two instances), members run them but may not make or change them", async () => {
    const owner = await teamOwner(ctx);
    const admin = await register(ctx.app);
    const member = await register(ctx.app);
    await join(ctx, owner, admin, 'admin');
    await join(ctx, owner, member);
    const refused = await create(member, fn('MINE_FOR_ALL', { scope: 'team' }));
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'forbidden']);
    // A member's personal functions are theirs.
    expect((await create(member, fn('MINE'))).statusCode).toBe(201);

    const results = await Promise.all(
      Array.from({ length: 104 }, (_, i) => create(i % 2 ? admin : owner, fn(`T${i}`, { scope: 'team' }), i % 3 ? other.current : ctx.app)),
    );
    expect(results.filter((res) => res.statusCode === 201)).toHaveLength(100);
    expect(new Set(results.filter((res) => res.statusCode !== 201).map((res) => res.json().error.code))).toEqual(new Set(['function_limit_reached']));

    const listed = (await call(member.access_token, 'GET', '/functions')).json().functions as Array<{ id: string; name: string; scope: string }>;
    expect(listed).toHaveLength(101);
    const shared = listed.find((f) => f.scope === 'team')!;
    expect((await run(member.access_token, shared.name)).statusCode).toBe(200);
    const change = await call(member.access_token, 'PATCH', `/functions/${shared.id}`, { description: 'Mine now' });
    expect([change.statusCode, change.json().error.code]).toEqual([403, 'forbidden']);
    expect((await call(admin.access_token, 'DELETE', `/functions/${shared.id}`)).statusCode).toBe(204);
    expect((await create(admin, fn('ONE_MORE', { scope: 'team' }))).statusCode).toBe(201);
  });

  it('never lets runs at once pass the monthly query limit', async () => {
    const pro = await professional();
    expect((await create(pro, fn('COUNT_ME'))).statusCode).toBe(201);
    const month = new Date(ctx.clock.now()).toISOString().slice(0, 7);
    await ctx.app.database.db.insertInto('usage_months').values({ user_id: pro.user.id, month, queries: 998, settled: 998, processing_ms: 0 }).execute();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => run(pro.access_token, 'COUNT_ME', i % 2 ? other.current : ctx.app)));
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 200, 429, 429, 429, 429]);
    expect((await call(pro.access_token, 'GET', '/query/usage')).json().monthly_queries).toBe(1000);
  });
});
