import type { FastifyInstance } from 'fastify';
import { API_KEY_CREATE_LIMIT } from '../../server/routes/apiKeys';
import { tally } from '../helpers/addon';
import { eventually } from '../helpers/eventually';
import { bearer, ENGINES, post, register, useTestApp } from '../helpers/testApp';

/** Personal API keys and the profile's "Sessions and devices", as a client sees them, on both engines. */

jest.setTimeout(60_000);

const KEY = /^sm_live_[0-9A-Za-z]{38}$/;
const sample = [
  ['Region', 'Revenue'],
  ['North', 120],
  ['South', 80],
];

function call(app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) {
  return app.inject({ method, url: `/api/v1${url}`, headers: { ...bearer(token), ...headers }, ...(payload ? { payload } : {}) });
}

describe.each(ENGINES)('API keys on %s', (engine) => {
  const ctx = useTestApp(engine);

  const createKey = async (token: string, body: object) => {
    const res = await call(ctx.app, token, 'POST', '/api-keys', body);
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  it('shows a new key once, then lists it by name, prefix, last four, scopes and dates, never the secret', async () => {
    const person = await register(ctx.app);
    const created = await createKey(person.access_token, { name: 'Reporting script', scopes: ['query', 'usage:read'], expires_in_days: 90 });
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(KEY),
      name: 'Reporting script',
      prefix: created.key.slice(0, 12),
      last4: created.key.slice(-4),
      scopes: ['query', 'usage:read'],
      created_at: new Date(ctx.clock.now()).toISOString(),
      expires_at: new Date(ctx.clock.now() + 90 * 86_400_000).toISOString(),
      last_used_at: null,
    });
    const list = await call(ctx.app, person.access_token, 'GET', '/api-keys');
    expect(list.json()).toEqual({ api_keys: [{ ...created, key: undefined }].map(({ key: _key, ...rest }) => rest) });
    expect(list.body).not.toContain(created.key.slice(12, -4));
    const stored = await ctx.app.database.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(created.key);
  });

  it('works only where its scopes allow: 403 insufficient_scope elsewhere, never on account, billing, key or session calls', async () => {
    const person = await register(ctx.app);
    const reader = (await createKey(person.access_token, { name: 'Reader', scopes: ['usage:read'] })).key;
    const querier = (await createKey(person.access_token, { name: 'Querier', scopes: ['query'] })).key;

    const asked = await call(ctx.app, querier, 'POST', '/query', { task: 'analyze', prompt: 'Summarise', data: sample });
    expect(asked.statusCode).toBe(200);
    expect(asked.json().usage.monthly_queries).toBe(1);
    expect((await call(ctx.app, reader, 'GET', '/query/usage')).json()).toMatchObject({ monthly_queries: 1 });
    expect((await call(ctx.app, reader, 'GET', '/query/usage/daily')).statusCode).toBe(200);

    const refused: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?]> = [
      [reader, 'POST', '/query', { task: 'analyze', prompt: 'x' }],
      [querier, 'GET', '/query/usage'],
      [querier, 'GET', '/users/me'],
      [querier, 'PUT', '/users/me', { full_name: 'Mallory' }],
      [querier, 'PUT', '/users/me/password', { current_password: person.account.password, new_password: 'Another-secret-9' }],
      [querier, 'GET', '/subscription/me'],
      [querier, 'POST', '/subscription/checkout', { plan: 'professional' }],
      [querier, 'GET', '/api-keys'],
      [querier, 'POST', '/api-keys', { name: 'Escalate', scopes: ['query', 'usage:read'] }],
      [querier, 'DELETE', `/api-keys/${'0'.repeat(8)}`],
      [querier, 'GET', '/sessions'],
      [querier, 'POST', '/sessions/end-others'],
      [querier, 'POST', '/auth/logout'],
      [querier, 'POST', '/oauth/device/approve', { user_code: 'BCDF-GHJK' }],
    ];
    for (const [key, method, url, payload] of refused) {
      const res = await call(ctx.app, key, method, url, payload);
      expect([method, url, res.statusCode]).toEqual([method, url, 403]);
      expect(res.json()).toMatchObject({ error: { code: 'insufficient_scope' } });
    }
  });

  it('stops a revoked key at its next request, and an expired one when it expires', async () => {
    const person = await register(ctx.app);
    const revoked = await createKey(person.access_token, { name: 'Old', scopes: ['usage:read'] });
    const expiring = await createKey(person.access_token, { name: 'Month', scopes: ['usage:read'], expires_in_days: 30 });
    expect((await call(ctx.app, revoked.key, 'GET', '/query/usage')).statusCode).toBe(200);
    expect((await call(ctx.app, person.access_token, 'DELETE', `/api-keys/${revoked.id}`)).statusCode).toBe(204);
    const after = await call(ctx.app, revoked.key, 'GET', '/query/usage');
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ error: { code: 'api_key_revoked' } });

    ctx.clock.advance(30 * 86_400_000);
    const expired = await call(ctx.app, expiring.key, 'GET', '/query/usage');
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ error: { code: 'api_key_expired' } });
    const signedIn = await post(ctx.app, '/api/v1/auth/login/email', { email: person.account.email, password: person.account.password });
    expect((await call(ctx.app, signedIn.json().access_token, 'GET', '/api-keys')).json()).toEqual({ api_keys: [] });
  });

  it('refuses a mistyped key without finding it, and a key of another account cannot be revoked', async () => {
    const person = await register(ctx.app);
    const other = await register(ctx.app);
    const created = await createKey(person.access_token, { name: 'Mine', scopes: ['query'] });
    const typo = created.key.slice(0, -1) + (created.key.endsWith('a') ? 'b' : 'a');
    const res = await call(ctx.app, typo, 'GET', '/query/usage');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { code: 'api_key_invalid' } });
    const theirs = await call(ctx.app, other.access_token, 'DELETE', `/api-keys/${created.id}`);
    expect(theirs.statusCode).toBe(404);
    expect((await call(ctx.app, created.key, 'POST', '/query', { task: 'analyze', prompt: 'x', data: sample })).statusCode).toBe(200);
  });

  it('keeps last_used_at to the minute, without a write per request', async () => {
    const person = await register(ctx.app);
    const created = await createKey(person.access_token, { name: 'Busy', scopes: ['usage:read'] });
    const usedAt = ctx.clock.now();
    await Promise.all(Array.from({ length: 5 }, () => call(ctx.app, created.key, 'GET', '/query/usage')));
    // The use is written just after the answer: read until it shows the time expected.
    const lastUsed = async () => (await call(ctx.app, person.access_token, 'GET', '/api-keys')).json().api_keys[0].last_used_at as string | null;
    await eventually(lastUsed, new Date(usedAt).toISOString());
    ctx.clock.advance(30_000);
    await call(ctx.app, created.key, 'GET', '/query/usage');
    expect(await lastUsed()).toBe(new Date(usedAt).toISOString());
    ctx.clock.advance(30_000);
    // Written a minute after the last write: had the use 30 s ago been written, this one would not be.
    await call(ctx.app, created.key, 'GET', '/query/usage');
    await eventually(lastUsed, new Date(usedAt + 60_000).toISOString());
  });

  it('records which credential made each query: the web session, or the key by its id', async () => {
    const person = await register(ctx.app);
    const created = await createKey(person.access_token, { name: 'Script', scopes: ['query'] });
    const byKey = await call(ctx.app, created.key, 'POST', '/query', { task: 'analyze', prompt: 'x', data: sample });
    const byWeb = await call(ctx.app, person.access_token, 'POST', '/query', { task: 'analyze', prompt: 'y', data: sample });
    const session = (await call(ctx.app, person.access_token, 'GET', '/sessions')).json().sessions[0];
    const rows = await ctx.app.database.db
      .selectFrom('usage_ledger')
      .select(['request_id', 'credential_kind', 'credential_id'])
      .where('user_id', '=', person.user.id)
      .execute();
    expect(rows).toEqual(
      expect.arrayContaining([
        { request_id: byKey.json().request_id, credential_kind: 'key', credential_id: created.id },
        { request_id: byWeb.json().request_id, credential_kind: 'web', credential_id: session.id },
      ]),
    );
  });

  it('answers bad input with 400 naming the field', async () => {
    const person = await register(ctx.app);
    for (const [body, field] of [
      [{ scopes: ['query'] }, 'name'],
      [{ name: '   ', scopes: ['query'] }, 'name'],
      [{ name: 'x'.repeat(101), scopes: ['query'] }, 'name'],
      [{ name: 'k', scopes: [] }, 'scopes'],
      [{ name: 'k', scopes: ['admin'] }, 'scopes.0'],
      [{ name: 'k', scopes: ['query', 'query'] }, 'scopes'],
      [{ name: 'k', scopes: ['query'], expires_in_days: 7 }, 'expires_in_days'],
    ] as const) {
      const res = await call(ctx.app, person.access_token, 'POST', '/api-keys', body);
      expect([JSON.stringify(body), res.statusCode, res.json().error.field]).toEqual([JSON.stringify(body), 400, field]);
    }
  });

  it('creates no more keys at once than the limit', async () => {
    const person = await register(ctx.app);
    const answers = await Promise.all(
      Array.from({ length: API_KEY_CREATE_LIMIT.max + 5 }, (_, i) => call(ctx.app, person.access_token, 'POST', '/api-keys', { name: `k${i}`, scopes: ['query'] })),
    );
    expect(tally(answers)).toEqual({ 201: API_KEY_CREATE_LIMIT.max, 429: 5 });
    expect((await call(ctx.app, person.access_token, 'GET', '/api-keys')).json().api_keys).toHaveLength(API_KEY_CREATE_LIMIT.max);
  });
});

