import type { Kysely } from 'kysely';
import type { Database, PasswordResetsTable } from '../db/types';
import { ApiError } from '../errors';
import { revokeUserSessions } from './sessions';
import { hashToken, randomToken } from './tokens';
import { setPasswordHash } from './users';

/**
 * Password-reset links: a random single-use token, stored only hashed, valid an hour. Using one
 * sets the password, voids every other link of the account and ends every session.
 */

export const RESET_TTL_MS = 60 * 60_000;

const invalidResetToken = () =>
  new ApiError(400, 'invalid_reset_token', 'This reset link is invalid, expired or already used. Please request a new one.', { field: 'token' });

/** Records a new reset link for the user; answers its token, the only copy in the clear. */
export async function createPasswordReset(db: Kysely<Database>, userId: string, now: number): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('password_resets')
    .values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: now + RESET_TTL_MS, used_at: null })
    .execute();
  return token;
}

/** The reset a link's token names, while it can still be used; 400 `invalid_reset_token` otherwise. */
export async function usableReset(db: Kysely<Database>, token: string, now: number): Promise<PasswordResetsTable> {
  const reset = await db.selectFrom('password_resets').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  if (!reset || reset.used_at !== null || reset.expires_at <= now) throw invalidResetToken();
  return reset;
}

/**
 * Uses the reset once (a conditional update, so two uses at once cannot both win): sets the new
 * password, voids the account's other links, ends every session and revokes every API key (whoever
 * could reset the password could have read them), in one transaction. Answers whose password it
 * was and how many keys were revoked.
 */
export function completeReset(
  db: Kysely<Database>,
  reset: PasswordResetsTable,
  passwordHash: string,
  now: number,
): Promise<{ id: string; email: string; apiKeysRevoked: number }> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', reset.token_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) throw invalidResetToken();
    await setPasswordHash(trx, reset.user_id, passwordHash, now);
    await revokeUserSessions(trx, reset.user_id, 'password_reset', now);
    const keys = await trx.updateTable('api_keys').set({ revoked_at: now }).where('user_id', '=', reset.user_id).where('revoked_at', 'is', null).executeTakeFirst();
    const user = await trx.selectFrom('users').select(['id', 'email']).where('id', '=', reset.user_id).executeTakeFirstOrThrow();
    return { ...user, apiKeysRevoked: Number(keys.numUpdatedRows) };
  });
}
