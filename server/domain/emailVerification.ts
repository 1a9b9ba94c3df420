import type { Kysely } from 'kysely';
import type { Database } from '../db/types';
import { ApiError } from '../errors';
import { hashToken, randomToken } from './tokens';
import type { UserColumns } from './users';

/**
 * Verified email (decisions.md, "Advanced security"): a link mailed to the account's address
 * confirms it. Its token is random, single use, stored only hashed and valid 24 hours; it names the
 * address it was sent to, so it confirms that address and no other. Until an account has confirmed
 * its address, creating API keys, inviting and accepting invitations answer 403 `email_unverified`.
 */

export const VERIFY_TTL_MS = 24 * 60 * 60_000;

const refused = (why: string) => new ApiError(400, 'invalid_verification_token', `This verification link ${why}. Ask for a new one from the banner on your dashboard.`, { field: 'token' });

/** Records a new link for the user's address; answers its token, the only copy in the clear. */
export async function createEmailVerification(db: Kysely<Database>, user: { id: string; email: string }, now: number): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('email_verifications')
    .values({ token_hash: hashToken(token), user_id: user.id, email: user.email, created_at: now, expires_at: now + VERIFY_TTL_MS, used_at: null })
    .execute();
  return token;
}

/**
 * Uses a link once (a conditional update, so two uses at once cannot both win) and marks the
 * account's address confirmed, keeping the first confirmation's time: confirming again is no change.
 * Answers whose address it confirmed; 400 `invalid_verification_token` naming why otherwise.
 */
export function verifyEmail(db: Kysely<Database>, token: string, now: number): Promise<{ userId: string }> {
  return db.transaction().execute(async (trx) => {
    const link = await trx.selectFrom('email_verifications').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
    if (!link) throw refused('is not valid');
    if (link.used_at !== null) throw refused('was already used');
    if (Number(link.expires_at) <= now) throw refused('has expired (links work for 24 hours)');
    const claimed = await trx
      .updateTable('email_verifications')
      .set({ used_at: now })
      .where('token_hash', '=', link.token_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) throw refused('was already used');
    const confirmed = await trx
      .updateTable('users')
      .set((eb) => ({ email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)) }))
      .where('id', '=', link.user_id)
      .where('email', '=', link.email)
      .executeTakeFirst();
    if (Number(confirmed.numUpdatedRows) !== 1) throw refused('was sent to an address the account no longer has');
    return { userId: link.user_id };
  });
}

export const isVerified = (user: Pick<UserColumns, 'email_verified_at'>): boolean => user.email_verified_at !== null;

/** The 403 of the calls that need a confirmed address: creating API keys, inviting, accepting invitations. */
export function requireVerifiedEmail(user: Pick<UserColumns, 'email_verified_at' | 'email'>): void {
  if (isVerified(user)) return;
  throw new ApiError(403, 'email_unverified', `Please verify your email address first: open the link we sent to ${user.email}, or ask for a new one.`);
}