describe.each(ENGINES)('sessions and devices on %s', (engine) => {
  const ctx = useTestApp(engine);

  const signIn = (email: string, password: string, userAgent: string, remoteAddress: string) =>
    ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login/email', payload: { email, password }, headers: { 'user-agent': userAgent }, remoteAddress });

  it('lists every live session with kind, client, dates, address and browser, the current one marked', async () => {
    const person = await register(ctx.app);
    const phone = (await signIn(person.account.email, person.account.password, 'Mozilla/5.0 (iPhone)', '10.9.9.9')).json();
    const res = await call(ctx.app, phone.access_token, 'GET', '/sessions');
    expect(res.statusCode).toBe(200);
    const { sessions } = res.json();
    expect(sessions).toHaveLength(2);
    expect(sessions.find((s: { current: boolean }) => s.current)).toMatchObject({
      kind: 'web',
      client: null,
      ip: '10.9.9.9',
      user_agent: 'Mozilla/5.0 (iPhone)',
      created_at: new Date(ctx.clock.now()).toISOString(),
    });
    expect(sessions.filter((s: { current: boolean }) => !s.current)).toHaveLength(1);
  });

  it('ends another session at its next request, and "sign out everywhere else" ends all but this one', async () => {
    const person = await register(ctx.app);
    const laptop = (await signIn(person.account.email, person.account.password, 'Laptop', '10.9.9.1')).json();
    const tablet = (await signIn(person.account.email, person.account.password, 'Tablet', '10.9.9.2')).json();
    const list = (await call(ctx.app, person.access_token, 'GET', '/sessions')).json().sessions;
    const laptopSession = list.find((s: { user_agent: string }) => s.user_agent === 'Laptop');
    expect((await call(ctx.app, person.access_token, 'DELETE', `/sessions/${laptopSession.id}`)).statusCode).toBe(204);
    expect((await call(ctx.app, laptop.access_token, 'GET', '/users/me')).statusCode).toBe(401);
    expect((await call(ctx.app, tablet.access_token, 'GET', '/users/me')).statusCode).toBe(200);
    // Already ended: nothing to end.
    const again = await call(ctx.app, person.access_token, 'DELETE', `/sessions/${laptopSession.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ error: { code: 'session_not_found' } });

    const ended = await call(ctx.app, person.access_token, 'POST', '/sessions/end-others');
    expect(ended.json()).toEqual({ ended: 1 });
    expect((await call(ctx.app, tablet.access_token, 'GET', '/users/me')).statusCode).toBe(401);
    expect((await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: tablet.refresh_token })).statusCode).toBe(401);
    expect((await call(ctx.app, person.access_token, 'GET', '/sessions')).json().sessions).toHaveLength(1);
  });

  it("cannot end another account's session", async () => {
    const person = await register(ctx.app);
    const other = await register(ctx.app);
    const theirs = (await call(ctx.app, other.access_token, 'GET', '/sessions')).json().sessions[0];
    expect((await call(ctx.app, person.access_token, 'DELETE', `/sessions/${theirs.id}`)).statusCode).toBe(404);
    expect((await call(ctx.app, other.access_token, 'GET', '/users/me')).statusCode).toBe(200);
  });
});
