import crypto from 'node:crypto';
import { hashPassword } from '../../server/domain/passwords';
import { hashToken } from '../../server/domain/tokens';
import { VERIFY_RESEND_LIMIT } from '../../server/routes/verifyEmail';
import { payFor, signIn, type Account } from '../helpers/teams';
import { bearer, ENGINES, newAccount, post, register, useSecondInstance, useTestApp, verificationToken } from '../helpers/testApp';

/**
 * Verified email (decisions.md, "Advanced security"): registering mails a single-use link valid 24
 * hours; `POST /auth/verify-email {token}` uses it; `POST /auth/verify-email/resend` mails a new one
 * (rate limited); until verified, creating API keys, inviting and accepting invitations answer 403
 * `email_unverified`, and everything else works as before.
 */
describe.each(ENGINES)('verified email on %s', (engine) => {
  const ctx = useTestApp(engine);
  const other = useSecondInstance(ctx);
  const HOUR = 60 * 60_000;

  const verify = (token: string, app = ctx.app) => post(app, '/api/v1/auth/verify-email', { token });
  const resend = (who: Account) => post(ctx.app, '/api/v1/auth/verify-email/resend', {}, bearer(who.access_token));
  const me = async (who: Account) => (await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(who.access_token) })).json();
  const refusal = (res: { statusCode: number; json(): { error: { code: string; message: string } } }) => [res.statusCode, res.json().error.code, res.json().error.message];
  const unverified = () => register(ctx.app, {}, { verified: false });

  it('mails a link to {PUBLIC_URL}/verify-email on registering; the link verifies once, and the account says so everywhere', async () => {
    const account = newAccount();
    const registered = await post(ctx.app, '/api/v1/auth/register', account);
    expect(registered.statusCode).toBe(201);
    expect(registered.json().user.email_verified).toBe(false);
    const user = { ...registered.json(), account } as Account;
    expect((await me(user)).email_verified).toBe(false);

    const mail = await ctx.mail.latestTo(account.email, 'email_verification');
    expect(mail.subject).toBe('Verify your email address for SheetMind');
    expect(mail.text).toContain(`${ctx.config.publicUrl}/verify-email?token=`);
    expect(mail.text).toContain('expires in 24 hours');
    const token = await verificationToken(ctx.mail, account.email);
    // Stored only hashed.
    const stored = await ctx.app.database.db.selectFrom('email_verifications').select('token_hash').where('user_id', '=', user.user.id).execute();
    expect(stored.map((row) => row.token_hash)).toEqual([hashToken(token)]);

    const used = await verify(token);
    expect([used.statusCode, used.json()]).toEqual([200, { email_verified: true }]);
    expect((await me(user)).email_verified).toBe(true);
    const signIn = await post(ctx.app, '/api/v1/auth/login/email', { email: account.email, password: account.password });
    expect(signIn.json().user.email_verified).toBe(true);

    const again = await verify(token);
    expect(refusal(again)).toEqual([400, 'invalid_verification_token', expect.stringContaining('already used')]);
    expect((await me(user)).email_verified).toBe(true);
  });

  it('refuses an unknown link, and a link after its 24 hours', async () => {
    expect(refusal(await verify('no-such-token'))).toEqual([400, 'invalid_verification_token', expect.stringContaining('not valid')]);

    const [late, onTime] = [await unverified(), await unverified()];
    const [lateToken, onTimeToken] = [await verificationToken(ctx.mail, late.account.email), await verificationToken(ctx.mail, onTime.account.email)];
    ctx.clock.advance(24 * HOUR - 1);
    expect((await verify(onTimeToken)).statusCode).toBe(200);
    ctx.clock.advance(1);
    expect(refusal(await verify(lateToken))).toEqual([400, 'invalid_verification_token', expect.stringContaining('expired')]);
    await signIn(ctx, late);
    expect((await me(late)).email_verified).toBe(false);
  });

  it('uses a link once when it is clicked twice at once, on two instances', async () => {
    const user = await unverified();
    const token = await verificationToken(ctx.mail, user.account.email);
    const answers = await Promise.all([verify(token), verify(token, other.current), verify(token), verify(token, other.current)]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 400, 400, 400]);
    expect((await me(user)).email_verified).toBe(true);
  });

  it('mails a new link on resend, which works; at most 5 an hour, requests sent at once included, with Retry-After', async () => {
    const user = await unverified();
    const first = await verificationToken(ctx.mail, user.account.email);
    // (Per instance, as every limit of the in-memory store; tests/api/limitsUnderConcurrency.test.ts shares them through Redis.)
    const sent = await Promise.all(Array.from({ length: 8 }, () => resend(user)));
    expect(sent.map((res) => res.statusCode).sort()).toEqual([...Array(VERIFY_RESEND_LIMIT.max).fill(202), ...Array(8 - VERIFY_RESEND_LIMIT.max).fill(429)]);
    const refused = sent.find((res) => res.statusCode === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(sent.find((res) => res.statusCode === 202)!.json().message).toContain(user.account.email);
    expect(await ctx.mail.settledTo(user.account.email, 'email_verification')).toHaveLength(1 + VERIFY_RESEND_LIMIT.max);

    const newest = await verificationToken(ctx.mail, user.account.email);
    expect(newest).not.toBe(first);
    expect((await verify(newest)).statusCode).toBe(200);
    expect((await me(user)).email_verified).toBe(true);
    // A verified address has nothing to confirm (said before the limit is looked at).
    expect(refusal(await resend(user))).toEqual([409, 'email_already_verified', expect.any(String)]);
    // An earlier link of the account still confirms nothing new, and is not refused for it.
    expect((await verify(first)).statusCode).toBe(200);
  });

  it('asks for a sign-in to resend', async () => {
    const res = await post(ctx.app, '/api/v1/auth/verify-email/resend', {});
    expect(res.statusCode).toBe(401);
  });

  it('answers 403 email_unverified to creating API keys, inviting and accepting until verified, then lets each through', async () => {
    const owner = await unverified();
    await payFor(ctx, owner, 'team');
    const invitee = await unverified();
    const createKey = () => post(ctx.app, '/api/v1/api-keys', { name: 'Sheets', scopes: ['query'] }, bearer(owner.access_token));
    const invite = () => post(ctx.app, '/api/v1/teams/me/invitations', { email: invitee.account.email, role: 'member' }, bearer(owner.access_token));

    expect(refusal(await createKey())).toEqual([403, 'email_unverified', expect.stringContaining(owner.account.email)]);
    expect(refusal(await invite())).toEqual([403, 'email_unverified', expect.any(String)]);
    // Everything else works as before: the team, its members, queries.
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/teams/me', headers: bearer(owner.access_token) })).statusCode).toBe(200);

    expect((await verify(await verificationToken(ctx.mail, owner.account.email))).statusCode).toBe(200);
    expect((await createKey()).statusCode).toBe(201);
    expect((await invite()).statusCode).toBe(201);

    const invitation = /\/invite\/([\w-]+)/.exec((await ctx.mail.latestTo(invitee.account.email, 'team_invitation')).text)![1]!;
    const accept = () => post(ctx.app, `/api/v1/invitations/${invitation}/accept`, {}, bearer(invitee.access_token));
    expect(refusal(await accept())).toEqual([403, 'email_unverified', expect.any(String)]);
    // The link still shows what it offers.
    expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${invitation}` })).statusCode).toBe(200);
    expect((await verify(await verificationToken(ctx.mail, invitee.account.email))).statusCode).toBe(200);
    expect((await accept()).statusCode).toBe(200);
  });

  it('counts an account made before verification existed (no verification time) as unverified until it clicks', async () => {
    const now = ctx.clock.now();
    const id = crypto.randomUUID();
    const account = newAccount();
    // Inserted as the users table stood before the migration: without the new column.
    await ctx.app.database.db
      .insertInto('users')
      .columns(['id', 'email', 'username', 'username_key', 'full_name', 'password_hash', 'created_at', 'updated_at'])
      .values({ id, email: account.email, username: account.username, username_key: account.username.toLowerCase(), full_name: account.full_name, password_hash: await hashPassword(account.password), created_at: now, updated_at: now })
      .execute();
    const signIn = await post(ctx.app, '/api/v1/auth/login/email', { email: account.email, password: account.password });
    expect(signIn.json().user.email_verified).toBe(false);
    const user = { ...signIn.json(), account } as Account;
    expect(refusal(await post(ctx.app, '/api/v1/api-keys', { name: 'Old', scopes: ['query'] }, bearer(user.access_token)))[1]).toBe('email_unverified');
    // No mail was sent for it: the banner's resend sends the first.
    expect(await ctx.mail.settledTo(account.email)).toEqual([]);
    expect((await resend(user)).statusCode).toBe(202);
    expect((await verify(await verificationToken(ctx.mail, account.email))).statusCode).toBe(200);
    expect((await me(user)).email_verified).toBe(true);
  });
});
