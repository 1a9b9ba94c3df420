import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { SoftAuthenticator } from '../helpers/softAuthenticator';
import { join, teamOwner, type Account } from '../helpers/teams';
import { bearer, ENGINES, post, register, useSecondInstance, useTestApp } from '../helpers/testApp';

/**
 * The team's security policy (decisions.md, "Team security policy"), on both engines: admins set
 * it; while two-step sign-in is required a member without a second factor may only set one up, see
 * the profile, sign out and leave, and works on in the same session once they have one; a session
 * older than the team allows ends. Set on one instance, it holds on the other from the next call.
 */

jest.setTimeout(90_000);

function call(app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: object) {
  return app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
}

describe.each(ENGINES)('the team security policy on %s', (engine) => {
  const ctx = useTestApp(engine);
  const other = useSecondInstance(ctx);

  async function team() {
    const owner = await teamOwner(ctx);
    const admin = await register(ctx.app);
    const member = await register(ctx.app);
    await join(ctx, owner, admin, 'admin');
    await join(ctx, owner, member);
    return { owner, admin, member };
  }

  const setPolicy = (who: Account, body: object, app = ctx.app) => call(app, who.access_token, 'PATCH', '/teams/me/security', body);

  /** Turns on an authenticator app for `who`, with a code made as a phone makes it. */
  async function withApp(who: Account, app = ctx.app) {
    const { secret } = (await call(app, who.access_token, 'POST', '/mfa/totp/setup')).json();
    const code = TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: ctx.clock.now() });
    expect((await call(app, who.access_token, 'POST', '/mfa/totp/confirm', { code })).statusCode).toBe(200);
  }

  it('is set by admins only, within 1 to 720 hours, shown on the team and recorded in the audit log', async () => {
    const { owner, admin, member } = await team();
    expect((await setPolicy(member, { require_two_factor: true })).json().error.code).toBe('forbidden');
    for (const hours of [0, 721, 1.5]) expect((await setPolicy(admin, { session_max_age_hours: hours })).statusCode).toBe(400);
    expect((await setPolicy(admin, {})).statusCode).toBe(400);
    // An admin without a second factor cannot lock the team, themselves included, out.
    const unprotected = await setPolicy(admin, { require_two_factor: true });
    expect(unprotected.statusCode).toBe(403);
    expect(unprotected.json().error.code).toBe('two_factor_required');
    await withApp(admin);
    await withApp(owner);
    const set = await setPolicy(admin, { require_two_factor: true, session_max_age_hours: 12 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ require_two_factor: true, session_max_age_hours: 12 });
    expect((await call(ctx.app, owner.access_token, 'GET', '/teams/me')).json().team).toMatchObject({ require_two_factor: true, session_max_age_hours: 12 });
    expect((await setPolicy(owner, { session_max_age_hours: null })).json().session_max_age_hours).toBeNull();
    const log = (await call(ctx.app, owner.access_token, 'GET', '/teams/me/audit-log')).json();
    const actions = log.events.map((e: { action: string; target: { detail: string | null } | null }) => `${e.action}: ${e.target?.detail}`);
    expect(actions).toEqual(expect.arrayContaining(['team.two_factor_policy_changed: required', 'team.session_policy_changed: 12 hours', 'team.session_policy_changed: no limit']));
  });

  it('holds a member without a second factor to setting one up, the profile, signing out and leaving, on the other instance from the next call', async () => {
    const { owner, admin, member } = await team();
    await withApp(owner);
    expect((await call(other.current, member.access_token, 'GET', '/query/usage')).statusCode).toBe(200);
    expect((await setPolicy(owner, { require_two_factor: true })).statusCode).toBe(200);
    // Sent at once, on the instance that did not make the change: every one is refused.
    const refused = await Promise.all(['/query/usage', '/subscription/me', '/teams/me/members', '/api-keys', '/functions'].map((url) => call(other.current, member.access_token, 'GET', url)));
    for (const res of refused) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('two_factor_required');
    }
    const me = await call(other.current, member.access_token, 'GET', '/users/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().two_factor_required).toBe(true);
    expect((await call(other.current, member.access_token, 'GET', '/teams/me')).statusCode).toBe(200);
    // An admin with no second factor is held too: the policy is the team's.
    expect((await call(other.current, admin.access_token, 'GET', '/teams/me/members')).json().error.code).toBe('two_factor_required');

    // The member sets up an app in the session they are in, which works on at once.
    await withApp(member);
    expect((await call(other.current, member.access_token, 'GET', '/query/usage')).statusCode).toBe(200);
    expect((await call(other.current, member.access_token, 'GET', '/users/me')).json().two_factor_required).toBe(false);
    const members = (await call(ctx.app, member.access_token, 'GET', '/teams/me/members')).json().members as Array<{ user_id: string; second_factor: string | null }>;
    expect(members.find((m) => m.user_id === member.user.id)?.second_factor).toBe('authenticator_app');

    // Turned off again: held again. An admin sees each member's status.
    await setPolicy(owner, { require_two_factor: false });
    const seen = (await call(ctx.app, owner.access_token, 'GET', '/teams/me/members')).json().members as Array<{ user_id: string; second_factor: string | null }>;
    expect(Object.fromEntries(seen.map((m) => [m.user_id, m.second_factor]))).toEqual({ [owner.user.id]: 'authenticator_app', [admin.user.id]: 'none', [member.user.id]: 'authenticator_app' });
  });

  it("refuses an API key of a member without a second factor, and lets them leave", async () => {
    const { owner, member } = await team();
    const key = (await call(ctx.app, member.access_token, 'POST', '/api-keys', { name: 'Script', scopes: ['usage:read'] })).json().key as string;
    await withApp(owner);
    expect((await setPolicy(owner, { require_two_factor: true })).statusCode).toBe(200);
    const byKey = await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(key) });
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json().error.code).toBe('two_factor_required');
    // Removing someone else is no way out; leaving is.
    expect((await call(ctx.app, member.access_token, 'DELETE', `/teams/me/members/${owner.user.id}`)).json().error.code).toBe('two_factor_required');
    expect((await call(ctx.app, member.access_token, 'DELETE', `/teams/me/members/${member.user.id}`)).statusCode).toBe(204);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('lets a held member on as soon as they add a passkey, on the other instance from the next call', async () => {
    const { owner, member } = await team();
    await withApp(owner);
    await setPolicy(owner, { require_two_factor: true });
    expect((await call(other.current, member.access_token, 'GET', '/query/usage')).statusCode).toBe(403);
    const options = await call(ctx.app, member.access_token, 'POST', '/webauthn/register/options');
    const credential = new SoftAuthenticator(ctx.config.publicUrl).register(options.json());
    expect((await call(ctx.app, member.access_token, 'POST', '/webauthn/register', { credential, name: 'Phone' })).statusCode).toBe(201);
    expect((await call(other.current, member.access_token, 'GET', '/query/usage')).statusCode).toBe(200);
    const seen = (await call(ctx.app, owner.access_token, 'GET', '/teams/me/members')).json().members as Array<{ user_id: string; second_factor: string }>;
    expect(seen.find((m) => m.user_id === member.user.id)?.second_factor).toBe('passkey');
  });

  it("ends a member's session once it is older than the team allows, on either instance, and its refresh with it", async () => {
    const { owner, member } = await team();
    await setPolicy(owner, { session_max_age_hours: 2 });
    ctx.clock.advance(2 * 3_600_000 - 5 * 60_000);
    // The access token has expired meanwhile; the refresh keeps the session and its sign-in time.
    const refreshed = await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: member.refresh_token });
    expect(refreshed.statusCode).toBe(200);
    const { access_token, refresh_token } = refreshed.json();
    expect((await call(other.current, access_token, 'GET', '/users/me')).statusCode).toBe(200);
    ctx.clock.advance(6 * 60_000);
    const ended = await call(other.current, access_token, 'GET', '/users/me');
    expect(ended.statusCode).toBe(401);
    expect(ended.json().error).toMatchObject({ code: 'session_revoked', message: expect.stringContaining('every 2 hours') });
    expect((await post(ctx.app, '/api/v1/auth/refresh', { refresh_token })).statusCode).toBe(401);
    // A new sign-in starts a new session.
    const again = await post(ctx.app, '/api/v1/auth/login/email', { email: member.account.email, password: member.account.password });
    expect((await call(ctx.app, again.json().access_token, 'GET', '/users/me')).statusCode).toBe(200);
  });
});
