import type { FastifyInstance, FastifyRequest } from 'fastify';
import { activeSessionUser, type SessionUser } from '../domain/sessions';
import type { AccessClaims } from '../domain/tokens';
import { ApiError } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `app.authenticate` on routes that need a signed-in user. */
    auth: AccessClaims | null;
    /** The signed-in user as read by `app.authenticate` (with its session and plan, in one query). */
    currentUser: SessionUser | null;
  }
  interface FastifyInstance {
    authenticate(request: FastifyRequest): Promise<void>;
  }
}

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The preHandler of every signed-in route: a valid access token whose session is still live.
 * The session check is one primary-key read, so a revoked session is refused at once.
 */
export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('currentUser', null);
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match?.[1]) throw new ApiError(401, 'missing_token', 'Sign in to continue.');
    const claims = app.tokens.verifyAccess(match[1]);
    if (!claims) throw new ApiError(401, 'invalid_token', 'Your sign-in has expired or is invalid. Please sign in again.');
    const user = await activeSessionUser(app.database, claims.sessionId, app.clock.now());
    if (user?.id !== claims.userId) {
      throw new ApiError(401, 'session_revoked', 'This session has ended. Please sign in again.');
    }
    request.auth = claims;
    request.currentUser = user;
  });
}
