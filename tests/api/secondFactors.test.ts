import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { MFA_CHALLENGE_TTL_MS } from '../../server/domain/secondFactors';
import { LOGIN_PAUSES_MS } from '../../server/routes/auth';
import { SoftAuthenticator } from '../helpers/softAuthenticator';
import { bearer, ENGINES, post, register, useSecondInstance, useTestApp, type TestContext } from '../helpers/testApp';

/**
 * Two-step sign-in with an authenticator app (decisions.md, "Advanced security"), as a client sees
 * it, on both engines: codes are made by the TOTP library itself at the test clock's time.
 */

jest.setTimeout(60_000);

const STEP_MS = 30_000;

function codeAt(secret: string, timestamp: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp });
}

function call(app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
}

/** Registers and turns the authenticator app on; answers the person, the secret and the recovery codes. */
async function withAuthenticator(ctx: TestContext) {
  const person = await register(ctx.app);
  const setup = await call(ctx.app, person.access_token, 'POST', '/mfa/totp/setup');
  expect(setup.statusCode).toBe(200);
  const { secret, otpauth_url } = setup.json() as { secret: string; otpauth_url: string };
  const confirm = await call(ctx.app, person.access_token, 'POST', '/mfa/totp/confirm', { code: codeAt(secret, ctx.clock.now()) });
  expect(confirm.statusCode).toBe(200);
  // The confirming code's step is used up: the sign-ins below start from the next step.
  ctx.clock.advance(STEP_MS);
  return { person, secret, otpauth_url, recoveryCodes: (confirm.json() as { recovery_codes: string[] }).recovery_codes };
}

async function passwordStep(app: FastifyInstance, account: { email: string; password: string }) {
  const res = await post(app, '/api/v1/auth/login/email', { email: account.email, password: account.password });
  expect(res.statusCode).toBe(200);
  return res.json() as { mfa_required?: true; mfa_token: string; methods: string[]; access_token?: string };
}

const secondStep = (app: FastifyInstance, body: object) => post(app, '/api/v1/auth/login/mfa', body);

