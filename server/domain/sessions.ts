import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DatabaseHandle } from '../db/database';
import type { CredentialKindOfSession, Database } from '../db/types';
import { ApiError } from '../errors';
import { parseScopes, type Scope } from './scopes';
import { CREDENTIAL_USER_COLUMNS, CREDENTIAL_USER_JOIN, credentialUser, hasEnded, liveCredentialsOf, revokeLive, type CredentialUserRow, type SessionUser } from './liveCredentials';
import { hashToken, SESSION_TTL_MS, type TokenService } from './tokens';

/** A rotated refresh token presented again within this window gets the same successor (two tabs). */
export const REFRESH_GRACE_MS = 10_000;

export interface IssuedSession {
  sessionId: string;
  userId: string;
  refreshToken: string;
}

type Db = Kysely<Database> | Transaction<Database>;

/** Where a session comes from, as the profile's "Sessions and devices" shows it. */
export interface SessionOrigin {
  kind: CredentialKindOfSession;
  ip: string;
  userAgent: string | undefined;
  /** An add-on session's OAuth client and the scopes it was granted. */
  clientId?: string;
  scopes?: readonly Scope[];
}

/** A user agent is shown, never parsed: a long one is cut rather than refused. */
const USER_AGENT_MAX = 300;

export async function createSession(db: Db, tokens: TokenService, userId: string, now: number, origin: SessionOrigin): Promise<IssuedSession> {
  const sessionId = crypto.randomUUID();
  const refreshToken = tokens.newRefreshToken();
  await db
    .insertInto('sessions')
    .values({
      id: sessionId,
      user_id: userId,
      created_at: now,
      expires_at: now + SESSION_TTL_MS,
      revoked_at: null,
      revoked_reason: null,
      kind: origin.kind,
      client_id: origin.clientId ?? null,
      scopes: origin.scopes ? origin.scopes.join(' ') : null,
      ip: origin.ip,
      user_agent: origin.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    })
    .execute();
  await db
    .insertInto('refresh_tokens')
    .values({ token_hash: hashToken(refreshToken), session_id: sessionId, created_at: now, used_at: null })
    .execute();
  return { sessionId, userId, refreshToken };
}

const invalidRefresh = () =>
  new ApiError(401, 'invalid_refresh_token', 'Your session has ended. Please sign in again.');

/**
 * Rotates a refresh token. The first use marks it used (one conditional UPDATE, so concurrent
 * uses cannot both win) and issues its successor. A token used again within the grace window,
 * while its successor is still unused, gets that same successor. Any other reuse means the token
 * was copied: the whole session is revoked.
 */
export async function rotateRefreshToken(
  db: Kysely<Database>,
  tokens: TokenService,
  presented: string,
  now: number,
  /** At the OAuth token endpoint: the client the session must have been issued to (RFC 6749 §6); a web session has none. */
  client?: string,
): Promise<IssuedSession & { scopes: Scope[] | null }> {
  const presentedHash = hashToken(presented);
  const successor = tokens.successorOf(presented);
  const successorHash = hashToken(successor);

  const outcome = await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('refresh_tokens')
      .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
      .select([
        'refresh_tokens.used_at',
        'sessions.id as session_id',
        'sessions.user_id',
        'sessions.revoked_at',
        'sessions.expires_at',
        'sessions.client_id',
        'sessions.scopes',
      ])
      .where('refresh_tokens.token_hash', '=', presentedHash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || hasEnded(row.expires_at, now)) return { kind: 'invalid' as const };
    // Another client's token is refused untouched: it says nothing about whether it was copied.
    if (client !== undefined && row.client_id !== client) return { kind: 'invalid' as const };
    const rotated = { kind: 'rotated' as const, sessionId: row.session_id, userId: row.user_id, scopes: row.scopes === null ? null : parseScopes(row.scopes) };

    const claimed = await trx
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', presentedHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 1) {
      await trx
        .insertInto('refresh_tokens')
        .values({ token_hash: successorHash, session_id: row.session_id, created_at: now, used_at: null })
        .execute();
      return rotated;
    }

    // Already rotated: a concurrent or retried refresh, or a stolen token.
    const used = await trx
      .selectFrom('refresh_tokens')
      .select(['used_at'])
      .where('token_hash', '=', presentedHash)
      .executeTakeFirstOrThrow();
    const next = await trx
      .selectFrom('refresh_tokens')
      .select(['used_at'])
      .where('token_hash', '=', successorHash)
      .executeTakeFirst();
    const withinGrace = used.used_at !== null && now - used.used_at <= REFRESH_GRACE_MS;
    if (withinGrace && next && next.used_at === null) return rotated;
    await revokeSession(trx, row.session_id, 'refresh_token_reused', now);
    return { kind: 'reused' as const, sessionId: row.session_id, userId: row.user_id };
  });

  if (outcome.kind === 'invalid') throw invalidRefresh();
  if (outcome.kind === 'reused') {
    throw new ApiError(
      401,
      'refresh_token_reused',
      'This sign-in link was already used, so the session was ended for your safety. Please sign in again.',
    );
  }
  return { sessionId: outcome.sessionId, userId: outcome.userId, refreshToken: successor, scopes: outcome.scopes };
}

