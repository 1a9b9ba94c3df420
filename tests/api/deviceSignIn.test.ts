import crypto from 'node:crypto';
import { CODES_FREE_OF_ADDRESS, USER_CODE_GUESS_LIMITS } from '../../server/routes/oauth';
import { askForCode, form, link, poll, tally } from '../helpers/addon';
import { bearer, ENGINES, newAddress, post, register, LIMIT_STORES, useTestApp, useTestAppWithStore } from '../helpers/testApp';

/**
 * The add-on's device sign-in (RFC 8628) as a client sees it: the codes, every answer of the token
 * endpoint in RFC 8628 §3.5 and RFC 6749 §5.2, the approval page's calls, the session it gives,
 * and the limit on guessing user codes, on both engines.
 */

jest.setTimeout(60_000);

const CLIENTS = 'sheetmind-addon=SheetMind add-on,other-tool=Other tool';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const sample = [
  ['Region', 'Revenue'],
  ['North', 120],
  ['South', 80],
];

describe.each(ENGINES)('device sign-in on %s', (engine) => {
  const ctx = useTestApp(engine, { env: { OAUTH_CLIENTS: CLIENTS } });

  it('gives a code pair as RFC 8628 §3.2 says, with the user code shown as XXXX-XXXX and no caching', async () => {
    const res = await form(ctx.app, '/oauth/device_authorization', { client_id: 'sheetmind-addon', scope: 'query usage:read' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${ctx.config.publicUrl}/link`,
      verification_uri_complete: `${ctx.config.publicUrl}/link?code=${body.user_code}&key=${new URL(body.verification_uri_complete).searchParams.get('key')}`,
      expires_in: 900,
      interval: 5,
    });
    expect(body.device_code.length).toBeGreaterThanOrEqual(40);
    expect(new URL(body.verification_uri_complete).searchParams.get('key')).toMatch(/^[\w-]{43}$/);
    // The codes are stored only hashed.
    const row = await ctx.app.database.db.selectFrom('device_grants').selectAll().orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(body.device_code);
    expect(JSON.stringify(row)).not.toContain(body.user_code.replace('-', ''));
  });

  it('signs the add-on in: pending, slow_down adding 5 s, approval, tokens that query and refresh, then the code is spent', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app);

    let res = await poll(ctx.app, codes.device_code);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'authorization_pending' });
    // Too soon: the interval grows by 5 s, for this and every later poll.
    res = await poll(ctx.app, codes.device_code);
    expect(res.json()).toEqual({ error: 'slow_down', interval: 10 });
    ctx.clock.advance(5_000);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'slow_down', interval: 15 });
    ctx.clock.advance(15_000);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'authorization_pending' });

    // The person types the code in lower case without the dash; the page names the client, when and where.
    const typed = codes.user_code.replace('-', '').toLowerCase();
    const seen = await link(ctx.app, person.access_token, 'lookup', typed);
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({
      user_code: codes.user_code,
      client_id: 'sheetmind-addon',
      client_name: 'SheetMind add-on',
      scopes: ['query', 'usage:read'],
      ip: '127.0.0.1',
      user_agent: 'Google-Apps-Script',
    });
    expect(Date.parse(seen.json().requested_at)).toBe(ctx.clock.now() - 20_000);
    expect((await link(ctx.app, person.access_token, 'approve', codes.user_code)).statusCode).toBe(200);

    ctx.clock.advance(15_000);
    res = await poll(ctx.app, codes.device_code);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const tokens = res.json();
    expect(tokens).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 900, scope: 'query usage:read' });

    const answer = await ctx.app.inject({ method: 'POST', url: '/api/v1/query', headers: bearer(tokens.access_token), payload: { task: 'analyze', prompt: 'Summarise', data: sample } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().usage.monthly_queries).toBe(1);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(tokens.access_token) })).json()).toMatchObject({ id: person.user.id });

    const refreshed = await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: tokens.refresh_token });
    expect(refreshed.statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(refreshed.json().access_token) })).json()).toMatchObject({ monthly_queries: 1 });

    // Single use: the device code gives tokens once, the user code is spent.
    ctx.clock.advance(15_000);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'invalid_grant' });
    const again = await link(ctx.app, person.access_token, 'lookup', codes.user_code);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'user_code_used' } });
  });

  it('keeps an add-on session to its scopes: never account, billing, key or session calls', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app, { scope: 'usage:read' });
    await link(ctx.app, person.access_token, 'approve', codes.user_code);
    const tokens = (await poll(ctx.app, codes.device_code)).json();
    expect(tokens.scope).toBe('usage:read');
    const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
      ctx.app.inject({ method, url: `/api/v1${url}`, headers: bearer(tokens.access_token), ...(payload ? { payload } : {}) });
    expect((await as('GET', '/query/usage')).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ['POST', '/query', { task: 'analyze', prompt: 'x' }],
      ['PUT', '/users/me', { full_name: 'Mallory' }],
      ['PUT', '/users/me/password', { current_password: person.account.password, new_password: 'Another-secret-9' }],
      ['GET', '/subscription/me', undefined],
      ['POST', '/subscription/checkout', { plan: 'professional' }],
      ['GET', '/api-keys', undefined],
      ['POST', '/api-keys', { name: 'k', scopes: ['query'] }],
      ['GET', '/sessions', undefined],
      ['POST', '/sessions/end-others', undefined],
      ['POST', '/oauth/device/approve', { user_code: 'BCDF-GHJK' }],
    ] as const) {
      const res = await as(method, url, payload);
      expect([url, res.statusCode]).toEqual([url, 403]);
      expect(res.json()).toMatchObject({ error: { code: 'insufficient_scope' } });
    }
    // It may end itself, as "disconnect" in the add-on does.
    expect((await as('POST', '/auth/logout')).statusCode).toBe(204);
    expect((await as('GET', '/query/usage')).statusCode).toBe(401);
  });

  it('answers access_denied once after a denial, then invalid_grant', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app);
    const denied = await link(ctx.app, person.access_token, 'deny', codes.user_code);
    expect(denied.statusCode).toBe(200);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'access_denied' });
    ctx.clock.advance(5_000);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'invalid_grant' });
  });

  it('answers expired_token after 15 minutes, and the page says the code expired', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app);
    ctx.clock.advance(900_000);
    expect((await poll(ctx.app, codes.device_code)).json()).toEqual({ error: 'expired_token' });
    // The person's own access token lasts 15 minutes too: they sign in again.
    const signedIn = await post(ctx.app, '/api/v1/auth/login/email', { email: person.account.email, password: person.account.password });
    const res = await link(ctx.app, signedIn.json().access_token, 'approve', codes.user_code);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ error: { code: 'user_code_expired' } });
  });

  it('answers the RFC 6749 §5.2 errors for bad requests, never a 5xx', async () => {
    const codes = await askForCode(ctx.app);
    const token = (fields: Record<string, string>) => form(ctx.app, '/oauth/token', fields);
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    const cases: Array<[Promise<{ statusCode: number; json(): unknown }>, string]> = [
      [form(ctx.app, '/oauth/device_authorization', { client_id: 'unknown-tool' }), 'invalid_client'],
      [form(ctx.app, '/oauth/device_authorization', {}), 'invalid_request'],
      [form(ctx.app, '/oauth/device_authorization', { client_id: 'sheetmind-addon', scope: 'admin' }), 'invalid_scope'],
      [token({ grant_type: 'password', client_id: 'sheetmind-addon', device_code: codes.device_code }), 'unsupported_grant_type'],
      [token({ grant_type: grant, client_id: 'unknown-tool', device_code: codes.device_code }), 'invalid_client'],
      [token({ grant_type: grant, client_id: 'sheetmind-addon' }), 'invalid_request'],
      [token({ grant_type: grant, client_id: 'sheetmind-addon', device_code: 'not-a-code' }), 'invalid_grant'],
      // Issued to another client.
      [token({ grant_type: grant, client_id: 'other-tool', device_code: codes.device_code }), 'invalid_grant'],
      [ctx.app.inject({ method: 'POST', url: '/api/v1/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' }), 'invalid_request'],
      [
        ctx.app.inject({
          method: 'POST',
          url: '/api/v1/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=${encodeURIComponent(grant)}&client_id=sheetmind-addon&device_code=a&device_code=b`,
        }),
        'invalid_request',
      ],
    ];
    for (const [pending, error] of cases) {
      const res = await pending;
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error });
    }
    // A missing field is named.
    expect((await form(ctx.app, '/oauth/device_authorization', {})).json()).toMatchObject({ error_description: expect.stringContaining('client_id') });
  });

  it('answers the approval page with 400 naming user_code for a code that cannot be one, 401 signed out', async () => {
    const person = await register(ctx.app);
    const res = await link(ctx.app, person.access_token, 'lookup', 'AAAA-1111');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_user_code', field: 'user_code' } });
    expect((await ctx.app.inject({ method: 'POST', url: '/api/v1/oauth/device/lookup', payload: {} , headers: bearer(person.access_token) })).json()).toMatchObject({ error: { field: 'user_code' } });
    expect((await ctx.app.inject({ method: 'POST', url: '/api/v1/oauth/device/lookup', payload: { user_code: 'BCDF-GHJK' } })).statusCode).toBe(401);
  });

  it('gives tokens once to polls sent at once, and lands one of an approval and a denial sent at once', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app);
    const decisions = await Promise.all([
      link(ctx.app, person.access_token, 'approve', codes.user_code),
      link(ctx.app, person.access_token, 'deny', codes.user_code),
      link(ctx.app, person.access_token, 'approve', codes.user_code),
    ]);
    expect(tally(decisions)).toEqual({ 200: 1, 409: 2 });
    const polls = await Promise.all(Array.from({ length: 8 }, () => poll(ctx.app, codes.device_code)));
    const approved = decisions.findIndex((d) => d.statusCode === 200) !== 1;
    if (approved) {
      expect(tally(polls)).toEqual({ 200: 1, 400: 7 });
    } else {
      expect(polls.filter((p) => p.json().error === 'access_denied')).toHaveLength(1);
    }
  });

  it('lists the add-on session on the profile and cuts it off at its next request when ended there', async () => {
    const person = await register(ctx.app);
    const codes = await askForCode(ctx.app);
    await link(ctx.app, person.access_token, 'approve', codes.user_code);
    const tokens = (await poll(ctx.app, codes.device_code)).json();
    const list = await ctx.app.inject({ method: 'GET', url: '/api/v1/sessions', headers: bearer(person.access_token) });
    const addon = list.json().sessions.find((s: { kind: string }) => s.kind === 'addon');
    expect(addon).toMatchObject({ client: 'SheetMind add-on', ip: '127.0.0.1', user_agent: 'Google-Apps-Script', current: false });
    const ended = await ctx.app.inject({ method: 'DELETE', url: `/api/v1/sessions/${addon.id}`, headers: bearer(person.access_token) });
    expect(ended.statusCode).toBe(204);
    const cut = await ctx.app.inject({ method: 'GET', url: '/api/v1/query/usage', headers: bearer(tokens.access_token) });
    expect(cut.statusCode).toBe(401);
    expect(cut.json()).toMatchObject({ error: { code: 'session_revoked' } });
    expect((await post(ctx.app, '/api/v1/auth/refresh', { refresh_token: tokens.refresh_token })).statusCode).toBe(401);
  });
});

