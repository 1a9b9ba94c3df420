import { bearer, post, register, type TestContext } from './testApp';

export type Account = Awaited<ReturnType<typeof register>>;

/** The form a browser submits on a test-mode billing page. */
function submit(ctx: TestContext, path: string, fields: Record<string, string>) {
  return ctx.app.inject({ method: 'POST', url: path, payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** Buys `plan` through the test checkout page with the card that always pays. */
export async function payFor(ctx: TestContext, user: Account, plan: 'professional' | 'team'): Promise<void> {
  const res = await post(ctx.app, '/api/v1/subscription/checkout', { plan }, bearer(user.access_token));
  if (res.statusCode !== 200) throw new Error(`checkout failed: ${res.statusCode} ${res.body}`);
  const paid = await submit(ctx, '/billing/test/checkout', { token: tokenOf(res.json().checkout_url), card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', action: 'pay' });
  if (paid.statusCode !== 303) throw new Error(`payment failed: ${paid.statusCode} ${paid.body}`);
}

/** Schedules the user's paid plan to become Free at the period end, on the test billing page. */
export async function cancelAtPeriodEnd(ctx: TestContext, user: Account): Promise<void> {
  const res = await post(ctx.app, '/api/v1/subscription/checkout', { plan: 'free' }, bearer(user.access_token));
  const done = await submit(ctx, '/billing/test/manage', { token: tokenOf(res.json().checkout_url), change: 'free' });
  if (done.statusCode !== 200) throw new Error(`cancel failed: ${done.statusCode} ${done.body}`);
}

/** A new account that paid for Team: the owner of a new team. */
export async function teamOwner(ctx: TestContext, overrides: Parameters<typeof register>[1] = {}): Promise<Account> {
  const owner = await register(ctx.app, overrides);
  await payFor(ctx, owner, 'team');
  return owner;
}

/** A fresh access token (the clock moved past the old one's 15 minutes). */
export async function signIn(ctx: TestContext, user: Account): Promise<void> {
  const res = await post(ctx.app, '/api/v1/auth/login/email', { email: user.account.email, password: user.account.password });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  user.access_token = res.json().access_token;
}

/** The token of the newest invitation link mailed to `to`. */
export async function invitationToken(ctx: TestContext, to: string): Promise<string> {
  const mail = await ctx.mail.latestTo(to, 'team_invitation');
  const link = /\/invite\/([\w-]+)/.exec(mail.text);
  if (!link) throw new Error(`no invitation link in the mail to ${to}`);
  return link[1]!;
}

/** Invites `member` to `owner`'s team and accepts as them. */
export async function join(ctx: TestContext, owner: Account, member: Account, role: 'admin' | 'member' = 'member'): Promise<void> {
  const sent = await post(ctx.app, '/api/v1/teams/me/invitations', { email: member.account.email, role }, bearer(owner.access_token));
  if (sent.statusCode !== 201) throw new Error(`invitation failed: ${sent.statusCode} ${sent.body}`);
  const token = await invitationToken(ctx, member.account.email);
  const accepted = await post(ctx.app, `/api/v1/invitations/${token}/accept`, {}, bearer(member.access_token));
  if (accepted.statusCode !== 200) throw new Error(`accept failed: ${accepted.statusCode} ${accepted.body}`);
}
