import type { Kysely } from 'kysely';

/**
 * The durable mail queue (`server/mail/queue.ts`): every mail is a row before it is sent, so a
 * mail server that is down, or an instance that stops, loses none. `mail_outbox` holds one row per
 * mail (its text kept only until it is sent or given up), `mail_attempts` one per try.
 *
 * `mail_outbox_due` serves the senders' claim (the pending mails by the time they are due);
 * `mail_outbox_by_ref` the delivery state of an invitation's mails.
 */
// Frozen: a landed migration is never edited; a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('body', 'text')
    // What the mail is about (an invitation's id), so its delivery can be shown beside it.
    .addColumn('ref', 'text')
    // pending → sent | failed (given up after 24 hours) | superseded (a newer mail replaced it).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    // While set and in the future, one sender holds the mail.
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_outbox_by_ref').on('mail_outbox').column('ref').execute();
  await db.schema
    .createTable('mail_attempts')
    .addColumn('mail_id', 'text', (c) => c.notNull().references('mail_outbox.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('mail_attempts_pk', ['mail_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_attempts').execute();
  await db.schema.dropTable('mail_outbox').execute();
}
