// Over 300 lines: the offline test-mode billing end to end (checkout call, the hosted checkout page and
// its card outcomes, the billing-management page, period ends), on both engines with one test app.
import { findPlan } from '../../contract/plans';
import { addMonth, CHECKOUT_TTL_MS, type TestProvider } from '../../server/billing/testMode';
import { pruneOnce } from '../../server/domain/retention';
import { effectivePlan } from '../../server/domain/subscriptions';
import { freeSubscription } from '../helpers/fixtures';
import { ENGINES, bearer, post, register, useTestApp } from '../helpers/testApp';

describe.each(ENGINES)('billing in test mode on %s', (engine) => {
  const ctx = useTestApp(engine);

  const subscription = async (token: string) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/subscription/me', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const userPlan = async (token: string) =>
    (await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })).json().subscription_plan;
  const checkout = (token: string, plan: string) => post(ctx.app, '/api/v1/subscription/checkout', { plan }, bearer(token));
  /** The path and query of a checkout_url, for inject. */
  const local = (absolute: string) => {
    const url = new URL(absolute);
    expect(url.origin).toBe(ctx.config.publicUrl);
    return `${url.pathname}${url.search}`;
  };
  const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;
  const submit = (path: string, fields: Record<string, string>) =>
    ctx.app.inject({
      method: 'POST',
      url: path,
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const pay = (pagePath: string, card: string, extra: Record<string, string> = {}) =>
    submit('/billing/test/checkout', { token: tokenOf(pagePath), card_number: card, expiry: '12/34', cvc: '123', action: 'pay', ...extra });
  /** One input of a page, as markup. */
  const inputOf = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
  const startCheckout = async (token: string, plan: string) => {
    const res = await checkout(token, plan);
    expect(res.statusCode).toBe(200);
    return local(res.json().checkout_url);
  };
  type Account = Awaited<ReturnType<typeof register>>;
  /** A fresh access token after the clock moved past its 15 minutes (and maybe the session's 30 days). */
  const signIn = async (user: Account) => {
    const res = await post(ctx.app, '/api/v1/auth/login/email', { email: user.account.email, password: user.account.password });
    user.access_token = res.json().access_token;
  };
  /** A new user who paid for `plan` through the test checkout page. */
  const subscriber = async (plan: 'professional' | 'team') => {
    const user = await register(ctx.app);
    const paid = await pay(await startCheckout(user.access_token, plan), '4242 4242 4242 4242');
    expect(paid.statusCode).toBe(303);
    return user;
  };

  describe('POST /subscription/checkout', () => {
    it('answers 400 naming the field for an unknown plan, 409 for the current plan, 401 without a token', async () => {
      const { access_token } = await register(ctx.app);
      const unknown = await checkout(access_token, 'platinum');
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error).toMatchObject({ code: 'invalid_plan', field: 'plan' });
      const current = await checkout(access_token, 'free');
      expect(current.statusCode).toBe(409);
      expect(current.json().error.code).toBe('already_on_plan');
      expect((await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'team' })).statusCode).toBe(401);
    });

    it('answers an absolute URL of the hosted checkout page for an upgrade', async () => {
      const { access_token } = await register(ctx.app);
      const res = await checkout(access_token, 'team');
      expect(res.json().checkout_url).toMatch(new RegExp(`^${ctx.config.publicUrl}/billing/test/checkout\\?token=[\\w-]{40,}$`));
    });
  });

  describe('hosted checkout page', () => {
    it('shows the plan, its price and a card form, with no script and its one style element under the CSP nonce', async () => {
      const user = await register(ctx.app);
      const page = await ctx.app.inject({ method: 'GET', url: await startCheckout(user.access_token, 'professional') });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      const html = page.body;
      expect(html).toContain('Subscribe to Professional');
      expect(html).toContain('<strong>$19</strong> per month');
      expect(html).toContain(user.account.email);
      for (const label of ['Card number', 'Expiry (MM/YY)', 'CVC']) expect(html).toContain(`>${label}</label>`);
      expect(html).toContain('<form method="post" action="/billing/test/checkout">');
      expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
      const csp = String(page.headers['content-security-policy']);
      const nonce = /style-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(csp).toMatch(/script-src 'self'( 'nonce-[^']+')?;/);
      expect(csp).not.toContain('unsafe-inline');
      expect(html.match(/<style nonce="([^"]+)">/)?.[1]).toBe(nonce);
    });

    it('upgrades on 4242 4242 4242 4242: back to /subscription?checkout=success, a new period, new limits at once', async () => {
      const user = await register(ctx.app);
      const paid = await pay(await startCheckout(user.access_token, 'professional'), '4242 4242 4242 4242');
      expect(paid.statusCode).toBe(303);
      expect(paid.headers.location).toBe(`${ctx.config.publicUrl}/subscription?checkout=success`);

      const start = Math.floor(ctx.clock.now() / 1000) * 1000;
      expect(await subscription(user.access_token)).toEqual({
        plan: 'professional',
        status: 'active',
        current_period_end: new Date(addMonth(start)).toISOString(),
        cancel_at_period_end: false,
        scheduled_plan: null,
        usage_limits: { monthly_queries: 1000, daily_tokens: 50_000 },
      });
      // What the metering of the next query reads, and what every user answer says.
      const plan = await effectivePlan(ctx.app.database.db, user.user.id, ctx.clock.now());
      expect(plan).toEqual(findPlan('professional'));
      expect(await userPlan(user.access_token)).toBe('professional');
      const login = await post(ctx.app, '/api/v1/auth/login/email', { email: user.account.email, password: user.account.password });
      expect(login.json().user.subscription_plan).toBe('professional');
    });

    it('upgrades professional to team at once, with a new period from the payment', async () => {
      const user = await subscriber('professional');
      ctx.clock.advance(10 * 24 * 3600_000);
      await signIn(user);
      const paid = await pay(await startCheckout(user.access_token, 'team'), '4242424242424242');
      expect(paid.statusCode).toBe(303);
      const start = Math.floor(ctx.clock.now() / 1000) * 1000;
      expect(await subscription(user.access_token)).toMatchObject({
        plan: 'team',
        current_period_end: new Date(addMonth(start)).toISOString(),
        usage_limits: { monthly_queries: -1, daily_tokens: 200_000 },
      });
    });

    it('declines 4000 0000 0000 0002 with a clear message, keeps the plan, and the same checkout still works', async () => {
      const user = await register(ctx.app);
      const path = await startCheckout(user.access_token, 'team');
      const declined = await pay(path, '4000 0000 0000 0002');
      expect(declined.statusCode).toBe(402);
      expect(declined.body).toContain('Your card was declined. No payment was taken and your plan has not changed.');
      expect(declined.body).toContain('Subscribe to Team');
      // What was typed stays for the next try (issue 33, finding 15), but never the CVC.
      expect(inputOf(declined.body, 'card_number')).toContain('value="4000 0000 0000 0002"');
      expect(inputOf(declined.body, 'expiry')).toContain('value="12/34"');
      expect(inputOf(declined.body, 'cvc')).not.toContain('value=');
      expect(await subscription(user.access_token)).toEqual(freeSubscription);

      expect((await pay(path, '4242424242424242')).statusCode).toBe(303);
      expect((await subscription(user.access_token)).plan).toBe('team');
    });

    it.each([
      ['any other card number', { card_number: '4111 1111 1111 1111' }, 'This card number is not valid.'],
      ['letters', { card_number: 'abcd efgh ijkl mnop' }, 'This card number is not valid.'],
      ['a past expiry date', { card_number: '4242424242424242', expiry: '01/20' }, 'This card has expired.'],
      ['a malformed expiry date', { card_number: '4242424242424242', expiry: '13/30' }, 'Enter the expiry date as MM/YY'],
      ['a month 13 typed without a slash', { card_number: '4242424242424242', expiry: '1330' }, 'Enter the expiry date as MM/YY'],
      ['no CVC', { card_number: '4242424242424242', cvc: '' }, 'Enter the 3 or 4 digit security code'],
    ])('rejects %s as invalid and changes nothing', async (_what, fields, message) => {
      const user = await register(ctx.app);
      const path = await startCheckout(user.access_token, 'professional');
      const typed: Record<string, string> = { expiry: '12/34', cvc: '123', ...fields };
      const res = await submit('/billing/test/checkout', { token: tokenOf(path), action: 'pay', ...typed });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(message);
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
      // The form comes back as it was typed, the CVC aside: one wrong field does not cost the others.
      expect(inputOf(res.body, 'card_number')).toContain(`value="${typed.card_number}"`);
      expect(inputOf(res.body, 'expiry')).toContain(`value="${typed.expiry}"`);
      expect(inputOf(res.body, 'cvc')).not.toContain('value=');
    });

    it.each(['1230', '12/30', '12 / 30', '1/30'])('accepts the expiry typed as %p', async (expiry) => {
      const user = await register(ctx.app);
      const paid = await pay(await startCheckout(user.access_token, 'professional'), '4242424242424242', { expiry });
      expect(paid.statusCode).toBe(303);
      expect((await subscription(user.access_token)).plan).toBe('professional');
    });

    it('cancels: back to /subscription?checkout=cancel, plan unchanged, the link is spent', async () => {
      const user = await register(ctx.app);
      const path = await startCheckout(user.access_token, 'professional');
      const cancelled = await submit('/billing/test/checkout', { token: tokenOf(path), action: 'cancel' });
      expect(cancelled.statusCode).toBe(303);
      expect(cancelled.headers.location).toBe(`${ctx.config.publicUrl}/subscription?checkout=cancel`);
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
      expect((await pay(path, '4242424242424242')).statusCode).toBe(410);
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
    });

    it('changes nothing when the browser comes back to the success address without paying', async () => {
      const user = await register(ctx.app);
      await startCheckout(user.access_token, 'team');
      await ctx.app.inject({ method: 'GET', url: '/subscription?checkout=success' });
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
      expect(await userPlan(user.access_token)).toBe('free');
    });

    it('is single-use, expires after 30 minutes, and refuses a made-up token', async () => {
      const user = await register(ctx.app);
      const path = await startCheckout(user.access_token, 'professional');
      expect((await pay(path, '4242424242424242')).statusCode).toBe(303);
      const again = await ctx.app.inject({ method: 'GET', url: path });
      expect(again.statusCode).toBe(410);
      expect(again.body).toContain('This link was already used.');

      const other = await register(ctx.app);
      const late = await startCheckout(other.access_token, 'team');
      ctx.clock.advance(CHECKOUT_TTL_MS);
      const expired = await pay(late, '4242424242424242');
      expect(expired.statusCode).toBe(410);
      expect(expired.body).toContain('This link has expired');
      await signIn(other);
      expect(await subscription(other.access_token)).toEqual(freeSubscription);

      const unknown = await ctx.app.inject({ method: 'GET', url: '/billing/test/checkout?token=made-up' });
      expect(unknown.statusCode).toBe(404);
    });

    it("applies a payment to the user who opened the checkout, not to anyone else", async () => {
      const owner = await register(ctx.app);
      const bystander = await register(ctx.app);
      expect((await pay(await startCheckout(owner.access_token, 'team'), '4242424242424242')).statusCode).toBe(303);
      expect((await subscription(owner.access_token)).plan).toBe('team');
      expect(await subscription(bystander.access_token)).toEqual(freeSubscription);
    });

    it('pays once when the form is submitted twice at the same time', async () => {
      const user = await register(ctx.app);
      const path = await startCheckout(user.access_token, 'professional');
      const answers = await Promise.all([pay(path, '4242424242424242'), pay(path, '4242424242424242')]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual(expect.arrayContaining([303]));
      const events = await ctx.app.database.db
        .selectFrom('billing_events')
        .select(['type', 'outcome'])
        .where('user_id', '=', user.user.id)
        .execute();
      expect(events).toEqual([{ type: 'checkout.session.completed', outcome: 'applied' }]);
    });
  });

  describe('billing-management page and period ends', () => {
    const manage = async (token: string, plan: string) => {
      const res = await checkout(token, plan);
      expect(res.statusCode).toBe(200);
      const path = local(res.json().checkout_url);
      expect(path).toMatch(/^\/billing\/test\/manage\?token=/);
      return path;
    };
    const change = (path: string, value: string) => submit('/billing/test/manage', { token: tokenOf(path), change: value });

    it('schedules a downgrade to Free for the period end, undoes it, and applies it at the period end', async () => {
      const user = await subscriber('professional');
      const { current_period_end: periodEnd } = await subscription(user.access_token);
      const path = await manage(user.access_token, 'free');

      const page = await ctx.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      const endText = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(periodEnd));
      expect(page.body).toContain(`Switch to Free on ${endText}`);
      expect(page.body).toContain(`${ctx.config.publicUrl}/subscription"`);
      expect(page.body).not.toMatch(/<script|\sstyle=/i);

      const scheduled = await change(path, 'free');
      expect(scheduled.statusCode).toBe(200);
      expect(scheduled.body).toContain('Done: your plan changes to Free at the end of the period.');
      expect(scheduled.body).toContain(`Your plan changes to Free on ${endText}.`);
      expect(await subscription(user.access_token)).toMatchObject({
        plan: 'professional',
        current_period_end: periodEnd,
        cancel_at_period_end: true,
        scheduled_plan: 'free',
        usage_limits: { monthly_queries: 1000 },
      });

      const undone = await change(path, 'keep');
      expect(undone.body).toContain('Done: your plan stays as it is.');
      expect(await subscription(user.access_token)).toMatchObject({ plan: 'professional', cancel_at_period_end: false, scheduled_plan: null });

      expect((await change(path, 'free')).statusCode).toBe(200);
      ctx.clock.time = Date.parse(periodEnd) - 1000;
      await signIn(user);
      expect((await subscription(user.access_token)).plan).toBe('professional');
      expect((await effectivePlan(ctx.app.database.db, user.user.id, ctx.clock.now())).id).toBe('professional');

      ctx.clock.time = Date.parse(periodEnd);
      expect((await effectivePlan(ctx.app.database.db, user.user.id, ctx.clock.now())).limits).toEqual({ monthly_queries: 100, daily_tokens: 1000 });
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
      expect(await userPlan(user.access_token)).toBe('free');
      const row = await ctx.app.database.db.selectFrom('subscriptions').selectAll().where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('canceled');
    });

    it('moves Team to Professional at the period end, renewing from there', async () => {
      const user = await subscriber('team');
      const { current_period_end: periodEnd } = await subscription(user.access_token);
      const path = await manage(user.access_token, 'professional');
      const page = await ctx.app.inject({ method: 'GET', url: path });
      // The plan asked for is the first (primary) choice; Free is offered too.
      expect(page.body.indexOf('Switch to Professional')).toBeLessThan(page.body.indexOf('Switch to Free'));
      expect((await change(path, 'professional')).statusCode).toBe(200);
      expect(await subscription(user.access_token)).toMatchObject({ plan: 'team', cancel_at_period_end: true, scheduled_plan: 'professional' });

      ctx.clock.time = Date.parse(periodEnd) + 3600_000;
      await signIn(user);
      expect(await subscription(user.access_token)).toEqual({
        plan: 'professional',
        status: 'active',
        current_period_end: new Date(addMonth(Date.parse(periodEnd))).toISOString(),
        cancel_at_period_end: false,
        scheduled_plan: null,
        usage_limits: { monthly_queries: 1000, daily_tokens: 50_000 },
      });
    });

    it('refuses a change that is not a downgrade, and has nothing to change once the plan has ended', async () => {
      const user = await subscriber('professional');
      const { current_period_end: periodEnd } = await subscription(user.access_token);
      const upgrade = await change(await manage(user.access_token, 'free'), 'team');
      expect(upgrade.statusCode).toBe(400);
      expect(upgrade.body).toContain('Only a cheaper plan can be scheduled here');
      expect((await subscription(user.access_token)).plan).toBe('professional');

      ctx.clock.time = Date.parse(periodEnd) - 10 * 60_000;
      await signIn(user);
      const path = await manage(user.access_token, 'free');
      expect((await change(path, 'free')).statusCode).toBe(200);
      ctx.clock.advance(10 * 60_000);
      const page = await ctx.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('You are on the Free plan: there is no paid subscription to change.');
      const late = await change(path, 'keep');
      expect(late.statusCode).toBe(409);
      await signIn(user);
      expect(await subscription(user.access_token)).toEqual(freeSubscription);
    });

    it('renews a period nobody cancelled, on read, for as many periods as have passed', async () => {
      const user = await subscriber('professional');
      const { current_period_end: first } = await subscription(user.access_token);
      ctx.clock.time = addMonth(addMonth(Date.parse(first))) + 5 * 24 * 3600_000;
      await signIn(user);
      expect(await subscription(user.access_token)).toMatchObject({
        plan: 'professional',
        status: 'active',
        current_period_end: new Date(addMonth(addMonth(addMonth(Date.parse(first))))).toISOString(),
        cancel_at_period_end: false,
      });
      const renewals = await ctx.app.database.db
        .selectFrom('billing_events')
        .select(['type', 'outcome'])
        .where('user_id', '=', user.user.id)
        .where('type', '=', 'invoice.paid')
        .execute();
      expect(renewals).toEqual([{ type: 'invoice.paid', outcome: 'applied' }]);
    });

    it('ends due periods on its timer without anyone reading them (once, even when settled twice at once); the retention job forgets old links', async () => {
      const user = await subscriber('professional');
      const path = await manage(user.access_token, 'free');
      await change(path, 'free');
      const row = () => ctx.app.database.db.selectFrom('subscriptions').selectAll().where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
      ctx.clock.time = (await row()).current_period_end!;
      const provider = ctx.app.billing as TestProvider;
      await Promise.all([provider.settleDue(), provider.settleDue()]);
      expect((await row()).status).toBe('canceled');
      const ends = await ctx.app.database.db
        .selectFrom('billing_events')
        .select('outcome')
        .where('user_id', '=', user.user.id)
        .where('type', '=', 'customer.subscription.deleted')
        .execute();
      expect(ends).toEqual([{ outcome: 'applied' }]);
      await pruneOnce(ctx.app.database, ctx.clock.now(), { months: 13 });
      const links = await ctx.app.database.db.selectFrom('billing_test_sessions').select('kind').where('user_id', '=', user.user.id).execute();
      expect(links).toEqual([]);
    });
  });
});
