// Over 300 lines: the Stripe provider's whole contract in one file (configuration, webhook signatures,
// every event it handles, checkout), run on both engines against one fake Stripe (tests/helpers/fakeStripe.ts).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../server/config';
import { effectivePlan } from '../../server/domain/subscriptions';
import { freeSubscription } from '../helpers/fixtures';
import { DAY, PRICES, SECRET, STRIPE_ENV, stripeWebhooks, useStripeTestApp } from '../helpers/stripeEvents';
import { ENGINES, bearer, post, register } from '../helpers/testApp';

describe('Stripe configuration', () => {
  it.each([
    [{ PAYMENT_PROVIDER: 'paypal' }, 'PAYMENT_PROVIDER'],
    [{ ...STRIPE_ENV, STRIPE_SECRET_KEY: '' }, 'STRIPE_SECRET_KEY'],
    [{ ...STRIPE_ENV, STRIPE_SECRET_KEY: 'pk_test_public' }, 'STRIPE_SECRET_KEY'],
    [{ ...STRIPE_ENV, STRIPE_WEBHOOK_SECRET: 'secret' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ ...STRIPE_ENV, STRIPE_PRICE_TEAM: '' }, 'STRIPE_PRICE_TEAM'],
    [{ ...STRIPE_ENV, STRIPE_PRICE_TEAM: PRICES.professional }, 'STRIPE_PRICE_TEAM'],
    [{ ...STRIPE_ENV, STRIPE_PRICE_PROFESSIONAL: 'prod_123' }, 'STRIPE_PRICE_PROFESSIONAL'],
    [{ ...STRIPE_ENV, STRIPE_API_BASE: 'ftp://stripe' }, 'STRIPE_API_BASE'],
  ])('rejects %p naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('defaults to the offline test provider', () => {
    expect(loadConfig({}).billing).toEqual({ provider: 'test' });
    expect(loadConfig(STRIPE_ENV).billing).toEqual({
      provider: 'stripe',
      secretKey: 'sk_test_fake',
      webhookSecret: SECRET,
      prices: PRICES,
      apiBase: null,
    });
  });
});

