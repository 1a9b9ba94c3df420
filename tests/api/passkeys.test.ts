import type { FastifyInstance } from 'fastify';
import { CHALLENGE_TTL_MS, hasPasskey, passkeyAuthenticationOptions, passkeyCount, relyingPartyOf, verifyPasskeyAuthentication } from '../../server/domain/passkeys';
import { DEFAULT_PASSKEY_NAME } from '../../server/routes/webauthn';
import { SoftAuthenticator, type Bend } from '../helpers/softAuthenticator';
import { bearer, ENGINES, register, useSecondInstance, useTestApp } from '../helpers/testApp';

/** Passkeys (decisions.md, "Advanced security"), as a browser with a passkey sees the API, on both engines. */

jest.setTimeout(60_000);

const PUBLIC_URL = 'https://portal.example.com';
const ORIGIN = PUBLIC_URL;
const RP_ID = 'portal.example.com';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

function call(app: FastifyInstance, method: Method, url: string, token?: string, payload?: object) {
  return app.inject({ method, url: `/api/v1${url}`, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });
}

describe.each(ENGINES)('passkeys on %s', (engine) => {
  const ctx = useTestApp(engine, { env: { PUBLIC_URL } });
  const second = useSecondInstance(ctx);

  /** A fresh account with its own authenticator. */
  async function person() {
    const account = await register(ctx.app);
    return { ...account, token: account.access_token, device: new SoftAuthenticator(ORIGIN) };
  }

  async function addPasskey(who: Awaited<ReturnType<typeof person>>, name?: string, bend: Bend = {}) {
    const options = await call(ctx.app, 'POST', '/webauthn/register/options', who.token);
    expect(options.statusCode).toBe(200);
    const credential = who.device.register(options.json(), bend);
    return call(ctx.app, 'POST', '/webauthn/register', who.token, { credential, ...(name === undefined ? {} : { name }) });
  }

  async function signInOptions(app = ctx.app) {
    const res = await call(app, 'POST', '/auth/webauthn/options');
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  it('asks for a discoverable passkey with user verification, bound to PUBLIC_URL, never naming the email as the user handle', async () => {
    const who = await person();
    const options = (await call(ctx.app, 'POST', '/webauthn/register/options', who.token)).json();
    expect(options.rp).toEqual({ id: RP_ID, name: ctx.config.web.brandName });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', requireResidentKey: true, userVerification: 'required' });
    expect(options.user.name).toBe(who.account.email);
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(who.user.id);
    expect((await call(ctx.app, 'POST', '/webauthn/register/options')).statusCode).toBe(401);
  });

  it('adds, lists, renames and deletes a passkey; adding one mails the account', async () => {
    const who = await person();
    const added = await addPasskey(who, '  Work laptop  ');
    expect(added.statusCode).toBe(201);
    const passkey = added.json();
    expect(passkey).toEqual({ id: expect.any(String), name: 'Work laptop', created_at: new Date(ctx.clock.now()).toISOString(), last_used_at: null });

    const mail = await ctx.mail.latestTo(who.account.email, 'passkey_added');
    expect(mail.text).toContain('"Work laptop"');
    expect(mail.text).toContain(`${PUBLIC_URL}/profile`);

    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json()).toEqual({ credentials: [passkey] });
    // The account export lists it, never its public key.
    const exported = await call(ctx.app, 'GET', '/users/me/export', who.token);
    expect(exported.json().security.passkeys).toEqual([passkey]);
    const { public_key } = await ctx.app.database.db.selectFrom('webauthn_credentials').select('public_key').where('id', '=', passkey.id).executeTakeFirstOrThrow();
    expect(exported.body).not.toContain(public_key);
    const renamed = await call(ctx.app, 'PATCH', `/webauthn/credentials/${passkey.id}`, who.token, { name: ' Phone ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ ...passkey, name: 'Phone' });
    expect((await call(ctx.app, 'PATCH', `/webauthn/credentials/${passkey.id}`, who.token, { name: '   ' })).statusCode).toBe(400);
    expect((await call(ctx.app, 'PATCH', `/webauthn/credentials/${passkey.id}`, who.token, { name: 'x'.repeat(65) })).statusCode).toBe(400);

    expect((await call(ctx.app, 'DELETE', `/webauthn/credentials/${passkey.id}`, who.token)).statusCode).toBe(204);
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json()).toEqual({ credentials: [] });
    expect((await call(ctx.app, 'DELETE', `/webauthn/credentials/${passkey.id}`, who.token)).statusCode).toBe(404);
  });

  it('names a passkey left unnamed, and refuses a name over 64 characters', async () => {
    const who = await person();
    expect((await addPasskey(who, '')).json().name).toBe(DEFAULT_PASSKEY_NAME);
    expect((await addPasskey(who, 'é'.repeat(64))).statusCode).toBe(201);
    const long = await addPasskey(who, 'a'.repeat(65));
    expect(long.statusCode).toBe(400);
    expect(long.json().error.field).toBe('name');
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json().credentials).toHaveLength(2);
  });

  it("answers 404 for another user's passkey, and never lists it", async () => {
    const owner = await person();
    const other = await person();
    const id = (await addPasskey(owner, 'Mine')).json().id as string;
    expect((await call(ctx.app, 'PATCH', `/webauthn/credentials/${id}`, other.token, { name: 'Stolen' })).statusCode).toBe(404);
    const removed = await call(ctx.app, 'DELETE', `/webauthn/credentials/${id}`, other.token);
    expect(removed.statusCode).toBe(404);
    expect(removed.json().error.code).toBe('passkey_not_found');
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', other.token)).json()).toEqual({ credentials: [] });
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', owner.token)).json().credentials).toEqual([expect.objectContaining({ id, name: 'Mine' })]);

    // An API key of the owner's, whatever its scopes, manages no passkeys: web sessions only.
    const key = (await call(ctx.app, 'POST', '/api-keys', owner.token, { name: 'Script', scopes: ['query', 'usage:read'] })).json().key as string;
    for (const [method, url] of [['GET', '/webauthn/credentials'], ['POST', '/webauthn/register/options'], ['DELETE', `/webauthn/credentials/${id}`]] as const) {
      const res = await call(ctx.app, method, url, key);
      expect([res.statusCode, res.json().error.code]).toEqual([403, 'insufficient_scope']);
    }
  });

  it('refuses a registration answer used twice, one after an expired challenge, and one to another user’s challenge', async () => {
    const who = await person();
    const options = (await call(ctx.app, 'POST', '/webauthn/register/options', who.token)).json();
    const credential = who.device.register(options);
    expect((await call(ctx.app, 'POST', '/webauthn/register', who.token, { credential, name: 'First' })).statusCode).toBe(201);
    const again = await call(ctx.app, 'POST', '/webauthn/register', who.token, { credential: who.device.register(options), name: 'Replay' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('invalid_passkey');

    const late = (await call(ctx.app, 'POST', '/webauthn/register/options', who.token)).json();
    ctx.clock.advance(CHALLENGE_TTL_MS);
    expect((await call(ctx.app, 'POST', '/webauthn/register', who.token, { credential: who.device.register(late), name: 'Late' })).statusCode).toBe(400);

    const other = await person();
    const theirs = (await call(ctx.app, 'POST', '/webauthn/register/options', other.token)).json();
    expect((await call(ctx.app, 'POST', '/webauthn/register', who.token, { credential: who.device.register(theirs), name: 'Theirs' })).statusCode).toBe(400);
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json().credentials.map((c: { name: string }) => c.name)).toEqual(['First']);
  });

  it('refuses a new passkey made on another origin, for another relying party, or without user verification', async () => {
    const who = await person();
    for (const bend of [{ origin: 'https://evil.example.net' }, { rpId: 'evil.example.net' }, { userVerified: false }] satisfies Bend[]) {
      const res = await addPasskey(who, 'Bent', bend);
      expect([res.statusCode, res.json().error.code]).toEqual([400, 'invalid_passkey']);
    }
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json()).toEqual({ credentials: [] });
  });

  it('signs in with a discoverable passkey alone: the usual auth response, a working session, the passkey marked used', async () => {
    const who = await person();
    const id = (await addPasskey(who, 'Laptop')).json().id as string;
    const options = await signInOptions();
    expect(options).toMatchObject({ rpId: RP_ID, userVerification: 'required', allowCredentials: [] });

    ctx.clock.advance(60_000);
    const res = await call(ctx.app, 'POST', '/auth/webauthn', undefined, { credential: who.device.authenticate(options) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'bearer',
      expires_in: expect.any(Number),
      user: expect.objectContaining({ id: who.user.id, email: who.account.email }),
    });
    expect((await call(ctx.app, 'GET', '/users/me', body.access_token)).json().id).toBe(who.user.id);
    expect((await call(ctx.app, 'GET', '/webauthn/credentials', who.token)).json().credentials).toEqual([
      expect.objectContaining({ id, last_used_at: new Date(ctx.clock.now()).toISOString() }),
    ]);
  });

  it('refuses a sign-in answer used twice, late, from another origin or relying party, without user verification, or from a deleted passkey', async () => {
    const who = await person();
    const id = (await addPasskey(who, 'Laptop')).json().id as string;
    const refused = async (credential: object) => {
      const res = await call(ctx.app, 'POST', '/auth/webauthn', undefined, { credential });
      expect([res.statusCode, res.json().error.code, res.body]).toEqual([401, 'invalid_passkey', expect.not.stringContaining('access_token')]);
    };

    const options = await signInOptions();
    const answer = who.device.authenticate(options);
    expect((await call(ctx.app, 'POST', '/auth/webauthn', undefined, { credential: answer })).statusCode).toBe(200);
    await refused(answer);
    await refused(who.device.authenticate(options));

    const late = await signInOptions();
    ctx.clock.advance(CHALLENGE_TTL_MS);
    await refused(who.device.authenticate(late));

    for (const bend of [{ origin: 'https://evil.example.net' }, { rpId: 'evil.example.net' }, { userVerified: false }] satisfies Bend[]) {
      await refused(who.device.authenticate(await signInOptions(), bend));
    }
    // Each refusal used its challenge up: the right answer to it is refused too.
    const spent = await signInOptions();
    await refused(who.device.authenticate(spent, { origin: 'https://evil.example.net' }));
    await refused(who.device.authenticate(spent));

    expect((await call(ctx.app, 'DELETE', `/webauthn/credentials/${id}`, who.token)).statusCode).toBe(204);
    await refused(who.device.authenticate(await signInOptions()));
  });

  it('lets one of two answers to the same challenge sent at once sign in, never both', async () => {
    const who = await person();
    await addPasskey(who, 'Laptop');
    const options = await signInOptions();
    const answers = await Promise.all([ctx.app, second.current].map((app) => call(app, 'POST', '/auth/webauthn', undefined, { credential: who.device.authenticate(options) })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 401]);
  });

  it('checks on one instance a challenge another instance gave', async () => {
    const who = await person();
    await addPasskey(who, 'Laptop');
    const options = await signInOptions(second.current);
    expect((await call(ctx.app, 'POST', '/auth/webauthn', undefined, { credential: who.device.authenticate(options) })).statusCode).toBe(200);
  });

  it("serves the second step of sign-in: options naming the user's passkeys, and an answer checked against that user", async () => {
    const who = await person();
    const other = await person();
    const id = (await addPasskey(who, 'Laptop')).json().id as string;
    await addPasskey(other, 'Theirs');
    const { db } = ctx.app.database;
    const rp = relyingPartyOf(ctx.config);
    expect([await hasPasskey(db, who.user.id), await passkeyCount(db, who.user.id)]).toEqual([true, 1]);
    const alone = await person();
    expect([await hasPasskey(db, alone.user.id), await passkeyCount(db, alone.user.id)]).toEqual([false, 0]);

    const options = await passkeyAuthenticationOptions(db, rp, who.user.id, ctx.clock.now());
    expect(options.allowCredentials).toEqual([{ id, type: 'public-key', transports: ['internal'] }]);
    expect(await verifyPasskeyAuthentication(db, rp, who.device.authenticate(options), who.user.id, ctx.clock.now())).toBe(who.user.id);

    // Another user's passkey, or a challenge given for someone else, does not pass for this user.
    const forWho = await passkeyAuthenticationOptions(db, rp, who.user.id, ctx.clock.now());
    await expect(verifyPasskeyAuthentication(db, rp, other.device.authenticate({ ...forWho, allowCredentials: [] }), who.user.id, ctx.clock.now())).rejects.toMatchObject({
      statusCode: 401,
      code: 'invalid_passkey',
    });
    const discoverable = await passkeyAuthenticationOptions(db, rp, null, ctx.clock.now());
    await expect(verifyPasskeyAuthentication(db, rp, who.device.authenticate(discoverable), who.user.id, ctx.clock.now())).rejects.toMatchObject({ statusCode: 401 });
    await expect(verifyPasskeyAuthentication(db, rp, { ...who.device.authenticate(forWho), response: { clientDataJSON: 'bm90LWpzb24', authenticatorData: 'AA', signature: 'AA' } }, who.user.id, ctx.clock.now())).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_passkey',
    });
  });
});
