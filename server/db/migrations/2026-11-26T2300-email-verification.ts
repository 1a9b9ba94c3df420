import type { Kysely } from 'kysely';

/**
 * Verified email (decisions.md, "Advanced security"): when the account's address was confirmed
 * (null: not yet, which every account made before this migration is), and the links mailed to
 * confirm it: a random single-use token stored only hashed, valid 24 hours, naming the address it
 * was sent to, so a link confirms that address and no other.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'bigint').execute();
  await db.schema
    .createTable('email_verifications')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('email_verifications_user_id').on('email_verifications').column('user_id').execute();
  await db.schema.createIndex('email_verifications_by_expiry').on('email_verifications').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_verifications').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
}