describe.each(ENGINES)('two-step sign-in on %s', (engine) => {
  const ctx = useTestApp(engine);
  const other = useSecondInstance(ctx);

  it('sets up an app with a scannable otpauth URI, shows ten recovery codes once, and the status says so', async () => {
    const { person, secret, otpauth_url, recoveryCodes } = await withAuthenticator(ctx);
    const uri = new URL(otpauth_url);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(uri.pathname)).toContain(person.user.email);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const status = await call(ctx.app, person.access_token, 'GET', '/mfa');
    expect(status.json()).toMatchObject({ totp_enabled: true, recovery_codes_left: 10 });
    // A second set-up while on is refused; the secret is not stored in the clear.
    expect((await call(ctx.app, person.access_token, 'POST', '/mfa/totp/setup')).json().error.code).toBe('totp_already_enabled');
    const row = await ctx.app.database.db.selectFrom('users').select(['totp_secret']).where('id', '=', person.user.id).executeTakeFirstOrThrow();
    expect(row.totp_secret).toBeTruthy();
    expect(row.totp_secret).not.toContain(secret);
    const codes = await ctx.app.database.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', person.user.id).execute();
    expect(codes.map((c) => c.code_hash)).not.toContain(recoveryCodes[0]);
  });

  it('refuses a wrong first code and keeps the app off', async () => {
    const person = await register(ctx.app);
    const { secret } = (await call(ctx.app, person.access_token, 'POST', '/mfa/totp/setup')).json();
    const wrong = await call(ctx.app, person.access_token, 'POST', '/mfa/totp/confirm', { code: codeAt(secret, ctx.clock.now() - 3 * STEP_MS) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatchObject({ code: 'invalid_code', field: 'code' });
    expect((await call(ctx.app, person.access_token, 'GET', '/mfa')).json().totp_enabled).toBe(false);
    // An account without a second factor signs in exactly as before.
    const login = await passwordStep(ctx.app, person.account);
    expect(login.access_token).toEqual(expect.any(String));
    expect(login).not.toHaveProperty('mfa_required');
  });

  it('asks for the second factor after the right password, and takes codes of the previous, current and next step', async () => {
    const { person, secret } = await withAuthenticator(ctx);
    for (const offset of [-STEP_MS, 0, STEP_MS]) {
      ctx.clock.advance(3 * STEP_MS);
      const first = await passwordStep(ctx.app, person.account);
      expect(first).toEqual({ mfa_required: true, mfa_token: expect.any(String), methods: ['totp', 'recovery_code'] });
      const done = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now() + offset) });
      expect(done.statusCode).toBe(200);
      expect(done.json()).toMatchObject({ access_token: expect.any(String), user: { email: person.user.email } });
    }
  });

  it('refuses a code two steps old, and a code already used, even on the other instance', async () => {
    const { person, secret } = await withAuthenticator(ctx);
    ctx.clock.advance(3 * STEP_MS);
    const first = await passwordStep(ctx.app, person.account);
    const old = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now() - 2 * STEP_MS) });
    expect(old.statusCode).toBe(401);
    expect(old.json().error.code).toBe('invalid_code');
    const code = codeAt(secret, ctx.clock.now());
    expect((await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'totp', code })).statusCode).toBe(200);
    const again = await passwordStep(other.current, person.account);
    const replay = await secondStep(other.current, { mfa_token: again.mfa_token, method: 'totp', code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.code).toBe('invalid_code');
  });

  it('lets one of the same code sent at once to two instances through', async () => {
    const { person, secret } = await withAuthenticator(ctx);
    ctx.clock.advance(3 * STEP_MS);
    const tokens = await Promise.all([passwordStep(ctx.app, person.account), passwordStep(other.current, person.account)]);
    const code = codeAt(secret, ctx.clock.now());
    const answers = await Promise.all(
      tokens.flatMap((t) => [ctx.app, other.current, ctx.app].map((app) => secondStep(app, { mfa_token: t.mfa_token, method: 'totp', code }).then((r) => r.statusCode))),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(1);
  });

  it('takes each recovery code once, in any case and without its hyphen, and the status counts them down', async () => {
    const { person, recoveryCodes } = await withAuthenticator(ctx);
    const first = await passwordStep(ctx.app, person.account);
    const typed = recoveryCodes[3]!.toUpperCase().replace('-', ' ');
    const ok = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'recovery_code', code: typed });
    expect(ok.statusCode).toBe(200);
    const second = await passwordStep(ctx.app, person.account);
    const reused = await secondStep(ctx.app, { mfa_token: second.mfa_token, method: 'recovery_code', code: recoveryCodes[3] });
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('invalid_code');
    expect((await call(ctx.app, ok.json().access_token, 'GET', '/mfa')).json().recovery_codes_left).toBe(9);
  });

  it('ends a second step after five tries or five minutes, and a finished one cannot be used again', async () => {
    const { person, secret } = await withAuthenticator(ctx);
    const first = await passwordStep(ctx.app, person.account);
    for (let i = 0; i < 5; i++) {
      // Each wrong guess after the third waits out the account's pause first (LOGIN_PAUSES_MS).
      ctx.clock.advance(LOGIN_PAUSES_MS[i]! + 1);
      const wrong = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'recovery_code', code: `wrong-${i}` });
      expect(wrong.json().error.code).toBe('invalid_code');
    }
    const sixth = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now()) });
    expect(sixth.statusCode).toBe(401);
    expect(sixth.json().error.code).toBe('mfa_token_invalid');

    // The wrong guesses above count toward the account's limit: wait them out.
    ctx.clock.advance(16 * 60_000);
    const late = await passwordStep(ctx.app, person.account);
    ctx.clock.advance(MFA_CHALLENGE_TTL_MS + 1);
    const expired = await secondStep(ctx.app, { mfa_token: late.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now()) });
    expect(expired.json().error.code).toBe('mfa_token_invalid');

    ctx.clock.advance(STEP_MS);
    const fresh = await passwordStep(ctx.app, person.account);
    expect((await secondStep(ctx.app, { mfa_token: fresh.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now()) })).statusCode).toBe(200);
    ctx.clock.advance(STEP_MS);
    const reuse = await secondStep(other.current, { mfa_token: fresh.mfa_token, method: 'totp', code: codeAt(secret, ctx.clock.now()) });
    expect(reuse.json().error.code).toBe('mfa_token_invalid');
  });

  it("counts wrong codes sent at once toward the account's sign-in guessing limit", async () => {
    const { person } = await withAuthenticator(ctx);
    const challenges = await Promise.all(Array.from({ length: 4 }, () => passwordStep(ctx.app, person.account)));
    // One instance: without Redis each instance counts on its own (tests/api/limitsUnderConcurrency.test.ts shares them).
    const wrong = await Promise.all(
      challenges.flatMap((c) => Array.from({ length: 4 }, () => secondStep(ctx.app, { mfa_token: c.mfa_token, method: 'totp', code: '000000' }))),
    );
    const codes = wrong.map((r) => r.json().error.code);
    // 10 guesses an account per 15 minutes (LOGIN_LIMITS): the rest are refused as too many, not checked.
    expect(codes.filter((c) => c === 'rate_limited').length).toBeGreaterThanOrEqual(16 - 10);
    expect(codes.filter((c) => c === 'invalid_code').length).toBeLessThanOrEqual(10);
    const blocked = await post(ctx.app, '/api/v1/auth/login/email', { email: person.account.email, password: person.account.password });
    expect(blocked.statusCode).toBe(429);
  });

  it('turns the app off only with the password, mails the owner, and renews recovery codes with the password', async () => {
    const { person, recoveryCodes } = await withAuthenticator(ctx);
    const wrongRenew = await call(ctx.app, person.access_token, 'POST', '/mfa/recovery-codes', { password: 'not-the-password' });
    expect(wrongRenew.json().error).toMatchObject({ code: 'invalid_password', field: 'password' });
    const renewed = await call(ctx.app, person.access_token, 'POST', '/mfa/recovery-codes', { password: person.account.password });
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json().recovery_codes).toHaveLength(10);
    const first = await passwordStep(ctx.app, person.account);
    expect((await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'recovery_code', code: recoveryCodes[0] })).statusCode).toBe(401);

    const wrongOff = await call(ctx.app, person.access_token, 'DELETE', '/mfa/totp', { password: 'not-the-password' });
    expect(wrongOff.statusCode).toBe(400);
    expect((await call(ctx.app, person.access_token, 'GET', '/mfa')).json().totp_enabled).toBe(true);
    const off = await call(ctx.app, person.access_token, 'DELETE', '/mfa/totp', { password: person.account.password });
    expect(off.statusCode).toBe(204);
    const mails = await ctx.mail.settledTo(person.user.email);
    expect(mails.map((m) => m.subject)).toContain('Two-step sign-in was turned off on your SheetMind account');
    const plain = await passwordStep(ctx.app, person.account);
    expect(plain.access_token).toEqual(expect.any(String));
  });

  it('mails a sign-in from a browser the account has not used, once, and not for the one it was made in', async () => {
    const person = await register(ctx.app);
    const signIn = (ua: string) =>
      ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login/email', payload: { email: person.account.email, password: person.account.password }, headers: { 'user-agent': ua } });
    expect((await signIn('lightMyRequest')).statusCode).toBe(200);
    const newDevice = (await ctx.mail.settledTo(person.user.email)).filter((m) => m.kind === 'new_device_sign_in');
    expect(newDevice).toHaveLength(0);
    await signIn('Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Safari/604.1');
    await signIn('Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) Safari/604.1');
    const mails = (await ctx.mail.settledTo(person.user.email)).filter((m) => m.kind === 'new_device_sign_in');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('iPhone');
    expect(mails[0]!.text).toContain('Sessions and devices');
    expect(mails[0]!.text).toContain(`${ctx.config.publicUrl}/profile#sessions`);
  });

  it('revokes the API keys on a password reset and says so in the mail', async () => {
    const person = await register(ctx.app);
    const key = await call(ctx.app, person.access_token, 'POST', '/api-keys', { name: 'Script', scopes: ['query'] });
    expect(key.statusCode).toBe(201);
    await post(ctx.app, '/api/v1/auth/password-reset-request', { email: person.user.email });
    const link = /https?:\/\/\S+/.exec((await ctx.mail.latestTo(person.user.email, 'password_reset')).text)![0];
    const token = new URL(link).searchParams.get('token')!;
    expect((await post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: 'A-new-secret-2026!' })).statusCode).toBe(204);
    const usage = await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(key.json().key) });
    expect(usage.statusCode).toBe(401);
    expect(usage.json().error.code).toBe('api_key_revoked');
    const changed = (await ctx.mail.settledTo(person.user.email)).find((m) => m.kind === 'password_changed')!;
    expect(changed.text).toContain('Your API keys (1) were revoked too');
  });

  it('takes one of the account\'s passkeys as the second step, and refuses a passkey of another account', async () => {
    const { person } = await withAuthenticator(ctx);
    const device = new SoftAuthenticator(ctx.config.publicUrl);
    const addPasskey = async (token: string, authenticator: SoftAuthenticator) => {
      const options = await call(ctx.app, token, 'POST', '/webauthn/register/options');
      const added = await call(ctx.app, token, 'POST', '/webauthn/register', { credential: authenticator.register(options.json()), name: 'Phone' });
      expect(added.statusCode).toBe(201);
      return added.json().id as string;
    };
    const passkeyId = await addPasskey(person.access_token, device);
    const stranger = await register(ctx.app);
    const strangerDevice = new SoftAuthenticator(ctx.config.publicUrl);
    await addPasskey(stranger.access_token, strangerDevice);

    const first = await passwordStep(ctx.app, person.account);
    expect(first.methods).toEqual(['totp', 'webauthn', 'recovery_code']);
    const options = await post(ctx.app, '/api/v1/auth/webauthn/options', { mfa_token: first.mfa_token });
    expect(options.statusCode).toBe(200);
    expect(options.json().allowCredentials.map((c: { id: string }) => c.id)).toEqual([passkeyId]);
    const foreign = await secondStep(ctx.app, { mfa_token: first.mfa_token, method: 'webauthn', credential: strangerDevice.authenticate({ ...options.json(), allowCredentials: [] }) });
    expect(foreign.statusCode).toBe(401);
    expect(foreign.json().error.code).toBe('invalid_passkey');

    const again = (await post(other.current, '/api/v1/auth/webauthn/options', { mfa_token: first.mfa_token })).json();
    const done = await secondStep(other.current, { mfa_token: first.mfa_token, method: 'webauthn', credential: device.authenticate(again) });
    expect(done.statusCode).toBe(200);
    expect(done.json().user.email).toBe(person.user.email);
    // The step is spent: its options are refused too.
    expect((await post(ctx.app, '/api/v1/auth/webauthn/options', { mfa_token: first.mfa_token })).json().error.code).toBe('mfa_token_invalid');
  });

  it('lets an account with a passkey and no app sign in with its password alone', async () => {
    const person = await register(ctx.app);
    const options = await call(ctx.app, person.access_token, 'POST', '/webauthn/register/options');
    const credential = new SoftAuthenticator(ctx.config.publicUrl).register(options.json());
    expect((await call(ctx.app, person.access_token, 'POST', '/webauthn/register', { credential, name: 'Key' })).statusCode).toBe(201);
    const login = await passwordStep(ctx.app, person.account);
    expect(login.access_token).toEqual(expect.any(String));
  });

  it('generates the key secrets are sealed with into the data directory, readable only by the owner', () => {
    const file = path.join(ctx.dataDir, 'second-factor.key');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
  });
});