/**
 * Revokes the session a refresh token (any of its rotations) or an access token belongs to
 * (RFC 7009 §2.1); answers the session's id, or null when the token names none. The hint only
 * says which kind to try first.
 */
export async function revokeTokenSession(
  db: Kysely<Database>,
  tokens: TokenService,
  token: string,
  hint: 'refresh_token' | 'access_token' | undefined,
  now: number,
): Promise<string | null> {
  const byRefresh = async () =>
    (await db.selectFrom('refresh_tokens').select('session_id').where('token_hash', '=', hashToken(token)).executeTakeFirst())?.session_id;
  const byAccess = async () => tokens.verifyAccess(token)?.sessionId;
  const [first, second] = hint === 'access_token' ? [byAccess, byRefresh] : [byRefresh, byAccess];
  const sessionId = (await first()) ?? (await second());
  if (!sessionId) return null;
  await revokeSession(db, sessionId, 'revoked_by_client', now);
  return sessionId;
}

/** The user of a live session, with what the session may do: a web session everything, an add-on session its scopes. */
export interface ActiveSession {
  user: SessionUser;
  createdAt: number;
  kind: CredentialKindOfSession;
  scopes: Scope[] | null;
}

type SessionRow = CredentialUserRow & {
  key: string;
  session_created_at: number;
  session_expires_at: number;
  session_kind: CredentialKindOfSession;
  session_scopes: string | null;
};

/**
 * The user of a session that is neither revoked nor past its absolute end, with the plan that
 * applies now: the user's own, or Team while they are in a team whose subscription runs (one
 * indexed join, subscriptions and membership by primary or unique key); null otherwise. It runs on
 * every authenticated request, so it is a `keyedRead`: kept on SQLite until the database changes,
 * read together with the other requests of the moment on PostgreSQL. The SQL leaves the times to
 * the code below.
 */
export async function activeSession(database: DatabaseHandle, sessionId: string, now: number): Promise<ActiveSession | null> {
  const row = await database.keyedRead<SessionRow>(
    'active_session_user',
    (keys) => `select sessions.id as key, sessions.created_at as session_created_at, sessions.expires_at as session_expires_at, sessions.kind as session_kind,
       sessions.scopes as session_scopes, ${CREDENTIAL_USER_COLUMNS}
     from sessions inner join users on users.id = sessions.user_id ${CREDENTIAL_USER_JOIN}
     where sessions.id ${keys} and sessions.revoked_at is null`,
    sessionId,
  );
  if (!row || hasEnded(row.session_expires_at, now)) return null;
  return {
    user: credentialUser(row, now),
    createdAt: Number(row.session_created_at),
    kind: row.session_kind,
    scopes: row.session_scopes === null ? null : parseScopes(row.session_scopes),
  };
}

export async function revokeSession(db: Db, sessionId: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes every live session of the user, except `keep` when given; answers how many it ended. */
export async function revokeUserSessions(db: Db, userId: string, reason: string, now: number, keep?: string): Promise<number> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keep) query = query.where('id', '!=', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A live session as the profile lists it. */
export interface SessionView {
  id: string;
  kind: CredentialKindOfSession;
  client_id: string | null;
  created_at: number;
  last_used_at: number | null;
  ip: string | null;
  user_agent: string | null;
}

/** The user's live sessions, the most recently used first. */
export async function liveSessions(db: Db, userId: string, now: number): Promise<SessionView[]> {
  const rows = await liveCredentialsOf(db, 'sessions', userId, now)
    .select([
      'sessions.id',
      'sessions.kind',
      'sessions.client_id',
      'sessions.created_at',
      'credential_activity.last_used_at',
      'sessions.ip',
      'sessions.user_agent',
    ])
    .execute();
  const lastSeen = (session: SessionView) => session.last_used_at ?? session.created_at;
  return rows.sort((a, b) => lastSeen(b) - lastSeen(a));
}

/** Ends one live session of the user; false when there is none with that id (or it is someone else's). */
export function endSession(db: Db, userId: string, sessionId: string, reason: string, now: number): Promise<boolean> {
  return revokeLive(db, 'sessions', userId, sessionId, now, reason);
}
