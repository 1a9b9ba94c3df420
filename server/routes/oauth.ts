// The device sign-in (RFC 8628) and the /link calls. Over 300 lines because the two protocol calls
// answer in RFC 6749 §5.2's error shape, not the API's, and that mapping must sit beside both.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply } from 'fastify';
import { displayUserCode, normaliseUserCode } from '../../contract/userCode';
import { decideGrant, findGrantByUserCode, pollGrant, startDeviceGrant, type GrantLookup } from '../domain/deviceGrants';
import { SCOPES, type Scope } from '../domain/scopes';
import { ApiError, fieldOf, handleError, validationMessage } from '../errors';
import { consume, type Limit } from '../plugins/rateLimit';
import { DeviceGrantSchema } from '../../contract/credentials';
import { ErrorSchema, Text } from '../../contract/schemas';
import { issueTokens } from './auth';

/**
 * The device sign-in of the add-on (RFC 8628). Its two protocol calls answer as the RFC says:
 * form-encoded or JSON bodies, errors as RFC 6749 §5.2 `{error, error_description}` with status
 * 400, no-store. The calls of the approval page (/link) are ordinary API calls.
 */

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

const MINUTE = 60_000;
/**
 * Wrong user codes a signed-in person may type (RFC 8628 §5.1). With 20^8 codes and 900 s each,
 * 10 guesses in 15 minutes per account and 30 per address leave a guesser hopeless; a person who
 * mistypes a few times is not held back. A right code gives its place back: it was no guess.
 *
 * Two things keep the limits from locking people out of their own sign-in (docs/security.md):
 * - the add-on's link carries a key (`verification_uri_complete`'s `key`, derived from the code
 *   with the server secret) that proves the code came from the add-on: a code sent with its key is
 *   no guess and meets no limit, however many wrong codes the account or its address typed;
 * - an account's first `CODES_FREE_OF_ADDRESS` wrong codes in the window are not counted against its
 *   address, so colleagues behind one office address who type their codes right (or nearly) are
 *   never held back by someone else's guessing there. A guesser still gets at most that many more
 *   per account, and accounts are bounded per address by the sign-up limit.
 * A typed code past the limit is refused unread: looking it up would tell a guesser which codes
 * are live, with no bound at all.
 */
export const USER_CODE_GUESS_LIMITS = {
  account: { what: 'wrong codes', max: 10, windowMs: 15 * MINUTE },
  ip: { what: 'wrong codes', max: 30, windowMs: 15 * MINUTE },
} satisfies Record<string, Limit>;
export const CODES_FREE_OF_ADDRESS = 3;
/** Device sign-ins started per address: the add-on's requests come from its host's few addresses, so it is generous. */
export const DEVICE_AUTHORIZATION_LIMIT: Limit = { what: 'sign-in codes requested', max: 300, windowMs: 15 * MINUTE };

const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
] as const;
type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

const OAuthErrorSchema = Type.Object(
  {
    error: Type.Union(OAUTH_ERRORS.map((code) => Type.Literal(code))),
    error_description: Type.Optional(Type.String()),
    interval: Type.Optional(Type.Integer({ description: 'With `slow_down`: the interval, in seconds, to keep from now on.' })),
  },
  { description: 'An error as RFC 6749 §5.2 and RFC 8628 §3.5 define it.' },
);

class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    description?: string,
    readonly interval?: number,
  ) {
    super(description ?? error);
  }
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function sendOAuthError(reply: FastifyReply, error: OAuthErrorCode, description?: string, interval?: number) {
  return reply
    .headers(NO_STORE)
    .status(400)
    .send({ error, ...(description ? { error_description: description } : {}), ...(interval ? { interval } : {}) });
}

const ClientId = Text({ minLength: 1, maxLength: 200, description: 'The OAuth client id (`sheetmind-addon`).' });

function parseScope(requested: string | undefined): Scope[] {
  if (requested === undefined || requested.trim() === '') return [...SCOPES];
  const scopes = requested.trim().split(/ +/);
  const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown) throw new OAuthError('invalid_scope', `Unknown scope "${unknown}"; use ${SCOPES.join(' or ')}.`);
  return [...new Set(scopes)] as Scope[];
}

