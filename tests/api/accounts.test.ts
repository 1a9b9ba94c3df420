// Over 300 lines: every account call (register, login, refresh, access tokens, logout, profile, password
// change and reset, logs), a describe each, on both engines sharing one test app per engine.
import crypto from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { LOGIN_LIMITS, LOGIN_PAUSES_MS, RESET_REQUESTED } from '../../server/routes/auth';
import { REFRESH_GRACE_MS } from '../../server/domain/sessions';
import { ENGINES, atProductionHashCost, bearer, newAccount, newAddress, post, register, useTestApp } from '../helpers/testApp';

const MINUTE = 60_000;

describe.each(ENGINES)('accounts API on %s', (engine) => {
  const ctx = useTestApp(engine);
  const me = (token: string) => ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });
  const refresh = (token: string) => post(ctx.app, '/api/v1/auth/refresh', { refresh_token: token });
  const login = (email: string, password: string) => post(ctx.app, '/api/v1/auth/login/email', { email, password });

  describe('register', () => {
    it('creates the account, signs it in and answers the user with normalised email', async () => {
      const account = newAccount({ email: '  Mixed.Case@Example.COM ' });
      const res = await post(ctx.app, '/api/v1/auth/register', account);
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ token_type: 'bearer', expires_in: 900 });
      expect(body.user).toEqual({
        id: expect.any(String),
        email: 'mixed.case@example.com',
        full_name: account.full_name,
        username: account.username,
        created_at: new Date(ctx.clock.now()).toISOString(),
        email_verified: false,
        subscription_plan: 'free',
      });
      // GET /users/me also names the caller's team role (none here) and whether a team holds them to a second factor; the auth answers do not.
      expect((await me(body.access_token)).json()).toEqual({ ...body.user, team_role: null, two_factor_required: false });
    });

    it('answers 409 with distinct codes for a taken email and a taken username (any case)', async () => {
      const { account } = await register(ctx.app);
      const sameEmail = await post(ctx.app, '/api/v1/auth/register', newAccount({ email: account.email.toUpperCase() }));
      expect(sameEmail.statusCode).toBe(409);
      expect(sameEmail.json().error).toMatchObject({ code: 'email_taken', field: 'email' });
      const sameName = await post(ctx.app, '/api/v1/auth/register', newAccount({ username: account.username.toUpperCase() }));
      expect(sameName.statusCode).toBe(409);
      expect(sameName.json().error).toMatchObject({ code: 'username_taken', field: 'username' });
    });

    it.each([
      ['email', { email: 'not-an-email' }, 'invalid_input'],
      ['password', { password: 'short' }, 'password_too_short'],
      ['password', { password: 'x'.repeat(129) }, 'password_too_long'],
      ['password', { password: 'Password123' }, 'password_too_common'],
      ['username', { username: 'no spaces allowed' }, 'invalid_input'],
      ['username', { username: 'ab' }, 'invalid_input'],
      ['full_name', { full_name: '   ' }, 'invalid_input'],
      ['full_name', { full_name: 'x'.repeat(101) }, 'invalid_input'],
    ])('answers 400 naming %s for %p', async (field, overrides, code) => {
      const res = await post(ctx.app, '/api/v1/auth/register', newAccount(overrides));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code, field, message: expect.any(String) });
    });

    it('accepts any Unicode password of 8+ characters and never truncates it', async () => {
      const password = 'пароль-🔐-ünïcødé-' + 'z'.repeat(100);
      const { account } = await register(ctx.app, { password });
      expect((await login(account.email, password)).statusCode).toBe(200);
      expect((await login(account.email, password.slice(0, -1))).statusCode).toBe(401);
    });

    it('rejects a missing field, a wrong type and any field it does not know (no mass assignment)', async () => {
      const { password: _omitted, ...noPassword } = newAccount();
      const missing = await post(ctx.app, '/api/v1/auth/register', noPassword);
      expect(missing.json().error).toMatchObject({ code: 'invalid_input', field: 'password' });
      const wrongType = await post(ctx.app, '/api/v1/auth/register', { ...newAccount(), username: 42 });
      expect(wrongType.json().error).toMatchObject({ code: 'invalid_input', field: 'username' });
      for (const extra of [{ subscription_plan: 'team' }, { id: 'mine' }, { is_admin: true }]) {
        const res = await post(ctx.app, '/api/v1/auth/register', { ...newAccount(), ...extra });
        expect(res.statusCode).toBe(400);
        expect(res.json().error.field).toBe(Object.keys(extra)[0]);
      }
    });
  });

  describe('request bodies', () => {
    it('refuses non-JSON (415), over 64 KiB (413) and __proto__ keys (400)', async () => {
      const text = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login/email',
        headers: { 'content-type': 'text/plain' },
        payload: 'email=a',
      });
      expect(text.statusCode).toBe(415);
      expect(text.json().error.code).toBe('unsupported_media_type');
      const big = await post(ctx.app, '/api/v1/auth/register', { ...newAccount(), full_name: 'a'.repeat(70 * 1024) });
      expect(big.statusCode).toBe(413);
      expect(big.json().error.code).toBe('payload_too_large');
      const proto = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/auth/register',
        headers: { 'content-type': 'application/json' },
        payload: `{"email":"a@b.co","password":"x","full_name":"x","username":"xyz","__proto__":{"admin":true}}`,
      });
      expect(proto.statusCode).toBe(400);
      expect(proto.json().error).toEqual({ code: expect.any(String), message: expect.any(String) });
    });
  });

  describe('login', () => {
    it('signs in with the user included', async () => {
      const { account, user } = await register(ctx.app);
      const res = await login(account.email.toUpperCase(), account.password);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ token_type: 'bearer', user });
    });

    it('answers an unknown email and a wrong password with the same 401, in about the same time', async () => {
      // At a real cost: the cheap hashes of the tests take less time than the noise. Dearer than
      // production's (a wrong guess took 9 ms here on a busy machine, 40 ms at this cost), so that the few milliseconds a
      // busy machine adds to one request cannot pass for the gap the test is looking for.
      const cost = { memoryKiB: 65_536, passes: 3 };
      // Three accounts: an account's first three wrong guesses cost no pause, and nine of each kind
      // give the fastest a fair chance on a busy machine (with three, on the first file of a CI run
      // beside the build, the lint and the type check, all three wrong guesses once came in slowed).
      const accounts = await atProductionHashCost(async () => [await register(ctx.app), await register(ctx.app), await register(ctx.app)], cost);
      const timed = async (email: string) => {
        const start = process.hrtime.bigint();
        const res = await login(email, 'Wrong-password-123');
        return { res, ms: Number(process.hrtime.bigint() - start) / 1e6 };
      };
      // The fastest of nine of each, taken in turns: a busy machine only ever adds time, and a
      // stretch of load slows both kinds alike.
      const fastest = (tries: Array<Awaited<ReturnType<typeof timed>>>) => [...tries].sort((a, b) => a.ms - b.ms)[0]!;
      const { wrong, unknown } = await atProductionHashCost(async () => {
        await timed('warm-up@example.com');
        const wrongs = [];
        const unknowns = [];
        for (let i = 0; i < 3; i++) {
          for (const { account } of accounts) {
            wrongs.push(await timed(account.email));
            unknowns.push(await timed(`nobody-${crypto.randomUUID()}@example.com`));
          }
        }
        return { wrong: fastest(wrongs), unknown: fastest(unknowns) };
      }, cost);
      expect(wrong.res.statusCode).toBe(401);
      expect(unknown.res.statusCode).toBe(401);
      expect(unknown.res.body).toBe(wrong.res.body);
      expect(wrong.res.json().error.code).toBe('invalid_credentials');
      // Both paths run one argon2 verification (tens of ms): neither answers in a fraction of the other's time.
      expect(unknown.ms).toBeGreaterThan(wrong.ms * 0.4);
      expect(wrong.ms).toBeGreaterThan(unknown.ms * 0.4);
    });

    it('slows failed sign-ins per account with a growing pause (429 and Retry-After), leaving other accounts alone', async () => {
      const victim = await register(ctx.app);
      const other = await register(ctx.app);
      const free = LOGIN_PAUSES_MS.filter((ms) => ms === 0).length;
      for (let i = 0; i < free + 1; i++) expect((await login(victim.account.email, 'Wrong-password-123')).statusCode).toBe(401);
      const pauses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const blocked = await login(victim.account.email, victim.account.password);
        expect(blocked.statusCode).toBe(429);
        expect(blocked.json().error.code).toBe('rate_limited');
        pauses.push(Number(blocked.headers['retry-after']));
        ctx.clock.advance(pauses.at(-1)! * 1000);
        expect((await login(victim.account.email, 'Wrong-password-123')).statusCode).toBe(401);
      }
      // Each wrong guess makes the next wait longer, but never the whole window.
      expect(pauses[0]).toBeGreaterThan(0);
      expect(pauses[1]).toBeGreaterThan(pauses[0]!);
      expect(pauses[2]).toBeGreaterThan(pauses[1]!);
      expect(Math.max(...pauses)).toBeLessThan(LOGIN_LIMITS.account.windowMs / 1000);
      expect((await login(other.account.email, other.account.password)).statusCode).toBe(200);
      ctx.clock.advance(LOGIN_LIMITS.account.windowMs + 1);
      expect((await login(victim.account.email, victim.account.password)).statusCode).toBe(200);
    });

    it('evaluates no more guesses than the account limit in any 15 minutes, however they are timed', async () => {
      const { account } = await register(ctx.app);
      const from = newAddress();
      const guess = (password: string) =>
        ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login/email', payload: { email: account.email, password }, remoteAddress: from });
      const burst = async () => (await Promise.all(Array.from({ length: 30 }, (_, i) => guess(`Wrong-guess-${i}-x`)))).filter((r) => r.statusCode === 401).length;
      expect((await guess('Wrong-password-123')).statusCode).toBe(401);
      // A burst just before the first guess is 15 minutes old, and another once its pause is over.
      ctx.clock.advance(LOGIN_LIMITS.account.windowMs - 1000);
      const before = await burst();
      ctx.clock.advance(Math.max(...LOGIN_PAUSES_MS) + 1000);
      const after = await burst();
      // The two bursts lie within 15 minutes of each other (the first guess no longer does).
      expect(before).toBeGreaterThan(0);
      expect(before + after).toBeLessThanOrEqual(LOGIN_LIMITS.account.max);
    });

    it('lets the owner in with a few typos, and a reset lifts the pause at once', async () => {
      const { account } = await register(ctx.app);
      for (let i = 0; i < 2; i++) expect((await login(account.email, `Typo-${account.password}`)).statusCode).toBe(401);
      expect((await login(account.email, account.password)).statusCode).toBe(200);
      while ((await login(account.email, 'Wrong-password-123')).statusCode === 401);
      expect((await login(account.email, account.password)).statusCode).toBe(429);
      await post(ctx.app, '/api/v1/auth/password-reset-request', { email: account.email });
      const token = new URL(/https?:\/\/\S+/.exec((await ctx.mail.latestTo(account.email, 'password_reset')).text)![0]).searchParams.get('token')!;
      expect((await post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: 'After-the-pause-1' })).statusCode).toBe(204);
      expect((await login(account.email, 'After-the-pause-1')).statusCode).toBe(200);
    });
  });

  describe('refresh', () => {
    it('rotates the pair on every use', async () => {
      const session = await register(ctx.app);
      const first = await refresh(session.refresh_token);
      expect(first.statusCode).toBe(200);
      const pair = first.json();
      expect(pair.refresh_token).not.toBe(session.refresh_token);
      // Issued in the same instant as the first, the new access token is still a different one.
      expect(pair.access_token).not.toBe(session.access_token);
      expect((await me(pair.access_token)).statusCode).toBe(200);
      const second = await refresh(pair.refresh_token);
      expect(second.statusCode).toBe(200);
      expect(second.json().refresh_token).not.toBe(pair.refresh_token);
    });

    it('gives five parallel refreshes of one token the same successor and keeps the session', async () => {
      const session = await register(ctx.app);
      const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(session.refresh_token)));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      const successors = new Set(answers.map((r) => r.json().refresh_token));
      expect(successors.size).toBe(1);
      const next = await refresh([...successors][0]);
      expect(next.statusCode).toBe(200);
      expect((await me(next.json().access_token)).statusCode).toBe(200);
    });

    it('revokes the whole session when a rotated token is used after the grace window', async () => {
      const session = await register(ctx.app);
      const rotated = (await refresh(session.refresh_token)).json();
      ctx.clock.advance(REFRESH_GRACE_MS + 1);
      const reuse = await refresh(session.refresh_token);
      expect(reuse.statusCode).toBe(401);
      expect(reuse.json().error.code).toBe('refresh_token_reused');
      expect((await refresh(rotated.refresh_token)).statusCode).toBe(401);
      expect((await me(rotated.access_token)).statusCode).toBe(401);
    });

    it('revokes the session when an older token comes back even inside the window', async () => {
      const session = await register(ctx.app);
      const second = (await refresh(session.refresh_token)).json();
      await refresh(second.refresh_token);
      const reuse = await refresh(session.refresh_token);
      expect(reuse.json().error.code).toBe('refresh_token_reused');
    });

    it('refuses an unknown token and ends sessions after 30 days whatever the rotation', async () => {
      expect((await refresh('made-up-token')).json().error.code).toBe('invalid_refresh_token');
      let token = (await register(ctx.app)).refresh_token;
      for (let day = 0; day < 3; day++) {
        ctx.clock.advance(14 * 24 * 60 * MINUTE);
        const res = await refresh(token);
        if (day < 2) {
          expect(res.statusCode).toBe(200);
          token = res.json().refresh_token;
        } else {
          expect(res.statusCode).toBe(401);
        }
      }
    });
  });

  describe('access tokens', () => {
    it('refuses expired, tampered, alg:none, wrong-key and refresh tokens', async () => {
      const session = await register(ctx.app);
      const [header, payload, signature] = session.access_token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
      const none = [
        Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url'),
        payload,
        '',
      ].join('.');
      const wrongKey = createSigner({ key: 'k'.repeat(64), algorithm: 'HS256' })(claims);
      const cases = {
        tampered: `${header}.${forged}.${signature}`,
        none,
        wrongKey,
        refresh: session.refresh_token,
        garbage: 'not.a.token',
      };
      for (const [name, token] of Object.entries(cases)) {
        const res = await me(token);
        expect([name, res.statusCode]).toEqual([name, 401]);
        expect(res.json().error).toEqual({ code: expect.any(String), message: expect.any(String) });
      }
      expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me' })).json().error.code).toBe('missing_token');
      expect((await me(session.access_token)).statusCode).toBe(200);
      ctx.clock.advance(15 * MINUTE + 1000);
      expect((await me(session.access_token)).json().error.code).toBe('invalid_token');
    });
  });

  describe('logout', () => {
    it('revokes the session: its access token and refresh token both stop working', async () => {
      const session = await register(ctx.app);
      const other = await post(ctx.app, '/api/v1/auth/login/email', {
        email: session.account.email,
        password: session.account.password,
      });
      const res = await post(ctx.app, '/api/v1/auth/logout', undefined, bearer(session.access_token));
      expect(res.statusCode).toBe(204);
      expect((await me(session.access_token)).statusCode).toBe(401);
      expect((await refresh(session.refresh_token)).statusCode).toBe(401);
      expect((await me(other.json().access_token)).statusCode).toBe(200);
    });
  });

  describe('profile', () => {
    it('changes the full name and username only', async () => {
      const session = await register(ctx.app);
      const put = (body: object) =>
        ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(session.access_token), payload: body });
      const changed = await put({ full_name: '  Grace Hopper ', username: 'grace.h' + Date.now() % 1000 });
      expect(changed.statusCode).toBe(200);
      expect(changed.json().full_name).toBe('Grace Hopper');
      for (const body of [{ email: 'x@y.co' }, { subscription_plan: 'team' }, { id: 'x' }, {}]) {
        const res = await put(body);
        expect(res.statusCode).toBe(400);
      }
      expect((await me(session.access_token)).json()).toMatchObject({ email: session.account.email, subscription_plan: 'free' });
      const other = await register(ctx.app);
      expect((await put({ username: other.account.username.toUpperCase() })).json().error.code).toBe('username_taken');
    });
  });

  describe('password change', () => {
    it('checks the current password, revokes every other session, keeps this one and mails a notice', async () => {
      const session = await register(ctx.app);
      const other = (await login(session.account.email, session.account.password)).json();
      const change = (current: string, next: string) =>
        ctx.app.inject({
          method: 'PUT',
          url: '/api/v1/users/me/password',
          headers: bearer(session.access_token),
          payload: { current_password: current, new_password: next },
        });
      const wrong = await change('Not-my-password-1', 'Brand-new-secret-42');
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().error.code).toBe('invalid_current_password');
      expect((await change(session.account.password, 'short')).json().error.code).toBe('password_too_short');

      expect((await change(session.account.password, 'Brand-new-secret-42')).statusCode).toBe(204);
      expect((await me(session.access_token)).statusCode).toBe(200);
      expect((await me(other.access_token)).statusCode).toBe(401);
      expect((await refresh(other.refresh_token)).statusCode).toBe(401);
      expect((await login(session.account.email, session.account.password)).statusCode).toBe(401);
      expect((await login(session.account.email, 'Brand-new-secret-42')).statusCode).toBe(200);
      expect((await ctx.mail.latestTo(session.account.email, 'password_changed')).subject).toMatch(/password was changed/);
    });

    it('refuses the current password as the new one, and then signs out no other device', async () => {
      const session = await register(ctx.app);
      const other = (await login(session.account.email, session.account.password)).json();
      const same = await ctx.app.inject({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        headers: bearer(session.access_token),
        payload: { current_password: session.account.password, new_password: session.account.password },
      });
      expect(same.statusCode).toBe(400);
      expect(same.json()).toEqual({
        error: { code: 'password_unchanged', message: 'The new password must differ from the current one.', field: 'new_password' },
      });
      expect((await me(other.access_token)).statusCode).toBe(200);
      expect((await refresh(other.refresh_token)).statusCode).toBe(200);
      const doc = ctx.app.swagger() as { paths: Record<string, { put: { responses: Record<string, { description: string }> } }> };
      expect(doc.paths['/api/v1/users/me/password']!.put.responses['400']!.description).toContain('password_unchanged');
    });
  });

  describe('password reset', () => {
    const tokenFrom = (text: string) => new URL(/https?:\/\/\S+/.exec(text)![0]).searchParams.get('token')!;

    it('answers known and unknown emails identically, and mails a one-hour single-use link', async () => {
      const session = await register(ctx.app);
      const known = await post(ctx.app, '/api/v1/auth/password-reset-request', { email: session.account.email });
      const unknown = await post(ctx.app, '/api/v1/auth/password-reset-request', { email: `ghost-${Date.now()}@example.com` });
      expect(known.statusCode).toBe(202);
      expect(unknown.statusCode).toBe(202);
      expect(known.body).toBe(unknown.body);
      expect(known.json()).toEqual(RESET_REQUESTED);

      const mail = await ctx.mail.latestTo(session.account.email, 'password_reset');
      expect(mail.text).toContain(`${ctx.config.publicUrl}/reset-password?token=`);
      const token = tokenFrom(mail.text);
      const reset = await post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: 'Reset-secret-2026' });
      expect(reset.statusCode).toBe(204);
      expect((await me(session.access_token)).statusCode).toBe(401);
      expect((await login(session.account.email, 'Reset-secret-2026')).statusCode).toBe(200);
      const again = await post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: 'Another-secret-2026' });
      expect(again.statusCode).toBe(400);
      expect(again.json().error.code).toBe('invalid_reset_token');
    });

    it('refuses an expired or unknown token', async () => {
      const session = await register(ctx.app);
      await post(ctx.app, '/api/v1/auth/password-reset-request', { email: session.account.email });
      const token = tokenFrom((await ctx.mail.latestTo(session.account.email, 'password_reset')).text);
      ctx.clock.advance(60 * MINUTE + 1);
      const expired = await post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: 'Reset-secret-2026' });
      expect(expired.json().error.code).toBe('invalid_reset_token');
      const unknown = await post(ctx.app, '/api/v1/auth/password-reset', { token: 'nope', new_password: 'Reset-secret-2026' });
      expect(unknown.json().error.code).toBe('invalid_reset_token');
      expect((await login(session.account.email, session.account.password)).statusCode).toBe(200);
    });

    it('voids the other outstanding links when one is used, and every link when the password is changed', async () => {
      const reset = (token: string, password: string) => post(ctx.app, '/api/v1/auth/password-reset', { token, new_password: password });
      const requestLink = async (email: string) => {
        const before = ctx.mail.sent.length;
        expect((await post(ctx.app, '/api/v1/auth/password-reset-request', { email })).statusCode).toBe(202);
        for (let i = 0; i < 50 && ctx.mail.sent.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return tokenFrom((await ctx.mail.latestTo(email, 'password_reset')).text);
      };
      const first = await register(ctx.app);
      const [one, sibling] = [await requestLink(first.account.email), await requestLink(first.account.email)];
      expect(one).not.toBe(sibling);
      expect((await reset(one, 'Reset-secret-2026')).statusCode).toBe(204);
      const late = await reset(sibling, 'Sibling-secret-2026');
      expect(late.statusCode).toBe(400);
      expect(late.json().error.code).toBe('invalid_reset_token');
      expect((await login(first.account.email, 'Reset-secret-2026')).statusCode).toBe(200);

      const second = await register(ctx.app);
      const early = await requestLink(second.account.email);
      const changed = await ctx.app.inject({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        headers: bearer(second.access_token),
        payload: { current_password: second.account.password, new_password: 'Changed-secret-2026' },
      });
      expect(changed.statusCode).toBe(204);
      expect((await reset(early, 'Old-link-secret-2026')).json().error.code).toBe('invalid_reset_token');
      expect((await login(second.account.email, 'Changed-secret-2026')).statusCode).toBe(200);
    });

    it('limits reset requests per account with 429', async () => {
      const { account } = await register(ctx.app);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await post(ctx.app, '/api/v1/auth/password-reset-request', { email: account.email })).statusCode);
      }
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    });
  });

  describe('logs', () => {
    it('record sign-ins with user id and IP but never a password, token or reset link', async () => {
      const session = await register(ctx.app);
      await login(session.account.email, session.account.password);
      await login(session.account.email, 'Wrong-password-123');
      const rotated = (await refresh(session.refresh_token)).json();
      await post(ctx.app, '/api/v1/auth/password-reset-request', { email: session.account.email });
      const resetToken = new URL(/https?:\/\/\S+/.exec((await ctx.mail.latestTo(session.account.email, 'password_reset')).text)![0]).searchParams.get('token')!;
      await ctx.app.inject({ method: 'GET', url: `/reset-password?token=${resetToken}` });
      const logs = ctx.logs();
      expect(logs).toContain(`"userId":"${session.user.id}"`);
      expect(logs).toMatch(/"event":"auth.login_failed"/);
      for (const secret of [session.account.password, 'Wrong-password-123', session.access_token, session.refresh_token, rotated.refresh_token, rotated.access_token, resetToken]) {
        expect(logs).not.toContain(secret);
      }
    });
  });
});
