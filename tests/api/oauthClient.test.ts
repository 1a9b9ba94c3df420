import type { FastifyInstance } from 'fastify';
import * as client from 'openid-client';
import { DEVICE_GRANT_TYPE } from '../../server/routes/oauth';
import { askForCode, form, link, poll } from '../helpers/addon';
import { freePort } from '../helpers/server';
import { bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

/**
 * The add-on's sign-in as a standard OAuth client library (openid-client, which nobody here wrote)
 * does it against the listening server: discovery (RFC 8414), the device grant (RFC 8628), refresh
 * (RFC 6749 §6), revocation (RFC 7009), and the `WWW-Authenticate` of a refused token (RFC 6750 §3).
 */

jest.setTimeout(60_000);

describe.each(ENGINES)('a standard OAuth client on %s', (engine) => {
  // The issuer is PUBLIC_URL, which must be the address the client discovers: the port is chosen first.
  const env: Record<string, string> = { DEVICE_POLL_INTERVAL_S: '1' };
  beforeAll(async () => {
    env.PUBLIC_URL = `http://127.0.0.1:${await freePort()}`;
  });
  const ctx = useTestApp(engine, { env });
  let config: client.Configuration;
  beforeAll(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: Number(new URL(env.PUBLIC_URL!).port) });
    // Plain http is allowed for this loopback server only, by the library's documented option.
    config = await client.discovery(new URL(env.PUBLIC_URL!), 'sheetmind-addon', undefined, client.None(), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
  });

  /** Device sign-in through the library, approved by a fresh account at /link. */
  async function signIn() {
    const person = await register(ctx.app);
    const codes = await client.initiateDeviceAuthorization(config, { scope: 'query usage:read' });
    expect((await link(ctx.app, person.access_token, 'approve', codes.user_code)).statusCode).toBe(200);
    return client.pollDeviceAuthorizationGrant(config, codes);
  }

  const usage = (token: string) => usageWith(ctx.app, token);

  it('discovers the server: issuer PUBLIC_URL, the three endpoints, both grants, no client secret, the scopes', async () => {
    const base = `${env.PUBLIC_URL}/api/v1/oauth`;
    expect(config.serverMetadata()).toMatchObject({
      issuer: env.PUBLIC_URL,
      device_authorization_endpoint: `${base}/device_authorization`,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/revoke`,
      grant_types_supported: [DEVICE_GRANT_TYPE, 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['query', 'usage:read'],
    });
    // The metadata is in the OpenAPI document too (inject checks the answer against it).
    expect((await ctx.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).statusCode).toBe(200);
  });

  it('runs the device grant, then refreshes with rotation; a rotated token used again ends the session', async () => {
    const tokens = await signIn();
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'query usage:read', expires_in: 900 });
    expect((await usage(tokens.access_token)).statusCode).toBe(200);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.scope).toBe('query usage:read');
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await usage(refreshed.access_token)).statusCode).toBe(200);

    // Past the grace window, the first token again is a copy: refused, and the whole session ends.
    ctx.clock.advance(11_000);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const ended = await usage(refreshed.access_token);
    expect(ended.statusCode).toBe(401);
    expect(ended.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('revokes by refresh token or by access token, and answers 200 for a token it never issued', async () => {
    const byRefresh = await signIn();
    await client.tokenRevocation(config, byRefresh.refresh_token!, { token_type_hint: 'refresh_token' });
    expect((await usage(byRefresh.access_token)).statusCode).toBe(401);
    await expect(client.refreshTokenGrant(config, byRefresh.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    const byAccess = await signIn();
    await client.tokenRevocation(config, byAccess.access_token);
    expect((await usage(byAccess.access_token)).statusCode).toBe(401);

    await expect(client.tokenRevocation(config, 'never-issued')).resolves.toBeUndefined();
  });
});

describe.each(ENGINES)('the token and revocation endpoints on %s', (engine) => {
  const ctx = useTestApp(engine);

  it("refuses a web session's refresh token at the OAuth token endpoint untouched, and refuses widening the scope", async () => {
    const person = await register(ctx.app);
    const res = await form(ctx.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: person.refresh_token, client_id: 'sheetmind-addon' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_grant' });
    // Not taken for a reuse: the web session refreshes as before.
    const web = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: person.refresh_token } });
    expect(web.statusCode).toBe(200);

    const codes = await askForCode(ctx.app, { scope: 'usage:read' });
    await link(ctx.app, person.access_token, 'approve', codes.user_code);
    const addon = (await poll(ctx.app, codes.device_code)).json();
    const wider = await form(ctx.app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: addon.refresh_token, client_id: 'sheetmind-addon', scope: 'query usage:read' });
    expect(wider.json()).toMatchObject({ error: 'invalid_scope' });
    // As JSON too, naming the scope granted: the same scope comes back.
    const same = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: addon.refresh_token, client_id: 'sheetmind-addon', scope: 'usage:read' },
    });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ token_type: 'bearer', scope: 'usage:read' });
  });

  it('answers a signed-in call without a token with a bare Bearer challenge, and a bad token with invalid_token', async () => {
    const none = await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const bad = await usageWith(ctx.app, 'not-a-token');
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
    const key = await usageWith(ctx.app, 'sm_live_notakey');
    expect(key.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('takes a JSON revocation as well as a form, and refuses an unknown client', async () => {
    const person = await register(ctx.app);
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/oauth/revoke', payload: { token: person.refresh_token } });
    expect(res.statusCode).toBe(200);
    expect((await usageWith(ctx.app, person.access_token)).statusCode).toBe(401);
    const unknown = await form(ctx.app, '/oauth/revoke', { token: 'x', client_id: 'nobody' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'invalid_client' });
  });
});

/** A call an add-on session may make (usage:read). */
function usageWith(app: FastifyInstance, token: string) {
  return app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(token) });
}