/** RFC 8628 §3.1 and §3.4: the device authorization and token requests. */
export const oauthProtocolRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  const { device } = app.config;

  // RFC 6749 §3.2 has clients send form-encoded bodies; a repeated parameter becomes an array,
  // which the schema refuses as `invalid_request` (RFC 6749 §5.2: "repeats a parameter").
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const [name, value] of new URLSearchParams(body as string)) {
      const seen = fields[name];
      fields[name] = seen === undefined ? value : [seen, value].flat();
    }
    done(null, { ...fields });
  });

  app.setErrorHandler((error: FastifyError | OAuthError | ApiError, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error.error, error.message, error.interval);
    if ((error as FastifyError).validation) {
      const field = fieldOf(error as FastifyError);
      return sendOAuthError(reply, 'invalid_request', validationMessage(error as FastifyError, field));
    }
    const status = (error as FastifyError).statusCode;
    if (!(error instanceof ApiError) && status === 400) return sendOAuthError(reply, 'invalid_request', error.message);
    return handleError(error as FastifyError, request, reply);
  });

  const knownClient = (clientId: string) => {
    if (!Object.hasOwn(device.clients, clientId)) throw new OAuthError('invalid_client', 'Unknown client_id.');
  };

  app.post(
    '/oauth/device_authorization',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Start a device sign-in (RFC 8628 §3.1): a device code to poll with and a user code to enter at /link',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object({ client_id: ClientId, scope: Type.Optional(Text({ maxLength: 200, description: 'Space-separated: `query`, `usage:read` (both by default).' })) }),
        response: {
          200: Type.Object({
            device_code: Type.String(),
            user_code: Type.String({ description: '8 characters shown as XXXX-XXXX.' }),
            verification_uri: Type.String(),
            verification_uri_complete: Type.String(),
            expires_in: Type.Integer(),
            interval: Type.Integer(),
          }),
          400: OAuthErrorSchema,
          429: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      knownClient(request.body.client_id);
      const scopes = parseScope(request.body.scope);
      await consume(app.rateLimits, [[`device-authorization:ip:${request.ip}`, DEVICE_AUTHORIZATION_LIMIT]]);
      const { deviceCode, userCode } = await startDeviceGrant(db, {
        clientId: request.body.client_id,
        scopes,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
        ttlMs: device.codeTtlS * 1000,
        intervalS: device.intervalS,
        now: app.clock.now(),
      });
      const shown = displayUserCode(userCode);
      const verificationUri = `${app.config.publicUrl}/link`;
      return reply.headers(NO_STORE).send({
        device_code: deviceCode,
        user_code: shown,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?code=${shown}&key=${app.tokens.linkKeyOf(userCode)}`,
        expires_in: device.codeTtlS,
        interval: device.intervalS,
      });
    },
  );

  app.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Poll for the outcome of a device sign-in (RFC 8628 §3.4, §3.5); tokens once the person approved',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object({
          grant_type: Text({ minLength: 1, maxLength: 200 }),
          device_code: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
          client_id: ClientId,
        }),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            refresh_token: Type.String({ description: 'Refreshed like any other, at POST /auth/refresh.' }),
            token_type: Type.Literal('bearer'),
            expires_in: Type.Integer(),
            scope: Type.String(),
          }),
          400: OAuthErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { grant_type: grantType, device_code: deviceCode, client_id: clientId } = request.body;
      if (grantType !== DEVICE_GRANT_TYPE) throw new OAuthError('unsupported_grant_type', `Only ${DEVICE_GRANT_TYPE} is supported here.`);
      knownClient(clientId);
      if (deviceCode === undefined) throw new OAuthError('invalid_request', 'The field "device_code" is required.');
      const outcome = await pollGrant(db, app.tokens, {
        deviceCode,
        clientId,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
        now: app.clock.now(),
      });
      if (outcome.kind === 'error') {
        request.log.info({ event: 'oauth.poll', outcome: outcome.error }, 'device code polled');
        return sendOAuthError(reply, outcome.error, undefined, outcome.intervalS);
      }
      request.log.info({ event: 'oauth.device_signed_in', userId: outcome.session.userId, ip: request.ip }, 'add-on signed in');
      return reply.headers(NO_STORE).send({ ...(await issueTokens(app, outcome.session)), scope: outcome.scopes.join(' ') });
    },
  );
};

const UserCodeBody = Type.Object(
  {
    user_code: Text({ minLength: 1, maxLength: 20, description: 'As shown by the add-on: any case, with or without the dash.' }),
    link_key: Type.Optional(
      Text({ minLength: 1, maxLength: 100, description: "The `key` of `verification_uri_complete`, when the page was opened from the add-on's link: the code is then no guess." }),
    ),
  },
  { additionalProperties: false },
);

const linkErrors = {
  400: ErrorSchema,
  404: Type.Object(ErrorSchema.properties, { description: '`user_code_not_found`: no sign-in has this code.' }),
  409: Type.Object(ErrorSchema.properties, { description: '`user_code_used`: this code was already approved or denied.' }),
  410: Type.Object(ErrorSchema.properties, { description: '`user_code_expired`: the code is older than 15 minutes.' }),
  429: ErrorSchema,
};

/** The approval page's calls (RFC 8628 §3.3): a signed-in person looks a code up, then approves or denies it. */
export const deviceLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);

  /** Takes a place under one limit (or throws the 429); answers how many it holds and how to give it back. */
  const takePlace = async (key: string, limit: Limit) => {
    const { counts, ticket } = await consume(app.rateLimits, [[key, limit]]);
    return { count: counts[0]!, giveBack: () => app.rateLimits.release([key], ticket) };
  };

  /**
   * A typed code takes a place under the guessing limits first (each atomically, so a burst gets no
   * more than the limit): the account's, and past its first few, the address's (see
   * USER_CODE_GUESS_LIMITS); a code that names a live sign-in gives them back, as it was no guess.
   * A code sent with its link key is no guess and takes none.
   */
  async function withGuessLimit(userId: string, ip: string, body: { user_code: string; link_key?: string }, work: (code: string) => Promise<GrantLookup>) {
    const code = normaliseUserCode(body.user_code);
    if (!code) throw new ApiError(400, 'invalid_user_code', 'Enter the 8 letters the add-on shows, like BCDF-GHJK.', { field: 'user_code' });
    const places: Array<{ giveBack(): Promise<void> }> = [];
    if (body.link_key === undefined || !app.tokens.linkKeyMatches(code, body.link_key)) {
      const account = await takePlace(`user-code:account:${userId}`, USER_CODE_GUESS_LIMITS.account);
      places.push(account);
      if (account.count > CODES_FREE_OF_ADDRESS) {
        try {
          places.push(await takePlace(`user-code:ip:${ip}`, USER_CODE_GUESS_LIMITS.ip));
        } catch (error) {
          await account.giveBack();
          throw error;
        }
      }
    }
    const found = await work(code);
    if (found.kind === 'pending' || found.kind === 'decided') {
      for (const place of places) await place.giveBack();
      return { code, grant: found.grant };
    }
    if (found.kind === 'expired') throw new ApiError(410, 'user_code_expired', 'This code has expired. Start the sign-in again in the add-on.');
    if (found.kind === 'used') throw new ApiError(409, 'user_code_used', 'This code was already used. Start the sign-in again in the add-on.');
    throw new ApiError(404, 'user_code_not_found', 'No sign-in has this code. Check it against the add-on and try again.', { field: 'user_code' });
  }

  const view = (code: string, grant: Awaited<ReturnType<typeof withGuessLimit>>['grant']) => ({
    user_code: displayUserCode(code),
    client_id: grant.client_id,
    client_name: app.config.device.clients[grant.client_id] ?? grant.client_id,
    scopes: grant.scopes,
    requested_at: new Date(grant.requested_at).toISOString(),
    ip: grant.ip,
    user_agent: grant.user_agent,
    expires_at: new Date(grant.expires_at).toISOString(),
  });

  app.post(
    '/oauth/device/lookup',
    {
      schema: {
        tags: ['oauth'],
        summary: 'What asked for this user code: the client, when and from where (for the approval page)',
        security: [{ bearer: [] }],
        body: UserCodeBody,
        response: { 200: DeviceGrantSchema, ...linkErrors },
      },
    },
    async (request) => {
      const { code, grant } = await withGuessLimit(request.auth!.userId, request.ip, request.body, (code) =>
        findGrantByUserCode(db, code, app.clock.now()),
      );
      return view(code, grant);
    },
  );

  for (const decision of ['approve', 'deny'] as const) {
    app.post(
      `/oauth/device/${decision}`,
      {
        schema: {
          tags: ['oauth'],
          summary:
            decision === 'approve'
              ? 'Approve the sign-in of this user code: the add-on polling for it gets tokens for this account'
              : 'Deny the sign-in of this user code: the add-on polling for it is told access_denied',
          security: [{ bearer: [] }],
          body: UserCodeBody,
          response: { 200: DeviceGrantSchema, ...linkErrors },
        },
      },
      async (request) => {
        const { userId } = request.auth!;
        const { code, grant } = await withGuessLimit(userId, request.ip, request.body, (code) =>
          decideGrant(db, code, userId, decision === 'approve' ? 'approved' : 'denied', app.clock.now()),
        );
        request.log.info({ event: `oauth.device_${decision}`, userId, ip: request.ip }, `device sign-in ${decision === 'approve' ? 'approved' : 'denied'}`);
        return view(code, grant);
      },
    );
  }
};
