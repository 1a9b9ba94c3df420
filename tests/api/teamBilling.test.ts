// Issue 33: the team's billing belongs to the team and follows ownership (decisions.md, "Team money
// and roles"), in test mode, on both engines, with two instances on one database and requests at once.
import { alreadyInTeamToPay } from '../../server/domain/teams';
import { invitationToken, join, payFor, signIn, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, register, useSecondInstance, useTestApp } from '../helpers/testApp';

jest.setTimeout(30_000);

describe.each(ENGINES)("the team's billing on %s", (engine) => {
  const ctx = useTestApp(engine);
  const second = useSecondInstance(ctx);

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: Account, payload?: object, app = ctx.app) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token), ...(payload ? { payload } : {}) });
  const subscriptionOf = async (who: Account, app = ctx.app) => (await call('GET', '/subscription/me', who, undefined, app)).json();
  const teamOf = async (who: Account) => (await call('GET', '/teams/me', who)).json();
  const checkout = (who: Account, plan: string, app = ctx.app) => call('POST', '/subscription/checkout', who, { plan }, app);
  /** The form a browser submits on a test-mode page (path and query of the link the API gave). */
  const submit = (url: string, fields: Record<string, string>, app = ctx.app) => {
    const link = new URL(url);
    return app.inject({
      method: 'POST',
      url: link.pathname,
      payload: new URLSearchParams({ token: link.searchParams.get('token')!, ...fields }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  };
  const card = { card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', action: 'pay' };
  const transfer = (from: Account, to: Account, app = ctx.app) => call('POST', '/teams/me/transfer', from, { user_id: to.user.id }, app);
  const planChanges = async (who: Account) =>
    ((await call('GET', '/teams/me/audit-log', who)).json().events as Array<{ action: string; actor: unknown; target: { detail: string } }>).filter(
      (event) => event.action === 'team.plan_changed',
    );
  const rows = (userIds: string[]) => ctx.app.database.db.selectFrom('subscriptions').selectAll().where('user_id', 'in', userIds).execute();

  /** An owner (who paid for Team) with `next` in the team as an admin. */
  async function teamWithAdmin(ownerName = 'Ada Owner', nextName = 'Ben Next') {
    const owner = await teamOwner(ctx, { full_name: ownerName });
    const next = await register(ctx.app, { full_name: nextName });
    await join(ctx, owner, next, 'admin');
    return { owner, next };
  }

  it('hands the subscription to the new owner at once, on every instance; the former owner is back on their own plan', async () => {
    const { owner, next } = await teamWithAdmin();
    const before = await subscriptionOf(owner);
    expect(before).toMatchObject({ plan: 'team', status: 'active', cancel_at_period_end: false });
    expect(before.current_period_end).not.toBeNull();

    expect((await transfer(owner, next, second.current)).statusCode).toBe(204);

    for (const app of [ctx.app, second.current]) {
      // The new owner sees the team's subscription, its period and all, as theirs to manage.
      expect(await subscriptionOf(next, app)).toEqual(before);
      // The former owner, still in the team, keeps Team; their own subscription is Free again.
      expect(await subscriptionOf(owner, app)).toMatchObject({ plan: 'team', current_period_end: null, own: { plan: 'free', current_period_end: null } });
    }
    expect(await teamOf(next)).toMatchObject({ role: 'owner', own_paid_plan: null, team: { plan_status: 'active' } });
    expect(await teamOf(owner)).toMatchObject({ role: 'admin', own_paid_plan: null });

    // The new owner changes the team's plan exactly as the owner could: Team is theirs already, a
    // cheaper plan opens the billing page, which schedules the change.
    expect((await checkout(next, 'team', second.current)).json().error.code).toBe('already_on_plan');
    const manage = await checkout(next, 'free', second.current);
    expect(manage.statusCode).toBe(200);
    expect((await submit(manage.json().checkout_url, { change: 'free' })).statusCode).toBe(200);
    expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team' });
    expect(await subscriptionOf(next)).toMatchObject({ plan: 'team', cancel_at_period_end: true, scheduled_plan: 'free' });
    expect((await teamOf(owner)).team.plan_status).toBe('ending');
    // ... and the log names who did it.
    expect((await planChanges(owner))[0]).toMatchObject({ actor: { user_id: next.user.id, name: 'Ben Next' }, target: { detail: 'active → ending' } });

    // The former owner's plan changes act on their own subscription only.
    expect((await checkout(owner, 'free')).json().error.code).toBe('already_on_plan');
    expect((await checkout(owner, 'team')).json().error).toMatchObject({ code: 'already_in_team', message: alreadyInTeamToPay().message });
    await payFor(ctx, owner, 'professional');
    expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team', own: { plan: 'professional', status: 'active' } });
    expect(await subscriptionOf(next)).toMatchObject({ plan: 'team', cancel_at_period_end: true, scheduled_plan: 'free' });
    expect((await planChanges(owner)).length).toBe(1);
  });

  it('mails both that the card on file was added by the former owner and that the new owner can replace it', async () => {
    const { owner, next } = await teamWithAdmin('Cora Payer', 'Dan Heir');
    expect((await transfer(owner, next)).statusCode).toBe(204);
    const toNew = await ctx.mail.latestTo(next.account.email, 'ownership_transferred');
    const toFormer = await ctx.mail.latestTo(owner.account.email, 'ownership_transferred');
    expect(toNew.subject).toBe('You now own a team on SheetMind');
    expect(toFormer.subject).toBe('You handed over your team on SheetMind');
    expect(toNew.text).toContain('The card on file for the team\'s subscription was added by the former owner, Cora Payer');
    expect(toNew.text).toContain('You can replace it with your own on the billing page.');
    expect(toFormer.text).toContain('was added by you, the former owner');
    expect(toFormer.text).toContain('Dan Heir, the new owner, can replace it on the billing page.');
    for (const mail of [toNew, toFormer]) expect(mail.text).toContain(`${ctx.config.publicUrl}/subscription`);
  });

  it('lets a former owner leave like any admin; a billing page they opened as owner no longer changes the team', async () => {
    const { owner, next } = await teamWithAdmin();
    const member = await register(ctx.app);
    await join(ctx, owner, member);
    const staleManage = (await checkout(owner, 'free')).json().checkout_url as string;
    expect((await transfer(owner, next)).statusCode).toBe(204);

    const refused = await submit(staleManage, { change: 'free' }, second.current);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('There is no paid subscription to change.');
    expect((await call('DELETE', `/teams/me/members/${owner.user.id}`, owner, undefined, second.current)).statusCode).toBe(204);
    expect((await checkout(owner, 'free')).json().error.code).toBe('already_on_plan');
    expect(await subscriptionOf(owner)).toMatchObject({ plan: 'free', current_period_end: null });

    // Nothing of the team's changed: its subscription runs, the member keeps Team, through a renewal.
    const periodEnd = Date.parse((await subscriptionOf(next)).current_period_end);
    ctx.clock.time = periodEnd + 1000;
    for (const who of [next, member]) await signIn(ctx, who);
    expect((await teamOf(next)).team.plan_status).toBe('active');
    expect(await subscriptionOf(member)).toMatchObject({ plan: 'team' });
    expect(Date.parse((await subscriptionOf(next)).current_period_end)).toBeGreaterThan(periodEnd);
  });

  it('records every plan change with its actor: the person who paid or changed it, or the payment provider', async () => {
    const owner = await teamOwner(ctx, { full_name: 'Eve Actor' });
    const manage = (await checkout(owner, 'free')).json().checkout_url as string;
    expect((await submit(manage, { change: 'free' })).statusCode).toBe(200);
    ctx.clock.time = Date.parse((await subscriptionOf(owner)).current_period_end) + 1000;
    await signIn(ctx, owner);
    expect((await subscriptionOf(owner)).plan).toBe('free');
    const events = await planChanges(owner);
    expect(events.map((event) => [event.actor, event.target.detail])).toEqual([
      [{ user_id: null, name: 'Test-mode payment provider' }, 'ending → ended'],
      [{ user_id: owner.user.id, name: 'Eve Actor' }, 'active → ending'],
    ]);
  });

  it('refuses a transfer to a member who pays for their own plan, changing nothing, and allows it once that plan has ended', async () => {
    const owner = await teamOwner(ctx);
    const pro = await register(ctx.app, { full_name: 'Pat Pro' });
    await payFor(ctx, pro, 'professional');
    await join(ctx, owner, pro, 'admin');
    const [teamBefore, proBefore] = [await subscriptionOf(owner), (await subscriptionOf(pro)).own];

    const refused = await transfer(owner, pro);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'new_owner_has_subscription', field: 'user_id' });
    expect(refused.json().error.message).toContain('Pat Pro pays for their own Professional plan');
    expect(await teamOf(owner)).toMatchObject({ role: 'owner' });
    expect(await subscriptionOf(owner)).toEqual(teamBefore);
    expect((await subscriptionOf(pro)).own).toEqual(proBefore);

    // They cancel their own plan: it runs to its end, and the refusal says when that is.
    const manage = (await checkout(pro, 'free')).json().checkout_url as string;
    expect((await submit(manage, { change: 'free' })).statusCode).toBe(200);
    expect((await transfer(owner, pro)).json().error.message).toContain(`It ends on ${proBefore.current_period_end.slice(0, 10)}`);

    ctx.clock.time = Date.parse(proBefore.current_period_end) + 1000;
    for (const who of [owner, pro]) await signIn(ctx, who);
    expect((await transfer(owner, pro)).statusCode).toBe(204);
    expect(await subscriptionOf(pro)).toMatchObject({ plan: 'team', status: 'active' });
    expect((await subscriptionOf(pro)).own).toBeUndefined();
    expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
    // One subscription row per account, the team's among them once.
    const stored = await rows([owner.user.id, pro.user.id]);
    expect(stored.map((row) => [row.user_id, row.plan, row.status])).toEqual([[pro.user.id, 'team', 'active']]);
  });

  it('applies a transfer and the former owner’s plan change made at once, in one order or the other, for each of four teams', async () => {
    const teams = await Promise.all(Array.from({ length: 4 }, () => teamWithAdmin()));
    // Billing pages opened while the owner was still the owner.
    const links = await Promise.all(teams.map(async ({ owner }) => (await checkout(owner, 'free')).json().checkout_url as string));
    const answers = await Promise.all(
      teams.flatMap(({ owner, next }, i) => [transfer(owner, next, i % 2 ? ctx.app : second.current), submit(links[i]!, { change: 'free' }, i % 2 ? second.current : ctx.app)]),
    );
    for (const [i, { owner, next }] of teams.entries()) {
      const [moved, scheduled] = [answers[2 * i]!, answers[2 * i + 1]!];
      expect(moved.statusCode).toBe(204);
      expect([200, 409]).toContain(scheduled.statusCode);
      // The change applied only if it came first, and then moved with the subscription.
      const ending = scheduled.statusCode === 200;
      expect(await subscriptionOf(next)).toMatchObject({ plan: 'team', cancel_at_period_end: ending });
      expect((await teamOf(next)).team.plan_status).toBe(ending ? 'ending' : 'active');
      expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
      expect((await rows([owner.user.id, next.user.id])).map((row) => row.user_id)).toEqual([next.user.id]);
    }
  });

  describe('a Team checkout begun before its payer joined a team (finding 10)', () => {
    it('cannot be paid once they are a member: the page refuses with the words of the 409, and no team is made', async () => {
      const owner = await teamOwner(ctx);
      const payer = await register(ctx.app);
      const started = (await checkout(payer, 'team')).json().checkout_url as string;
      await join(ctx, owner, payer);

      const link = new URL(started);
      const page = await second.current.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(page.statusCode).toBe(409);
      expect(page.body).toContain(alreadyInTeamToPay().message);
      const paid = await submit(started, card, second.current);
      expect(paid.statusCode).toBe(409);
      expect(paid.body).toContain('Leave the team first to pay for a team of your own.');
      expect(await subscriptionOf(payer)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
      expect(await teamOf(payer)).toMatchObject({ role: 'member', team: { id: (await teamOf(owner)).team.id } });
      expect(await rows([payer.user.id])).toEqual([]);
    });

    it('with the payment and the join at once, on two instances, applies one and refuses the other', async () => {
      const owners = await Promise.all(Array.from({ length: 4 }, () => teamOwner(ctx)));
      const payers = await Promise.all(owners.map(() => register(ctx.app)));
      const started = await Promise.all(payers.map(async (payer) => (await checkout(payer, 'team')).json().checkout_url as string));
      for (const [i, owner] of owners.entries()) {
        expect((await call('POST', '/teams/me/invitations', owner, { email: payers[i]!.account.email, role: 'member' })).statusCode).toBe(201);
      }
      const tokens = await Promise.all(payers.map((payer) => invitationToken(ctx, payer.account.email)));
      const answers = await Promise.all(
        payers.flatMap((payer, i) => [submit(started[i]!, card, i % 2 ? second.current : ctx.app), call('POST', `/invitations/${tokens[i]}/accept`, payer, {}, i % 2 ? ctx.app : second.current)]),
      );
      for (const [i, payer] of payers.entries()) {
        const [paid, accepted] = [answers[2 * i]!, answers[2 * i + 1]!];
        const mine = await teamOf(payer);
        if (paid.statusCode === 303) {
          // Paid first: their own team, and the invitation is refused.
          expect(accepted.statusCode).toBe(409);
          expect(mine).toMatchObject({ role: 'owner', team: { plan_status: 'active' } });
        } else {
          expect(paid.statusCode).toBe(409);
          expect(accepted.statusCode).toBe(200);
          expect(mine).toMatchObject({ role: 'member', team: { id: (await teamOf(owners[i]!)).team.id } });
          expect(await rows([payer.user.id])).toEqual([]);
        }
      }
    });
  });
});
