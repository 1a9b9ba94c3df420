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
      timeoutMs: 10_000,
    });
  });
});

describe.each(ENGINES)('billing with Stripe on %s', (engine) => {
  // A short budget, so the test of a Stripe that never answers takes 2 s rather than 10.
  const { ctx, fake } = useStripeTestApp(engine, { STRIPE_TIMEOUT_MS: '2000' });

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
      expect((await effectivePlan(ctx.app.database.db, user.user.id, ctx.clock.now())).limits.monthly_queries).toBe(1000);
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

    it('answers 500 within the time budget when the subscription cannot be fetched, records nothing, and applies the redelivery', async () => {
      const user = await register(ctx.app);
      fake.subscriptions.set('sub_slow', stripeSubscription({ id: 'sub_slow', customer: 'cus_slow' }));
      const session = { id: 'cs_slow', object: 'checkout.session', mode: 'subscription', payment_status: 'paid', client_reference_id: user.user.id, customer: 'cus_slow', subscription: 'sub_slow' };
      const event = stripeEvent('checkout.session.completed', session);
      fake.hang = true;
      try {
        const started = Date.now();
        expect((await deliver(event)).statusCode).toBe(500);
        expect(Date.now() - started).toBeLessThan(6000);
        expect(await eventRows(event.id)).toEqual([]);
      } finally {
        fake.release();
      }
      expect((await deliver(event)).json().outcome).toBe('applied');
      expect((await me(user.access_token)).plan).toBe('professional');
    });

    it('answers 200 to an event type it does not handle, and records nothing', async () => {
      const event = stripeEvent('customer.created', { id: 'cus_new', object: 'customer' });
      const res = await deliver(event);
      expect(res.json()).toEqual({ received: true, outcome: 'ignored' });
      expect(await eventRows(event.id)).toEqual([]);
    });
  });

  describe('events of Stripe API versions before 2025-03-31', () => {
    const LEGACY_VERSION = '2024-06-20';
    /** The same subscription as an endpoint of an older version receives it: the period on the subscription, none on its items. */
    const legacySubscription = (fields: Parameters<typeof stripeSubscription>[0]) => {
      const current = stripeSubscription(fields);
      const [{ current_period_start: start, current_period_end: end, ...item }] = current.items.data as [(typeof current.items.data)[number]];
      return { ...current, current_period_start: start, current_period_end: end, items: { ...current.items, data: [item] } };
    };
    const legacyEvent = (type: string, object: object, created = nowS()) => ({ ...stripeEvent(type, object, created), api_version: LEGACY_VERSION });
    const stored = async (userId: string) => ctx.app.database.db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();

    it('reads the period from the subscription, in order and out of order, mixed with events of the current shape', async () => {
      const user = await register(ctx.app);
      const t0 = nowS();
      const base = { id: 'sub_legacy', userId: user.user.id, start: t0, customer: 'cus_legacy' };
      // The newer event (a renewal, in the current shape) arrives first; the older creation after it is stale.
      const renewed = { ...base, start: t0 + 30 * DAY, price: PRICES.team };
      expect((await deliver(legacyEvent('customer.subscription.updated', legacySubscription(renewed), t0 + 30 * DAY))).json().outcome).toBe('applied');
      expect((await deliver(legacyEvent('customer.subscription.created', legacySubscription(base), t0))).json().outcome).toBe('stale');
      expect(await me(user.access_token)).toMatchObject({
        plan: 'team',
        status: 'active',
        current_period_end: new Date((t0 + 60 * DAY) * 1000).toISOString(),
      });
      expect(await stored(user.user.id)).toMatchObject({ current_period_start: (t0 + 30 * DAY) * 1000, current_period_end: (t0 + 60 * DAY) * 1000 });
      // A current-shape event after the old one reads the same way.
      const cancelling = stripeSubscription({ ...renewed, cancelAtPeriodEnd: true });
      expect((await deliver(stripeEvent('customer.subscription.updated', cancelling, t0 + 31 * DAY))).json().outcome).toBe('applied');
      expect(await me(user.access_token)).toMatchObject({ plan: 'team', cancel_at_period_end: true, current_period_end: new Date((t0 + 60 * DAY) * 1000).toISOString() });
    });

    it('finds the subscription of an invoice at invoice.subscription: past_due on payment_failed, active on paid', async () => {
      const user = await register(ctx.app);
      const t0 = nowS();
      const base = { id: 'sub_legacy_dunning', userId: user.user.id, start: t0, customer: 'cus_legacy_dunning' };
      await deliver(legacyEvent('customer.subscription.created', legacySubscription(base), t0));
      const invoice = (id: string, subscription: string | object) => ({ id, object: 'invoice', subscription });
      expect((await deliver(legacyEvent('invoice.payment_failed', invoice('in_legacy', 'sub_legacy_dunning'), t0 + 30 * DAY))).json().outcome).toBe('applied');
      expect(await me(user.access_token)).toMatchObject({ plan: 'professional', status: 'past_due' });
      // Expanded in the event, in the old shape: no call to Stripe needed.
      const paid = invoice('in_legacy', legacySubscription({ ...base, start: t0 + 30 * DAY }));
      // Counted for this subscription and customer only: work another test left running (a checkout's
      // own calls) may reach the fake Stripe meanwhile.
      const asked = () => fake.requests.filter((r) => /sub_legacy_dunning|cus_legacy_dunning|in_legacy/.test(r.path)).length;
      const before = asked();
      expect((await deliver(legacyEvent('invoice.paid', paid, t0 + 31 * DAY))).json().outcome).toBe('applied');
      expect(asked()).toBe(before);
      expect(await me(user.access_token)).toMatchObject({ status: 'active', current_period_end: new Date((t0 + 60 * DAY) * 1000).toISOString() });
    });

    it('refuses with 400 an event whose period is in neither shape, logs its version, and stores nothing', async () => {
      const user = await register(ctx.app);
      const { current_period_start: _start, current_period_end: _end, ...periodless } = legacySubscription({ id: 'sub_unreadable', userId: user.user.id });
      const event = { ...legacyEvent('customer.subscription.updated', periodless), api_version: '2019-02-19' };
      const res = await deliver(event);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('unreadable_event');
      expect(ctx.logs()).toMatch(new RegExp(`"level":50.*Stripe event ${event.id} of API version 2019-02-19 could not be read`));
      expect(await eventRows(event.id)).toEqual([]);
      expect(await stored(user.user.id)).toBeUndefined();
      expect((await me(user.access_token)).plan).toBe('free');
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

    it('answers 503 within the time budget when Stripe connects and never answers, and 502 when Stripe refuses the call', async () => {
      const user = await register(ctx.app);
      fake.hang = true;
      try {
        const started = Date.now();
        const res = await checkout(user.access_token, 'professional');
        expect(res.statusCode).toBe(503);
        expect(res.json().error.code).toBe('payment_provider_unavailable');
        expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
        expect(Date.now() - started).toBeLessThan(6000);
      } finally {
        fake.release();
      }
      fake.refuse = true;
      try {
        const res = await checkout(user.access_token, 'professional');
        expect(res.statusCode).toBe(502);
        expect(res.json().error).toEqual({ code: 'payment_provider_error', message: expect.stringMatching(/refused/) });
        expect(ctx.logs()).toMatch(/Stripe refused a call/);
      } finally {
        fake.refuse = false;
      }
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
