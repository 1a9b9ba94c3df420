import { PLANS, planWith } from '../../contract/plans';
import { cancelAtPeriodEnd, join, payFor, signIn, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

/**
 * What each plan includes beyond its limits is checked on the server in one place
 * (server/plugins/planFeatures.ts, from contract/plans.ts): a call the plan does not include
 * answers 403 `plan_required` naming the plan that does, and the answer follows the plan from the
 * very next request.
 */
describe.each(ENGINES)('plan features on %s', (engine) => {
  const ctx = useTestApp(engine);
  const today = () => new Date(ctx.clock.now()).toISOString().slice(0, 10);
  /** One call behind each feature built so far. */
  const FEATURE_CALLS = {
    analytics: () => `/api/v1/usage/analytics?from=${today()}&to=${today()}`,
    exports: () => `/api/v1/usage/export.csv?from=${today()}&to=${today()}`,
  };
  const calls = (token: string) =>
    Promise.all(Object.values(FEATURE_CALLS).map((url) => ctx.app.inject({ method: 'GET', url: url(), headers: bearer(token) })));
  const statuses = async (who: Account) => (await calls(who.access_token)).map((res) => res.statusCode);

  it('lists the features beside the limits: none for Free, all for Professional and Team, Professional the cheapest with each', () => {
    expect(PLANS.map((plan) => [plan.id, plan.includes])).toEqual([
      ['free', []],
      ['professional', ['analytics', 'exports', 'custom_functions']],
      ['team', ['analytics', 'exports', 'custom_functions']],
    ]);
    expect(planWith('analytics').id).toBe('professional');
  });

  it('refuses Free with 403 plan_required naming Professional, and lets Professional and Team in', async () => {
    const free = await register(ctx.app);
    for (const res of await calls(free.access_token)) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: { code: 'plan_required', message: expect.stringContaining('Professional'), required_plan: 'professional' } });
    }
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    expect(await statuses(pro)).toEqual([200, 200]);
    const owner = await teamOwner(ctx);
    expect(await statuses(owner)).toEqual([200, 200]);
  });

  it("gives a team member, whatever their own plan, what the Team plan has, and takes it away on the request after they leave", async () => {
    const owner = await teamOwner(ctx);
    const member = await register(ctx.app);
    expect(await statuses(member)).toEqual([403, 403]);
    await join(ctx, owner, member);
    expect(await statuses(member)).toEqual([200, 200]);
    const left = await ctx.app.inject({ method: 'DELETE', url: `/api/v1/teams/me/members/${member.user.id}`, headers: bearer(member.access_token) });
    expect(left.statusCode).toBe(204);
    expect(await statuses(member)).toEqual([403, 403]);
  });

  it('lets an API key with usage:read read analytics and the CSV on a plan that has them, and no key without that scope', async () => {
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    const key = async (scopes: string[]) => (await post(ctx.app, '/api/v1/api-keys', { name: scopes.join(' '), scopes }, bearer(pro.access_token))).json().key as string;
    expect((await calls(await key(['usage:read']))).map((res) => res.statusCode)).toEqual([200, 200]);
    const refused = await calls(await key(['query']));
    expect(refused.map((res) => res.json().error.code)).toEqual(['insufficient_scope', 'insufficient_scope']);
    // A Free user's key with the scope still meets the plan.
    const free = await register(ctx.app);
    const freeKey = (await post(ctx.app, '/api/v1/api-keys', { name: 'Reader', scopes: ['usage:read'] }, bearer(free.access_token))).json().key as string;
    expect((await calls(freeKey)).map((res) => res.json().error.code)).toEqual(['plan_required', 'plan_required']);
  });

  // Last: it moves the clock a month on.
  it('opens on the request after an upgrade and closes on the request after a downgrade takes effect', async () => {
    const user = await register(ctx.app);
    expect(await statuses(user)).toEqual([403, 403]);
    await payFor(ctx, user, 'professional');
    expect(await statuses(user)).toEqual([200, 200]);

    await cancelAtPeriodEnd(ctx, user);
    const { current_period_end: periodEnd } = (await ctx.app.inject({ method: 'GET', url: '/api/v1/subscription/me', headers: bearer(user.access_token) })).json();
    ctx.clock.time = Date.parse(periodEnd) - 1000;
    await signIn(ctx, user);
    expect(await statuses(user)).toEqual([200, 200]);
    ctx.clock.time = Date.parse(periodEnd);
    expect(await statuses(user)).toEqual([403, 403]);
  });
});