const CASES = ENGINES.flatMap((engine) => LIMIT_STORES.map((store) => [engine, store] as const));

describe.each(CASES)('guessing user codes on %s with the %s store', (engine, store) => {
  const ctx = useTestAppWithStore(engine, store);

  /** A valid-looking code no sign-in has (the 1 in 2.5e10 chance it has one is ignored). */
  const wrongCode = () => Array.from({ length: 8 }, () => 'BCDFGHJKLMNPQRSTVWXZ'[crypto.randomInt(20)]).join('');

  it('lets one account try no more wrong codes at once than its limit, and says when to try again', async () => {
    const person = await register(ctx.app);
    const from = newAddress();
    const answers = await Promise.all(Array.from({ length: 25 }, () => link(ctx.app, person.access_token, 'lookup', wrongCode(), from)));
    expect(tally(answers)).toEqual({ 404: USER_CODE_GUESS_LIMITS.account.max, 429: 25 - USER_CODE_GUESS_LIMITS.account.max });
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('lets one address try no more wrong codes at once than its limit, past each account’s first few, whichever accounts send them', async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => register(ctx.app)));
    const from = newAddress();
    const answers = await Promise.all(
      people.flatMap((person) => Array.from({ length: 10 }, () => link(ctx.app, person.access_token, 'lookup', wrongCode(), from))),
    );
    const free = people.length * CODES_FREE_OF_ADDRESS;
    expect(tally(answers)).toEqual({ 404: free + USER_CODE_GUESS_LIMITS.ip.max, 429: 60 - free - USER_CODE_GUESS_LIMITS.ip.max });
  });

  /** The add-on's link, as the page sends it: the code with the link's key. */
  const fromLink = (token: string, action: 'lookup' | 'approve', codes: { verification_uri_complete: string }, from: string) => {
    const url = new URL(codes.verification_uri_complete);
    return ctx.app.inject({
      method: 'POST',
      url: `/api/v1/oauth/device/${action}`,
      payload: { user_code: url.searchParams.get('code'), link_key: url.searchParams.get('key') },
      headers: bearer(token),
      remoteAddress: from,
    });
  };

  it('takes the account’s own code from the add-on’s link after the account typed its whole allowance of wrong codes; typed, the code waits', async () => {
    const person = await register(ctx.app);
    const from = newAddress();
    for (let i = 0; i < USER_CODE_GUESS_LIMITS.account.max; i++) expect((await link(ctx.app, person.access_token, 'lookup', wrongCode(), from)).statusCode).toBe(404);
    const codes = await askForCode(ctx.app);
    // Typed, it cannot be told from a guess: past the limit it is not even looked up.
    expect((await link(ctx.app, person.access_token, 'lookup', codes.user_code, from)).statusCode).toBe(429);
    // A key of another code, or none that fits, is a typed code.
    const other = await askForCode(ctx.app);
    const borrowed = new URL(other.verification_uri_complete).searchParams.get('key')!;
    const wrongKey = await ctx.app.inject({ method: 'POST', url: '/api/v1/oauth/device/lookup', payload: { user_code: codes.user_code, link_key: borrowed }, headers: bearer(person.access_token), remoteAddress: from });
    expect(wrongKey.statusCode).toBe(429);
    expect((await fromLink(person.access_token, 'lookup', codes, from)).statusCode).toBe(200);
    expect((await fromLink(person.access_token, 'approve', codes, from)).statusCode).toBe(200);
    expect((await poll(ctx.app, codes.device_code)).statusCode).toBe(200);
  });

  it('never holds back a colleague who types their code right behind an address others guessed from', async () => {
    const office = newAddress();
    const guessers = await Promise.all(Array.from({ length: 6 }, () => register(ctx.app)));
    await Promise.all(guessers.flatMap((guesser) => Array.from({ length: 10 }, () => link(ctx.app, guesser.access_token, 'lookup', wrongCode(), office))));
    // The address is spent: a guesser's next typed code gets 429 …
    expect((await link(ctx.app, guessers[0]!.access_token, 'lookup', wrongCode(), office)).statusCode).toBe(429);
    // … while colleagues go on: right codes, and their own first few typing mistakes, are answered.
    for (let i = 0; i < 3; i++) {
      const colleague = await register(ctx.app);
      const codes = await askForCode(ctx.app);
      expect((await link(ctx.app, colleague.access_token, 'lookup', wrongCode(), office)).statusCode).toBe(404);
      expect((await link(ctx.app, colleague.access_token, 'lookup', codes.user_code, office)).statusCode).toBe(200);
      expect((await link(ctx.app, colleague.access_token, 'approve', codes.user_code, office)).statusCode).toBe(200);
    }
  });

  it('does not count a right code against the limit', async () => {
    const person = await register(ctx.app);
    const from = newAddress();
    for (let i = 0; i < USER_CODE_GUESS_LIMITS.account.max - 1; i++) await link(ctx.app, person.access_token, 'lookup', wrongCode(), from);
    const codes = await askForCode(ctx.app);
    for (let i = 0; i < 3; i++) expect((await link(ctx.app, person.access_token, 'lookup', codes.user_code, from)).statusCode).toBe(200);
    expect((await link(ctx.app, person.access_token, 'lookup', wrongCode(), from)).statusCode).toBe(404);
    expect((await link(ctx.app, person.access_token, 'lookup', wrongCode(), from)).statusCode).toBe(429);
  });
});
