import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import type { SecondFactorMethod } from '../../contract/security';
import type { Database } from '../db/types';
import { ApiError } from '../errors';
import { passkeyCount } from './passkeys';
import { hashToken, randomToken } from './tokens';

/**
 * Second factors (decisions.md, "Advanced security"): an authenticator app (TOTP, RFC 6238:
 * SHA-1, 6 digits, 30 s, one step of drift either way), ten single-use recovery codes, and the
 * second step of a sign-in that needs one. A code is accepted once: the step it was accepted at is
 * recorded with a conditional update, so a replay, or the same code sent twice at once, fails.
 */

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps of drift accepted either side of now. */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
export const MFA_CHALLENGE_TTL_MS = 5 * 60_000;
export const MFA_CHALLENGE_TRIES = 5;


// ---- Secrets at rest: AES-256-GCM under a key kept outside the database ----

const KEY_FILE = 'second-factor.key';

/** The configured key, or the one generated once into the data directory (shared by instances on it). */
export function loadSecondFactorKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'hex');
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
}

export function sealSecret(key: Buffer, text: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !body) throw new Error('unreadable sealed secret');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

// ---- The authenticator app ----

function totpOf(secretBase32: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** The time step a code is good for, or null: now's, the one before or the one after. */
function stepOfCode(secretBase32: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

const invalidCode = () => new ApiError(400, 'invalid_code', 'That code is not valid. Enter the current code from your authenticator app.', { field: 'code' });

/** Starts (or restarts) set-up: a new secret, kept aside until a code from it confirms it. */
export async function startTotpSetup(db: Kysely<Database>, key: Buffer, user: { id: string; email: string }, issuer: string) {
  const state = await db.selectFrom('users').select('totp_enabled_at').where('id', '=', user.id).executeTakeFirstOrThrow();
  if (state.totp_enabled_at != null) {
    throw new ApiError(409, 'totp_already_enabled', 'Two-step sign-in with an authenticator app is already on. Turn it off first to set up another app.');
  }
  const secret = new Secret({ size: 20 }).base32;
  await db.updateTable('users').set({ totp_pending_secret: sealSecret(key, secret) }).where('id', '=', user.id).execute();
  return { secret, otpauth_url: totpOf(secret, user.email, issuer).toString() };
}

/** Confirms set-up with a code of the new secret: turns it on and answers the first recovery codes. */
export async function confirmTotp(db: Kysely<Database>, key: Buffer, userId: string, code: string, now: number): Promise<string[]> {
  const row = await db.selectFrom('users').select(['totp_pending_secret', 'totp_enabled_at']).where('id', '=', userId).executeTakeFirstOrThrow();
  if (row.totp_enabled_at != null) throw new ApiError(409, 'totp_already_enabled', 'Two-step sign-in with an authenticator app is already on.');
  if (!row.totp_pending_secret) throw new ApiError(409, 'totp_setup_missing', 'Start the set-up first: no authenticator app is waiting for its first code.');
  const step = stepOfCode(openSecret(key, row.totp_pending_secret), code.trim(), now);
  if (step === null) throw invalidCode();
  return db.transaction().execute(async (trx) => {
    const turnedOn = await trx
      .updateTable('users')
      .set({ totp_secret: row.totp_pending_secret, totp_pending_secret: null, totp_enabled_at: now, totp_last_step: step })
      .where('id', '=', userId)
      .where('totp_pending_secret', '=', row.totp_pending_secret!)
      .where('totp_enabled_at', 'is', null)
      .executeTakeFirst();
    if (Number(turnedOn.numUpdatedRows) !== 1) throw new ApiError(409, 'totp_setup_missing', 'The set-up changed meanwhile. Start it again.');
    return replaceRecoveryCodes(trx, userId, now);
  });
}

/** Turns the authenticator app off and voids the recovery codes; false when it was not on. */
export async function disableTotp(db: Kysely<Database>, userId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('users')
      .set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null })
      .where('id', '=', userId)
      .where('totp_enabled_at', 'is not', null)
      .executeTakeFirst();
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    return Number(result.numUpdatedRows) === 1;
  });
}

/**
 * Checks a code of the user's authenticator app and uses it up: true once for a code of a step
 * later than the last accepted one, false for a wrong, old or replayed code.
 */
