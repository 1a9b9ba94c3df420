import type { Kysely } from 'kysely';

/**
 * Invitation mail is bounded like reset mail (decisions.md, "Team money and roles"): every mail an
 * invitation or its resend sends is a row here, written in the transaction that issues its link,
 * so the count holds across instances on one database and for requests sent at once. Rows name the
 * team and the (normalised) address the mail went to; they are pruned a day after they stop counting
 * (`server/domain/retention.ts`).
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invitation_mails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invitation_mails_by_email').on('invitation_mails').columns(['email', 'sent_at']).execute();
  await db.schema.createIndex('invitation_mails_by_team').on('invitation_mails').columns(['team_id', 'sent_at']).execute();
  await db.schema.createIndex('invitation_mails_by_time').on('invitation_mails').column('sent_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('invitation_mails').execute();
}
