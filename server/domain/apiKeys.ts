import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/database';
import type { Database } from '../db/types';
import { parseScopes, type Scope } from './scopes';
import { CREDENTIAL_USER_COLUMNS, CREDENTIAL_USER_JOIN, credentialUser, hasEnded, liveCredentialsOf, revokeLive, type CredentialUserRow, type SessionUser } from './liveCredentials';
import { hashToken } from './tokens';

export const API_KEY_PREFIX = 'sm_live_';
export const API_KEY_EXPIRIES_DAYS = [30, 90, 365] as const;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base-62 characters: about 190 bits. */
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const DAY_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += BASE62[crypto.randomInt(BASE62.length)];
  return text;
}

/**
 * The checksum lets a mistyped or truncated key be refused without a database read, and lets
 * secret scanners tell a real key from lookalike text (as GitHub's token format does).
 */
function checksumOf(secret: string): string {
  const digest = crypto.createHash('sha256').update(secret).digest();
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) text += BASE62[digest[i]! % BASE62.length];
  return text;
}

export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** Whether the text is a key this server could have issued (shape and checksum). */
export function wellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length);
  return checksumOf(body.slice(0, SECRET_LENGTH)) === body.slice(SECRET_LENGTH);
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: Scope[];
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

export interface NewApiKey {
  name: string;
  scopes: readonly Scope[];
  expiresInDays: number | null;
}

/** Creates a key; answers it with its secret, which is never stored and never shown again. */
export async function createApiKey(db: Kysely<Database>, userId: string, input: NewApiKey, now: number): Promise<ApiKeyView & { key: string }> {
  const secret = base62(SECRET_LENGTH);
  const key = `${API_KEY_PREFIX}${secret}${checksumOf(secret)}`;
  const row = {
    id: crypto.randomUUID(),
    user_id: userId,
    key_hash: hashToken(key),
    name: input.name,
    prefix: key.slice(0, API_KEY_PREFIX.length + 4),
    last4: key.slice(-4),
    scopes: [...new Set(input.scopes)].join(' '),
    created_at: now,
    expires_at: input.expiresInDays === null ? null : now + input.expiresInDays * DAY_MS,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  const { user_id: _user, key_hash: _hash, revoked_at: _revoked, ...view } = row;
  return { ...view, scopes: parseScopes(row.scopes), last_used_at: null, key };
}

/** The user's keys that still work, newest first. */
export async function liveApiKeys(db: Kysely<Database>, userId: string, now: number): Promise<ApiKeyView[]> {
  const rows = await liveCredentialsOf(db, 'api_keys', userId, now)
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.prefix',
      'api_keys.last4',
      'api_keys.scopes',
      'api_keys.created_at',
      'api_keys.expires_at',
      'credential_activity.last_used_at',
    ])
    .orderBy('api_keys.created_at', 'desc')
    .orderBy('api_keys.id')
    .execute();
  return rows.map((row) => ({ ...row, scopes: parseScopes(row.scopes) }));
}

/** Revokes one of the user's keys; false when the user has no such key that still works. */
export function revokeApiKey(db: Kysely<Database>, userId: string, keyId: string, now: number): Promise<boolean> {
  return revokeLive(db, 'api_keys', userId, keyId, now);
}

export type KeyCheck =
  | { ok: true; keyId: string; user: SessionUser; scopes: Scope[] }
  | { ok: false; reason: 'invalid' | 'revoked' | 'expired' };

type KeyRow = CredentialUserRow & { key_id: string; key_scopes: string; key_expires_at: number | null; key_revoked_at: number | null };

/**
 * The key's user and scopes, read on every request the key makes (never kept), so a revoked key
 * stops working at its next request.
 */
export async function checkApiKey(database: DatabaseHandle, key: string, now: number): Promise<KeyCheck> {
  if (!wellFormedKey(key)) return { ok: false, reason: 'invalid' };
  const row = await database.preparedFirst(
    'api_key_user',
    sql<KeyRow>`select api_keys.id as key_id, api_keys.scopes as key_scopes, api_keys.expires_at as key_expires_at,
       api_keys.revoked_at as key_revoked_at, ${sql.raw(CREDENTIAL_USER_COLUMNS)}
     from api_keys inner join users on users.id = api_keys.user_id ${sql.raw(CREDENTIAL_USER_JOIN)}
     where api_keys.key_hash = ${hashToken(key)}`,
  );
  if (!row) return { ok: false, reason: 'invalid' };
  if (row.key_revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (hasEnded(row.key_expires_at, now)) return { ok: false, reason: 'expired' };
  return { ok: true, keyId: row.key_id, user: credentialUser(row, now), scopes: parseScopes(row.key_scopes) };
}
