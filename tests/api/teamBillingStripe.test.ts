// Issue 33 with Stripe: the team's Stripe subscription and customer follow ownership, whatever the
// metadata of the original checkout says, and a Team checkout paid by a member of another team is
// refused. Events signed as Stripe signs them, on both engines, two instances on one database.
import { PRICES, stripeWebhooks, useStripeTestApp } from '../helpers/stripeEvents';
import { invitationToken, join, type Account } from '../helpers/teams';
import { ENGINES, bearer, post, register, useSecondInstance } from '../helpers/testApp';

jest.setTimeout(30_000);

describe.each(ENGINES)("the team's Stripe billing on %s", (engine) => {
  const { ctx, fake } = useStripeTestApp(engine);
  const second = useSecondInstance(ctx);
  const { stripeSubscription, stripeEvent, deliver } = stripeWebhooks(ctx);

  const call = (method: 'GET' | 'POST', url: string, who: Account, payload?: object, app = ctx.app) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token), ...(payload ? { payload } : {}) });
  const subscriptionOf = async (who: Account) => (await call('GET', '/subscription/me', who)).json();
  const teamOf = async (who: Account) => (await call('GET', '/teams/me', who)).json();
  const holders = (subscriptionId: string) =>
    ctx.app.database.db.selectFrom('subscriptions').select('user_id').where('provider_subscription_id', '=', subscriptionId).execute();

  /** What Stripe sends when `payer`'s Team checkout is paid: the session names them, and so does the subscription's metadata. */
  const teamCheckoutPaid = (payer: Account, id: string) => {
    const subscription = stripeSubscription({ id, userId: payer.user.id, price: PRICES.team, customer: `cus_${id}` });
    fake.subscriptions.set(id, subscription);
    const session = { id: `cs_${id}`, object: 'checkout.session', mode: 'subscription', payment_status: 'paid', client_reference_id: payer.user.id, customer: `cus_${id}`, subscription: id };
    return { subscription, completed: stripeEvent('checkout.session.completed', session) };
  };

  async function stripeTeam(id: string) {
    const owner = await register(ctx.app, { full_name: 'Ola Owner' });
    const next = await register(ctx.app, { full_name: 'Nia Next' });
    const { subscription, completed } = teamCheckoutPaid(owner, id);
    expect((await deliver(completed)).json()).toEqual({ received: true, outcome: 'applied' });
    await join(ctx, owner, next, 'admin');
    return { owner, next, subscription };
  }

  it("after a transfer applies the team's events to the new owner and opens the billing portal on the team's customer for them", async () => {
    const { owner, next, subscription } = await stripeTeam('sub_team_moves');
    expect((await call('POST', '/teams/me/transfer', owner, { user_id: next.user.id }, second.current)).statusCode).toBe(204);

    // Stripe still names the original payer in the subscription's metadata; the subscription is the new owner's now.
    const cancelling = { ...subscription, cancel_at_period_end: true };
    expect((await deliver(stripeEvent('customer.subscription.updated', cancelling), { app: second.current })).json().outcome).toBe('applied');
    expect(await subscriptionOf(next)).toMatchObject({ plan: 'team', cancel_at_period_end: true, scheduled_plan: 'free' });
    expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
    expect((await teamOf(next)).team.plan_status).toBe('ending');
    expect(await holders('sub_team_moves')).toEqual([{ user_id: next.user.id }]);
    const log = (await call('GET', '/teams/me/audit-log', next)).json().events;
    expect(log.find((event: { action: string }) => event.action === 'team.plan_changed')).toMatchObject({
      actor: { user_id: null, name: 'Stripe (payment provider)' },
      target: { detail: 'active → ending' },
    });

    // The new owner manages it: the portal opens on the team's customer and subscription.
    expect((await call('POST', '/subscription/checkout', next, { plan: 'professional' })).statusCode).toBe(200);
    expect(Object.fromEntries(fake.callsTo('POST', '/v1/billing_portal/sessions').at(-1)!.form)).toMatchObject({
      customer: 'cus_sub_team_moves',
      'flow_data[subscription_update_confirm][subscription]': 'sub_team_moves',
    });
    // The former owner's upgrade is a checkout of their own, on no customer of the team's.
    expect((await call('POST', '/subscription/checkout', owner, { plan: 'professional' })).statusCode).toBe(200);
    const form = Object.fromEntries(fake.callsTo('POST', '/v1/checkout/sessions').at(-1)!.form);
    expect(form).toMatchObject({ client_reference_id: owner.user.id, customer_email: owner.account.email });
    expect(form.customer).toBeUndefined();
  });

  it("applies a Stripe event and a transfer made at once to the team's subscription, in one order or the other, for each of four teams", async () => {
    const teams = await Promise.all(['a', 'b', 'c', 'd'].map((tag) => stripeTeam(`sub_race_${tag}`)));
    const answers = await Promise.all(
      teams.flatMap(({ owner, next, subscription }, i) => [
        call('POST', '/teams/me/transfer', owner, { user_id: next.user.id }, i % 2 ? ctx.app : second.current),
        deliver(stripeEvent('customer.subscription.updated', { ...subscription, cancel_at_period_end: true }), { app: i % 2 ? second.current : ctx.app }),
      ]),
    );
    for (const [i, { owner, next, subscription }] of teams.entries()) {
      expect(answers[2 * i]!.statusCode).toBe(204);
      expect(answers[2 * i + 1]!.json()).toEqual({ received: true, outcome: 'applied' });
      expect(await holders(subscription.id)).toEqual([{ user_id: next.user.id }]);
      expect(await subscriptionOf(next)).toMatchObject({ plan: 'team', cancel_at_period_end: true });
      expect(await subscriptionOf(owner)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
    }
  });

  it('refuses a Team checkout completed after its payer joined a team, logs it to be refunded, and makes no team', async () => {
    const owner = await register(ctx.app);
    expect((await deliver(teamCheckoutPaid(owner, 'sub_first_team').completed)).json().outcome).toBe('applied');
    const payer = await register(ctx.app);
    // The payer opened Stripe Checkout for Team, then joined the team, then paid.
    expect((await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'team' }, bearer(payer.access_token))).statusCode).toBe(200);
    await join(ctx, owner, payer);
    const res = await deliver(teamCheckoutPaid(payer, 'sub_late_team').completed);
    expect(res.json()).toEqual({ received: true, outcome: 'refused' });
    expect(await holders('sub_late_team')).toEqual([]);
    expect(await subscriptionOf(payer)).toMatchObject({ plan: 'team', own: { plan: 'free' } });
    expect(await teamOf(payer)).toMatchObject({ role: 'member', team: { id: (await teamOf(owner)).team.id } });
    expect(ctx.logs()).toContain('"event":"billing.team_checkout_in_team"');
    // Its later events change nothing either: the subscription is nobody's.
    const later = stripeSubscription({ id: 'sub_late_team', userId: payer.user.id, price: PRICES.team, customer: 'cus_sub_late_team' });
    expect((await deliver(stripeEvent('customer.subscription.updated', later))).json().outcome).toBe('refused');
    expect(await holders('sub_late_team')).toEqual([]);
  });

  it('refuses it too when the payment and the join arrive at once', async () => {
    const owner = await register(ctx.app);
    expect((await deliver(teamCheckoutPaid(owner, 'sub_host_team').completed)).json().outcome).toBe('applied');
    const payers = await Promise.all([1, 2, 3, 4].map(() => register(ctx.app)));
    for (const payer of payers) {
      expect((await call('POST', '/teams/me/invitations', owner, { email: payer.account.email, role: 'member' })).statusCode).toBe(201);
    }
    const tokens = await Promise.all(payers.map((payer) => invitationToken(ctx, payer.account.email)));
    const answers = await Promise.all(
      payers.flatMap((payer, i) => [
        deliver(teamCheckoutPaid(payer, `sub_at_once_${i}`).completed, { app: i % 2 ? second.current : ctx.app }),
        call('POST', `/invitations/${tokens[i]}/accept`, payer, {}, i % 2 ? ctx.app : second.current),
      ]),
    );
    for (const [i, payer] of payers.entries()) {
      const [paid, accepted] = [answers[2 * i]!, answers[2 * i + 1]!];
      const mine = await teamOf(payer);
      if (paid.json().outcome === 'applied') {
        expect(accepted.statusCode).toBe(409);
        expect(mine).toMatchObject({ role: 'owner', team: { plan_status: 'active' } });
      } else {
        expect(paid.json().outcome).toBe('refused');
        expect(accepted.statusCode).toBe(200);
        expect(mine).toMatchObject({ role: 'member' });
        expect(await holders(`sub_at_once_${i}`)).toEqual([]);
      }
    }
  });
});
