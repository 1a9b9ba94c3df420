import type { FastifyInstance, FastifyRequest } from 'fastify';
import { activityRecorder } from '../domain/activity';
import { checkApiKey, isApiKey } from '../domain/apiKeys';
import { ADDON_SESSION_ROUTES, LEAVING_TEAM, ROUTE_SCOPES, WITHOUT_SECOND_FACTOR, type Scope } from '../domain/scopes';
import type { SessionUser } from '../domain/liveCredentials';
import { activeSession, revokeSession } from '../domain/sessions';
import type { ErrorCode } from '../../contract/errors';
import { ApiError } from '../errors';

/** Who makes a request, and with which credential. */
export type Credential =
  | { kind: 'web' | 'addon'; userId: string; sessionId: string; scopes: Scope[] | null }
  | { kind: 'key'; userId: string; keyId: string; scopes: Scope[] };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `app.authenticate` on routes that need a signed-in user. */
    auth: Credential | null;
    /** The signed-in user as read by `app.authenticate` (with its plan, in one query). */
    currentUser: SessionUser | null;
  }
  interface FastifyInstance {
    authenticate(request: FastifyRequest): Promise<void>;
  }
}

const BEARER = /^Bearer\s+(\S+)$/i;

/** The credential's own id: the session's or the key's (what usage and `last_used_at` record). */
export function credentialId(credential: Credential): string {
  return credential.kind === 'key' ? credential.keyId : credential.sessionId;
}

/** The session of a request on a route no API key reaches (the scope check below keeps them out). */
export function sessionIdOf(request: FastifyRequest): string {
  const credential = request.auth!;
  if (credential.kind === 'key') throw insufficientScope();
  return credential.sessionId;
}

const insufficientScope = () =>
  new ApiError(403, 'insufficient_scope', 'This credential may not make this call: sign in on the web, or use a key with the needed scope.', {
    headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
  });

/**
 * A 401 for a bearer credential that was sent but is refused: RFC 6750 §3 has it say so in
 * `WWW-Authenticate`, which OAuth clients read to know that a refresh (or a new sign-in) is due.
 */
export function tokenRefused(code: ErrorCode, message: string): ApiError {
  return new ApiError(401, code, message, { headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"` } });
}

/** Whether a limited credential may call the route: by its scopes, or as an add-on session on the few calls it needs. */
function allowed(credential: Credential, route: string): boolean {
  if (credential.scopes === null) return true;
  const scope = ROUTE_SCOPES[route];
  if (scope && credential.scopes.includes(scope)) return true;
  return credential.kind === 'addon' && ADDON_SESSION_ROUTES.has(route);
}

/**
 * The preHandler of every signed-in route: a valid access token whose session is still live, or
 * an API key (`sm_live_…`) that is neither revoked nor expired. The session check is one
 * primary-key read and the key check one unique-index read, so a revoked credential is refused at
 * its next request. A key or an add-on session then gets 403 `insufficient_scope` on any call its
 * scopes do not name.
 */
export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('currentUser', null);
  const recordUse = activityRecorder(app.database.db, (error) => app.log.warn({ err: error }, 'last use of a credential not recorded'));

  const identify = async (token: string, now: number): Promise<{ credential: Credential; user: SessionUser; signedInAt?: number }> => {
    if (isApiKey(token)) {
      const check = await checkApiKey(app.database, token, now);
      if (!check.ok) {
        const messages = {
          invalid: 'This API key is not valid.',
          revoked: 'This API key was revoked.',
          expired: 'This API key has expired.',
        };
        throw tokenRefused(`api_key_${check.reason}`, messages[check.reason]);
      }
      return { credential: { kind: 'key', userId: check.user.id, keyId: check.keyId, scopes: check.scopes }, user: check.user };
    }
    const claims = app.tokens.verifyAccess(token);
    if (!claims) throw tokenRefused('invalid_token', 'Your sign-in has expired or is invalid. Please sign in again.');
    const session = await activeSession(app.database, claims.sessionId, now);
    if (session?.user.id !== claims.userId) {
      throw tokenRefused('session_revoked', 'This session has ended. Please sign in again.');
    }
    return {
      credential: { kind: session.kind, userId: claims.userId, sessionId: claims.sessionId, scopes: session.scopes },
      user: session.user,
      signedInAt: session.createdAt,
    };
  };

  /**
   * The team's security policy, on every call, read with the credential (so a change holds from the
   * next call on every instance): a session older than the team allows ends; a member without a
   * second factor may only set one up, see the profile, sign out or leave.
   */
  const holdTeamPolicy = async (credential: Credential, user: SessionUser, route: string, request: FastifyRequest, signedInAt: number | undefined, now: number) => {
    const { sessionMaxAgeHours, requireTwoFactor, hasSecondFactor } = user.policy;
    if (credential.kind !== 'key' && sessionMaxAgeHours !== null && signedInAt !== undefined && now - signedInAt > sessionMaxAgeHours * 3_600_000) {
      await revokeSession(app.database.db, credential.sessionId, 'team_session_max_age', now);
      throw tokenRefused('session_revoked', `Your team asks you to sign in again every ${sessionMaxAgeHours} hours. Please sign in again.`);
    }
    if (!requireTwoFactor || hasSecondFactor || WITHOUT_SECOND_FACTOR.has(route)) return;
    if (route === LEAVING_TEAM && (request.params as { user_id?: string }).user_id === credential.userId) return;
    throw new ApiError(
      403,
      'two_factor_required',
      'Your team requires two-step sign-in. Set up an authenticator app or a passkey on your profile to continue.',
    );
  };

  app.decorate('authenticate', async (request: FastifyRequest) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    // RFC 6750 §3.1: no credential sent, so no error code; only the scheme to use.
    if (!match?.[1]) throw new ApiError(401, 'missing_token', 'Sign in to continue.', { headers: { 'www-authenticate': 'Bearer' } });
    const now = app.clock.now();
    const { credential, user, signedInAt } = await identify(match[1], now);
    // Fastify answers HEAD with the GET route: it takes the GET's scope.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const route = `${method} ${request.routeOptions.url}`;
    if (!allowed(credential, route)) throw insufficientScope();
    await holdTeamPolicy(credential, user, route, request, signedInAt, now);
    request.auth = credential;
    request.currentUser = user;
    recordUse(credentialId(credential), now);
  });
}
