import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, DeviceGrantsTable } from '../db/types';
import { USER_CODE_ALPHABET, USER_CODE_LENGTH } from '../../contract/userCode';
import { parseScopes, type Scope } from './scopes';
import { createSession, type IssuedSession } from './sessions';
import { hashToken, randomToken, type TokenService } from './tokens';

/**
 * The Device Authorization Grant (RFC 8628): the add-on asks for a code pair, the person enters
 * the user code at /link and approves or denies, and the add-on polls for the outcome.
 */

/** RFC 8628 §3.5: each `slow_down` adds 5 seconds to the interval, for that and every later poll. */
export const SLOW_DOWN_STEP_S = 5;

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[crypto.randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

export interface GrantRequest {
  clientId: string;
  scopes: readonly Scope[];
  ip: string;
  userAgent: string | undefined;
  ttlMs: number;
  intervalS: number;
  now: number;
}

export async function startDeviceGrant(db: Kysely<Database>, request: GrantRequest): Promise<{ deviceCode: string; userCode: string }> {
  const deviceCode = randomToken();
  // A user code may meet a live one (1 in 2.5e10 per live grant): the unique index refuses it, and a new one is drawn.
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await db
        .insertInto('device_grants')
        .values({
          id: crypto.randomUUID(),
          device_code_hash: hashToken(deviceCode),
          user_code_hash: hashToken(userCode),
          client_id: request.clientId,
          scopes: request.scopes.join(' '),
          status: 'pending',
          user_id: null,
          created_at: request.now,
          expires_at: request.now + request.ttlMs,
          interval_s: request.intervalS,
          last_polled_at: null,
          decided_at: null,
          ip: request.ip,
          user_agent: request.userAgent?.slice(0, 300) ?? null,
        })
        .execute();
      return { deviceCode, userCode };
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}

/** What the approval page shows about a grant (RFC 8628 §5.4: enough to spot a request that is not yours). */
export interface GrantView {
  client_id: string;
  scopes: Scope[];
  requested_at: number;
  ip: string;
  user_agent: string | null;
  expires_at: number;
}

export type GrantLookup = { kind: 'pending' | 'decided'; grant: GrantView } | { kind: 'unknown' | 'expired' | 'used' };

function viewOf(row: DeviceGrantsTable): GrantView {
  return { client_id: row.client_id, scopes: parseScopes(row.scopes), requested_at: row.created_at, ip: row.ip, user_agent: row.user_agent, expires_at: row.expires_at };
}

function lookupOf(row: DeviceGrantsTable | undefined, now: number): GrantLookup {
  if (!row) return { kind: 'unknown' };
  if (row.status !== 'pending') return { kind: 'used' };
  if (row.expires_at <= now) return { kind: 'expired' };
  return { kind: 'pending', grant: viewOf(row) };
}

export async function findGrantByUserCode(db: Kysely<Database>, userCode: string, now: number): Promise<GrantLookup> {
  const row = await db.selectFrom('device_grants').selectAll().where('user_code_hash', '=', hashToken(userCode)).executeTakeFirst();
  return lookupOf(row, now);
}

/**
 * Approves or denies a pending grant: one conditional update, so of two decisions sent at once
 * exactly one lands (`decided`); otherwise answers why it could not be decided.
 */
export async function decideGrant(
  db: Kysely<Database>,
  userCode: string,
  userId: string,
  decision: 'approved' | 'denied',
  now: number,
): Promise<GrantLookup> {
  const hash = hashToken(userCode);
  const result = await db
    .updateTable('device_grants')
    .set({ status: decision, user_id: userId, decided_at: now })
    .where('user_code_hash', '=', hash)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  const row = await db.selectFrom('device_grants').selectAll().where('user_code_hash', '=', hash).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1 && row) return { kind: 'decided', grant: viewOf(row) };
  return lookupOf(row, now);
}

/** The RFC 8628 §3.5 outcome of one poll. */
export type PollOutcome =
  | { kind: 'tokens'; session: IssuedSession; scopes: Scope[] }
  | { kind: 'error'; error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant'; intervalS?: number };

export interface Poll {
  deviceCode: string;
  clientId: string;
  ip: string;
  userAgent: string | undefined;
  now: number;
}

/**
 * One poll of the token endpoint. Every change is a conditional update, so polls sent at once
 * cannot both be "on time", and an approved grant gives out tokens once.
 */
export async function pollGrant(db: Kysely<Database>, tokens: TokenService, poll: Poll): Promise<PollOutcome> {
  const hash = hashToken(poll.deviceCode);
  const row = await db.selectFrom('device_grants').selectAll().where('device_code_hash', '=', hash).executeTakeFirst();
  // RFC 6749 §5.2: a code issued to another client is an invalid grant.
  if (!row || row.client_id !== poll.clientId || row.status === 'used') return { kind: 'error', error: 'invalid_grant' };
  if (row.expires_at <= poll.now) return { kind: 'error', error: 'expired_token' };

  if (row.status === 'denied') {
    // Said once; after that the code is spent.
    const spent = await db.updateTable('device_grants').set({ status: 'used' }).where('id', '=', row.id).where('status', '=', 'denied').executeTakeFirst();
    return { kind: 'error', error: Number(spent.numUpdatedRows) === 1 ? 'access_denied' : 'invalid_grant' };
  }

  if (row.status === 'approved') {
    return db.transaction().execute(async (trx) => {
      const claimed = await trx.updateTable('device_grants').set({ status: 'used' }).where('id', '=', row.id).where('status', '=', 'approved').executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return { kind: 'error', error: 'invalid_grant' } as const;
      const scopes = parseScopes(row.scopes);
      const session = await createSession(trx, tokens, row.user_id!, poll.now, {
        kind: 'addon',
        clientId: row.client_id,
        scopes,
        ip: poll.ip,
        userAgent: poll.userAgent,
      });
      return { kind: 'tokens', session, scopes } as const;
    });
  }

  // Pending: on time when the last poll is at least an interval old; otherwise the interval grows.
  const onTime = await db
    .updateTable('device_grants')
    .set({ last_polled_at: poll.now })
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where((eb) =>
      eb.or([eb('last_polled_at', 'is', null), eb(eb('last_polled_at', '+', eb(eb.ref('interval_s'), '*', 1000)), '<=', poll.now)]),
    )
    .executeTakeFirst();
  if (Number(onTime.numUpdatedRows) === 1) return { kind: 'error', error: 'authorization_pending' };
  const slowed = await db
    .updateTable('device_grants')
    .set((eb) => ({ interval_s: eb(eb.ref('interval_s'), '+', SLOW_DOWN_STEP_S), last_polled_at: poll.now }))
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .returning('interval_s')
    .executeTakeFirst();
  // Decided between the two statements: the next poll gets the outcome.
  if (!slowed) return { kind: 'error', error: 'authorization_pending' };
  return { kind: 'error', error: 'slow_down', intervalS: slowed.interval_s };
}