describe.each(ENGINES)('billing with Stripe on %s', (engine) => {
  const { ctx, fake } = useStripeTestApp(engine);

  const { nowS, stripeSubscription, stripeEvent, deliver } = stripeWebhooks(ctx);
  const me = async (token: string) => (await ctx.app.inject({ method: 'GET', url: '/api/v1/subscription/me', headers: bearer(token) })).json();

  const eventRows = (id: string) => ctx.app.database.db.selectFrom('billing_events').selectAll().where('id', '=', id).execute();

  describe('webhook signature', () => {
    it('accepts a validly signed event (200) and applies it: the plan and its limits change at once', async () => {
      const user = await register(ctx.app);
      const created = stripeEvent('customer.subscription.created', stripeSubscription({ id: 'sub_valid', userId: user.user.id }));
      const res = await deliver(created);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true, outcome: 'applied' });
      expect(await me(user.access_token)).toMatchObject({
        plan: 'professional',
        status: 'active',
        current_period_end: new Date((nowS() + 30 * DAY) * 1000).toISOString(),
        usage_limits: { monthly_queries: 1000, daily_tokens: 50_000 },
      });
      expect((await effectivePlan(ctx.app.database.db, user.user.id, ctx.clock.now())).limits.monthlyQueries).toBe(1000);
      const profile = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(user.access_token) });
      expect(profile.json().subscription_plan).toBe('professional');
    });

    it.each([
      ['a signature made with another secret', { secret: 'whsec_someone_else' }, 'invalid_signature'],
      ['no Stripe-Signature header', { signature: null }, 'missing_signature'],
      ['a garbled header', { signature: 't=1,v1=nothex' }, 'invalid_signature'],
      ['a timestamp older than 300 s', { timestamp: -301 }, 'invalid_signature'],
      ['a re-serialised body', { body: (signed: string) => JSON.stringify(JSON.parse(signed)) }, 'invalid_signature'],
      ['a body changed after signing', { body: (signed: string) => signed.replace('"active"', '"trialing"') }, 'invalid_signature'],
    ])('answers 400 for %s and changes nothing', async (_what, options, code) => {
      const user = await register(ctx.app);
      const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: `sub_${crypto.randomUUID()}`, userId: user.user.id }));
      const timestamp = 'timestamp' in options ? nowS() + options.timestamp : undefined;
      const res = await deliver(event, { ...options, ...(timestamp !== undefined ? { timestamp } : {}) });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe(code);
      expect((await me(user.access_token)).plan).toBe('free');
      expect(await eventRows(event.id)).toEqual([]);
    });

    it('accepts a timestamp just inside the 300 s tolerance', async () => {
      const user = await register(ctx.app);
      const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: 'sub_tolerance', userId: user.user.id }));
      expect((await deliver(event, { timestamp: nowS() - 299 })).statusCode).toBe(200);
    });
  });

  describe('event handling', () => {
    it('applies the same event delivered 5 times at once exactly once', async () => {
      const user = await register(ctx.app);
      const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: 'sub_five', userId: user.user.id, price: PRICES.team }));
      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.map((a) => a.json().outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
      expect(await eventRows(event.id)).toEqual([expect.objectContaining({ outcome: 'applied', user_id: user.user.id })]);
      expect((await me(user.access_token)).plan).toBe('team');
    });

    it('keeps a cancelled subscription free when an older subscription.updated arrives after subscription.deleted', async () => {
      const user = await register(ctx.app);
      const t0 = nowS();
      const base = { id: 'sub_order', userId: user.user.id, start: t0 };
      expect((await deliver(stripeEvent('customer.subscription.created', stripeSubscription(base), t0))).json().outcome).toBe('applied');
      expect((await deliver(stripeEvent('customer.subscription.deleted', stripeSubscription({ ...base, status: 'canceled' }), t0 + 20))).json().outcome).toBe('applied');
      const late = await deliver(stripeEvent('customer.subscription.updated', stripeSubscription({ ...base, price: PRICES.team }), t0 + 10));
      expect(late.statusCode).toBe(200);
      expect(late.json().outcome).toBe('stale');
      expect(await me(user.access_token)).toEqual(freeSubscription);
    });

    it('never revives a cancelled subscription, even with an event of the same second', async () => {
      const user = await register(ctx.app);
      const t0 = nowS();
      const base = { id: 'sub_tie', userId: user.user.id, start: t0 };
      await deliver(stripeEvent('customer.subscription.deleted', stripeSubscription({ ...base, status: 'canceled' }), t0));
      expect((await deliver(stripeEvent('customer.subscription.updated', stripeSubscription(base), t0))).json().outcome).toBe('stale');
      expect((await me(user.access_token)).plan).toBe('free');
    });

    it('answers 5xx when the database fails, records nothing, and applies the redelivery once', async () => {
      const user = await register(ctx.app);
      const { db } = ctx.app.database;
      const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: 'sub_dbfail', userId: user.user.id, price: PRICES.team }));
      // The subscription write fails after the event row was written in the same transaction.
      if (engine === 'sqlite') {
        await sql`create trigger fail_subscriptions before insert on subscriptions begin select raise(abort, 'injected failure'); end`.execute(db);
      } else {
        await sql`create function fail_subscriptions() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(db);
        await sql`create trigger fail_subscriptions before insert or update on subscriptions for each row execute function fail_subscriptions()`.execute(db);
      }
      try {
        const failed = await deliver(event);
        expect(failed.statusCode).toBe(500);
        expect(failed.json().error.code).toBe('internal_error');
        expect(failed.body).not.toContain('injected');
        expect(await eventRows(event.id)).toEqual([]);
        expect((await me(user.access_token)).plan).toBe('free');
      } finally {
        await sql`drop trigger fail_subscriptions${engine === 'postgres' ? sql` on subscriptions` : sql``}`.execute(db);
        if (engine === 'postgres') await sql`drop function fail_subscriptions()`.execute(db);
      }
      const redelivered = await deliver(event);
      expect(redelivered.json()).toEqual({ received: true, outcome: 'applied' });
      expect((await deliver(event)).json().outcome).toBe('duplicate');
      expect(await eventRows(event.id)).toHaveLength(1);
      expect((await me(user.access_token)).plan).toBe('team');
    });

    it('on checkout.session.completed reads the subscription from Stripe and gives the plan to the client_reference_id user', async () => {
      const user = await register(ctx.app);
      fake.subscriptions.set('sub_checkout', stripeSubscription({ id: 'sub_checkout', price: PRICES.team, customer: 'cus_checkout' }));
      const session = { id: 'cs_done', object: 'checkout.session', mode: 'subscription', payment_status: 'paid', client_reference_id: user.user.id, customer: 'cus_checkout', subscription: 'sub_checkout' };
      expect((await deliver(stripeEvent('checkout.session.completed', session))).json().outcome).toBe('applied');
      expect(fake.callsTo('GET', '/v1/subscriptions/sub_checkout')).toHaveLength(1);
      expect(fake.callsTo('GET', '/v1/subscriptions/sub_checkout')[0]!.headers.authorization).toBe('Bearer sk_test_fake');
      expect((await me(user.access_token)).plan).toBe('team');
    });

    it('ignores an unpaid checkout session and a price that is not ours', async () => {
      const user = await register(ctx.app);
      const unpaid = { id: 'cs_unpaid', object: 'checkout.session', mode: 'subscription', payment_status: 'unpaid', client_reference_id: user.user.id, customer: 'cus_x', subscription: 'sub_unpaid' };
      expect((await deliver(stripeEvent('checkout.session.completed', unpaid))).json().outcome).toBe('ignored');
      const foreign = stripeSubscription({ id: 'sub_foreign', userId: user.user.id, price: 'price_not_ours' });
      expect((await deliver(stripeEvent('customer.subscription.created', foreign))).json().outcome).toBe('ignored');
      expect((await me(user.access_token)).plan).toBe('free');
    });

    it('marks the subscription past_due on invoice.payment_failed, and active again on invoice.paid with the new period', async () => {
      const user = await register(ctx.app);
      const t0 = nowS();
      const base = { id: 'sub_dunning', userId: user.user.id, start: t0, customer: 'cus_dunning' };
      await deliver(stripeEvent('customer.subscription.created', stripeSubscription(base), t0));
      const invoice = (id: string) => ({ id, object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_dunning' } } });
      expect((await deliver(stripeEvent('invoice.payment_failed', invoice('in_1'), t0 + 30 * DAY))).json().outcome).toBe('applied');
      expect(await me(user.access_token)).toMatchObject({ plan: 'professional', status: 'past_due' });

      const renewed = stripeSubscription({ ...base, start: t0 + 30 * DAY });
      fake.subscriptions.set('sub_dunning', renewed);
      expect((await deliver(stripeEvent('invoice.paid', invoice('in_1'), t0 + 31 * DAY))).json().outcome).toBe('applied');
      expect(await me(user.access_token)).toMatchObject({
        plan: 'professional',
        status: 'active',
        current_period_end: new Date((t0 + 60 * DAY) * 1000).toISOString(),
      });
    });

    it('schedules the end at the period end when Stripe says cancel_at_period_end, finding the user by the subscription id', async () => {
      const user = await register(ctx.app);
      const base = { id: 'sub_cancelling', userId: user.user.id, customer: 'cus_cancelling' };
      await deliver(stripeEvent('customer.subscription.created', stripeSubscription(base)));
      // No metadata: the portal's own update carries only Stripe's ids.
      const { metadata: _none, ...withoutUser } = stripeSubscription({ ...base, cancelAtPeriodEnd: true, userId: undefined, id: 'sub_cancelling' });
      const res = await deliver(stripeEvent('customer.subscription.updated', { ...withoutUser, metadata: {} }, nowS() + 1));
      expect(res.json().outcome).toBe('applied');
      expect(await me(user.access_token)).toMatchObject({ plan: 'professional', cancel_at_period_end: true, scheduled_plan: 'free' });
    });

    it('answers 200 to an event type it does not handle, and records nothing', async () => {
      const event = stripeEvent('customer.created', { id: 'cus_new', object: 'customer' });
      const res = await deliver(event);
      expect(res.json()).toEqual({ received: true, outcome: 'ignored' });
      expect(await eventRows(event.id)).toEqual([]);
    });
  });

  describe('POST /subscription/checkout', () => {
    const checkout = (token: string, plan: string, headers: Record<string, string> = {}) =>
      post(ctx.app, '/api/v1/subscription/checkout', { plan }, { ...bearer(token), ...headers });

    it('opens a Stripe Checkout Session for an upgrade: our price, client_reference_id, return URLs, Idempotency-Key', async () => {
      const user = await register(ctx.app);
      const res = await checkout(user.access_token, 'team', { 'idempotency-key': 'click-1' });
      expect(res.statusCode).toBe(200);
      expect(res.json().checkout_url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
      const call = fake.callsTo('POST', '/v1/checkout/sessions').at(-1)!;
      expect(Object.fromEntries(call.form)).toMatchObject({
        mode: 'subscription',
        'line_items[0][price]': PRICES.team,
        'line_items[0][quantity]': '1',
        client_reference_id: user.user.id,
        'subscription_data[metadata][user_id]': user.user.id,
        customer_email: user.account.email,
        success_url: `${ctx.config.publicUrl}/subscription?checkout=success`,
        cancel_url: `${ctx.config.publicUrl}/subscription?checkout=cancel`,
      });
      expect(call.headers['idempotency-key']).toBe(`${user.user.id}:team:click-1`);
      // Being sent to Stripe changes nothing until Stripe's event arrives.
      expect((await me(user.access_token)).plan).toBe('free');
    });

    it('sends a subscriber to the billing portal: cancel flow for Free, price-change flow for a cheaper plan', async () => {
      const user = await register(ctx.app);
      const live = stripeSubscription({ id: 'sub_portal', userId: user.user.id, price: PRICES.team, customer: 'cus_portal' });
      fake.subscriptions.set('sub_portal', live);
      await deliver(stripeEvent('customer.subscription.created', live));

      const toFree = await checkout(user.access_token, 'free');
      expect(toFree.statusCode).toBe(200);
      expect(toFree.json().checkout_url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\//);
      expect(Object.fromEntries(fake.callsTo('POST', '/v1/billing_portal/sessions').at(-1)!.form)).toMatchObject({
        customer: 'cus_portal',
        return_url: `${ctx.config.publicUrl}/subscription`,
        'flow_data[type]': 'subscription_cancel',
        'flow_data[subscription_cancel][subscription]': 'sub_portal',
      });

      expect((await checkout(user.access_token, 'professional')).statusCode).toBe(200);
      expect(Object.fromEntries(fake.callsTo('POST', '/v1/billing_portal/sessions').at(-1)!.form)).toMatchObject({
        'flow_data[type]': 'subscription_update_confirm',
        'flow_data[subscription_update_confirm][subscription]': 'sub_portal',
        'flow_data[subscription_update_confirm][items][0][id]': 'si_sub_portal',
        'flow_data[subscription_update_confirm][items][0][price]': PRICES.professional,
      });
      expect((await checkout(user.access_token, 'team')).json().error.code).toBe('already_on_plan');
      expect((await me(user.access_token)).plan).toBe('team');
    });

    it('answers 503 when Stripe cannot be reached', async () => {
      const user = await register(ctx.app);
      fake.down = true;
      try {
        const res = await checkout(user.access_token, 'professional');
        expect(res.statusCode).toBe(503);
        expect(res.json().error.code).toBe('payment_provider_unavailable');
      } finally {
        fake.down = false;
      }
    });
  });
});
