import crypto from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types';
import type { Clock } from './clock';

export const ACCESS_TOKEN_TTL_S = 15 * 60;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

export interface TokenService {
  /** A signed JWT (HS256, 15 minutes) carrying the user and the session. */
  signAccess(claims: AccessClaims): string;
  /** The claims of a valid, unexpired access token; null for anything else. */
  verifyAccess(token: string): AccessClaims | null;
  /** A fresh random refresh token. */
  newRefreshToken(): string;
  /**
   * The token that replaces `token` on rotation. Derived with the server secret rather than
   * random, so a second refresh with the same token inside the grace window can hand out the
   * very same successor without the server ever storing a token in the clear.
   */
  successorOf(token: string): string;
  /**
   * The key `verification_uri_complete` carries beside a device sign-in's user code: derived from the
   * code with the server secret, so the add-on's own link proves its code was not guessed, and
   * nothing more is stored.
   */
  linkKeyOf(userCode: string): string;
  /** Whether `key` is the link key of `userCode` (compared in constant time). */
  linkKeyMatches(userCode: string, key: string): boolean;
}

/** Tokens (refresh, reset) are kept only as this hash. */
export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('base64url');
}

export function randomToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function createTokenService(secret: string, clock: Clock): TokenService {
  const key = crypto.createHash('sha256').update(`access:${secret}`).digest();
  const rotationKey = crypto.createHash('sha256').update(`refresh:${secret}`).digest();
  const linkKey = crypto.createHash('sha256').update(`device-link:${secret}`).digest();
  const linkKeyOf = (userCode: string) => crypto.createHmac('sha256', linkKey).update(userCode).digest('base64url');
  const sign = createSigner({ key, algorithm: 'HS256' });
  // Only HS256 is accepted: `alg: none` and any other algorithm fail verification. Expiry is
  // checked below against the injectable clock.
  const verify = createVerifier({ key, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true });
  // Every request of a session presents the same token, so the claims of verified tokens are kept
  // (the newest 5,000), found by the token's text: a string lookup, where hashing the token for a
  // key (fast-jwt's own cache) costs as much as the rest of the check. Only signed tokens get in.
  const verified = new Map<string, AccessClaims & { expiresAtMs: number }>();
  const claimsOf = (token: string) => {
    const known = verified.get(token);
    if (known) return known;
    const claims = verify(token) as { sub?: unknown; sid?: unknown; typ?: unknown; exp?: unknown };
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string') return null;
    if (typeof claims.exp !== 'number') return null;
    const entry = { userId: claims.sub, sessionId: claims.sid, expiresAtMs: claims.exp * 1000 };
    if (verified.size >= 5000) verified.delete(verified.keys().next().value!);
    verified.set(token, entry);
    return entry;
  };

  return {
    signAccess({ userId, sessionId }) {
      const iat = Math.floor(clock.now() / 1000);
      // `jti` makes every token distinct: two issued in one second (a refresh right after a sign-in)
      // would otherwise be byte-identical, and clients tell a stale token from the current one by its text.
      return sign({ sub: userId, sid: sessionId, typ: 'access', iat, exp: iat + ACCESS_TOKEN_TTL_S, jti: crypto.randomBytes(9).toString('base64url') });
    },
    verifyAccess(token) {
      try {
        const claims = claimsOf(token);
        if (!claims || claims.expiresAtMs <= clock.now()) return null;
        return { userId: claims.userId, sessionId: claims.sessionId };
      } catch {
        return null;
      }
    },
    newRefreshToken: randomToken,
    successorOf(token) {
      return crypto.createHmac('sha256', rotationKey).update(token).digest('base64url');
    },
    linkKeyOf,
    linkKeyMatches(userCode, key) {
      const expected = Buffer.from(linkKeyOf(userCode));
      const given = Buffer.from(key);
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    },
  };
}

/**
 * The signing secret: AUTH_SECRET when set, otherwise one generated on first start and kept in the
 * database, so every instance sharing the database signs and verifies with the same key.
 */
export async function loadAuthSecret(db: Kysely<Database>, configured: string | null): Promise<string> {
  if (configured) return configured;
  const generated = crypto.randomBytes(32).toString('hex');
  await db
    .insertInto('settings')
    .values({ key: 'auth_secret', value: generated })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'auth_secret').executeTakeFirstOrThrow();
  return row.value;
}