export async function useTotpCode(db: Kysely<Database>, key: Buffer, userId: string, code: string, now: number): Promise<boolean> {
  const row = await db.selectFrom('users').select(['totp_secret']).where('id', '=', userId).executeTakeFirst();
  if (!row?.totp_secret) return false;
  const step = stepOfCode(openSecret(key, row.totp_secret), code.trim(), now);
  if (step === null) return false;
  const taken = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

// ---- Recovery codes ----

/** Lower-case letters and digits a person cannot mistake for one another (no 0/o, 1/l/i). */
const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

function newRecoveryCode(): string {
  const bytes = crypto.randomBytes(10);
  const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A code as typed: case, spaces and the hyphen do not matter. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/** Voids the user's recovery codes and answers ten new ones (the only copy in the clear). */
export async function replaceRecoveryCodes(db: Kysely<Database>, userId: string, now: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(codes.map((code) => ({ user_id: userId, code_hash: hashToken(normaliseRecoveryCode(code)), created_at: now, used_at: null })))
    .execute();
  return codes;
}

/** Uses one recovery code: true once per code. */
export async function useRecoveryCode(db: Kysely<Database>, userId: string, code: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hashToken(normaliseRecoveryCode(code)))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface SecondFactorStatus {
  totp_enabled: boolean;
  totp_enabled_at: string | null;
  recovery_codes_left: number;
  passkeys: number;
}

/** What the profile shows: whether the app is on, how many recovery codes are unused, how many passkeys. */
export async function secondFactorStatus(db: Kysely<Database>, userId: string): Promise<SecondFactorStatus> {
  const [user, codes, passkeys] = await Promise.all([
    db.selectFrom('users').select('totp_enabled_at').where('id', '=', userId).executeTakeFirstOrThrow(),
    db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow(),
    passkeyCount(db, userId),
  ]);
  return {
    totp_enabled: user.totp_enabled_at != null,
    totp_enabled_at: user.totp_enabled_at != null ? new Date(Number(user.totp_enabled_at)).toISOString() : null,
    recovery_codes_left: Number(codes.n),
    passkeys,
  };
}

/**
 * The second factors a password sign-in must finish with; empty when it needs none. Two-step
 * sign-in is on with an authenticator app: then the app's code, any of the account's passkeys, or a
 * recovery code. An account with passkeys and no app signs in with a passkey directly, or with its
 * password alone; a team that requires two-step sign-in (`passkeyRequired`) makes its passkey the
 * second step of a password sign-in too.
 */
export async function secondFactorMethods(db: Kysely<Database>, userId: string, passkeyRequired = false): Promise<SecondFactorMethod[]> {
  const status = await secondFactorStatus(db, userId);
  if (status.totp_enabled) return status.passkeys > 0 ? ['totp', 'webauthn', 'recovery_code'] : ['totp', 'recovery_code'];
  return status.passkeys > 0 && passkeyRequired ? ['webauthn'] : [];
}

// ---- The second step of a sign-in ----

const expiredChallenge = () =>
  new ApiError(401, 'mfa_token_invalid', 'This sign-in has expired or had too many tries. Please sign in again.');

/** After the right password: a token that lets the sign-in finish with a second factor. */
export async function createMfaChallenge(db: Kysely<Database>, userId: string, now: number): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('mfa_challenges')
    .values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: now + MFA_CHALLENGE_TTL_MS, tries: 0, used_at: null })
    .execute();
  return token;
}

/** Takes one of the token's tries (a conditional update: tries sent at once cannot exceed five); answers its user. */
export async function takeMfaTry(db: Kysely<Database>, token: string, now: number): Promise<string> {
  const tokenHash = hashToken(token);
  const taken = await db
    .updateTable('mfa_challenges')
    .set((eb) => ({ tries: eb('tries', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('tries', '<', MFA_CHALLENGE_TRIES)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) throw expiredChallenge();
  const row = await db.selectFrom('mfa_challenges').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
  return row.user_id;
}

/** The user of a second step still under way, without taking a try (for a passkey's options). */
export async function mfaChallengeUser(db: Kysely<Database>, token: string, now: number): Promise<string> {
  const row = await db
    .selectFrom('mfa_challenges')
    .select('user_id')
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('tries', '<', MFA_CHALLENGE_TRIES)
    .executeTakeFirst();
  if (!row) throw expiredChallenge();
  return row.user_id;
}

/** Ends the challenge once its second factor passed; a second finish of the same token fails. */
export async function finishMfaChallenge(db: Kysely<Database>, token: string, now: number): Promise<void> {
  const done = await db
    .updateTable('mfa_challenges')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) throw expiredChallenge();
}

// ---- Browsers and devices the account has used ----

/**
 * Records the browser a sign-in came from; true when the account had not used it before. A browser
 * is its user-agent string without version numbers: another browser or device counts as new, an
 * update of the same one does not.
 */
export async function recordDevice(db: Kysely<Database>, userId: string, userAgent: string | undefined, now: number): Promise<boolean> {
  // An account made before browsers were recorded knows none: its first one is recorded, not mailed about.
  const known = await db.selectFrom('known_devices').select('device_hash').where('user_id', '=', userId).limit(1).executeTakeFirst();
  const result = await db
    .insertInto('known_devices')
    .values({ user_id: userId, device_hash: hashToken((userAgent ?? '').replace(/\d+([._]\d+)*/g, '')), first_seen_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doNothing())
    .executeTakeFirst();
  return known !== undefined && Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
