import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { MailQueueSettings } from '../config';
import type { Database, Engine, MailOutboxTable } from '../db/types';
import type { Clock } from '../domain/clock';
import type { MailMessage, Mailer } from './mailer';

/**
 * Mail that is not lost (decisions.md, "Standards a client relies on"). Every mail is first a row
 * of `mail_outbox`; a sender runs on every instance and claims one due mail at a time with a lease
 * (`FOR UPDATE SKIP LOCKED` on PostgreSQL, where instances share the database; SQLite serves one
 * instance and runs one statement at a time), so each mail has one sender. A failed try is
 * recorded (`mail_attempts`) and tried again later, the wait doubling from `retryMinMs` up to an
 * hour, for 24 hours; then the mail is given up. An instance that stops while sending leaves its
 * lease to run out, and any instance sends the mail. The text is cleared once the mail is sent or
 * given up, since mails carry one-time links.
 */


/** How long a mail is tried before it is given up. */
export const RETRY_FOR_MS = 24 * 60 * 60_000;
const RETRY_MAX_MS = 60 * 60_000;

export type Delivery = 'sent' | 'pending' | 'failed';

/** `a***@example.com`: enough to tell mails apart in a log, not an address to collect. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at <= 0 ? '***' : `${address[0]}***${address.slice(at)}`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML part of a plain-text mail: its paragraphs, every character escaped, links made links. */
export function htmlOf(message: MailMessage): string {
  const paragraphs = message.text.split(/\n{2,}/).map((paragraph) => {
    const escaped = escapeHtml(paragraph)
      .split('\n')
      .join('<br>\n');
    return `<p>${escaped.replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`)}</p>`;
  });
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(message.subject)}</title></head>\n<body style="font-family: sans-serif; line-height: 1.5">\n${paragraphs.join('\n')}\n</body></html>\n`;
}

type Db = Kysely<Database> | Transaction<Database>;

export interface MailQueue extends Mailer {
  /** Queues a mail in `db` (a transaction, to queue it with what it announces); `kick` after commit. */
  enqueue(db: Db, message: MailMessage): Promise<void>;
  /** Wakes this instance's sender (after a commit that queued mail). */
  kick(): void;
  /** Sends what is due now, one mail after another, until none is left. */
  drain(): Promise<void>;
  /** `degraded` while the last try of this instance failed. */
  health(): 'ok' | 'degraded';
  stop(): Promise<void>;
}

export function createMailQueue(options: {
  db: Kysely<Database>;
  engine: Engine;
  transport: Mailer;
  clock: Clock;
  log: FastifyBaseLogger;
  settings: MailQueueSettings;
}): MailQueue {
  const { db, engine, transport, clock, log, settings } = options;
  let failing = false;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const unleased = (now: number) => (w: ExpressionBuilder<Database, 'mail_outbox'>) => w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]);

  /** Whether any mail is due: a read, so an idle queue's rounds write nothing (SQLite takes its write lock for any update). */
  const anyDue = async (now: number) =>
    (await db.selectFrom('mail_outbox').select('id').where('status', '=', 'pending').where('next_attempt_at', '<=', now).where(unleased(now)).limit(1).executeTakeFirst()) !== undefined;

  /** Takes one due mail that no live lease holds, for this sender; undefined when none is due. */
  const claim = async (now: number): Promise<MailOutboxTable | undefined> => {
    if (!(await anyDue(now))) return undefined;
    return db
      .updateTable('mail_outbox')
      .set((eb) => ({ lease_until: now + settings.leaseMs, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', (eb) =>
        eb
          .selectFrom('mail_outbox')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .where(unleased(now))
          .orderBy('next_attempt_at')
          .limit(1)
          .$if(engine === 'postgres', (query) => query.forUpdate().skipLocked()),
      )
      // Checked again on the row as it is when the update takes it (PostgreSQL re-reads a row another claim changed).
      .where('status', '=', 'pending')
      .where(unleased(now))
      .returningAll()
      .executeTakeFirst();
  };

  const sendOne = async (mail: MailOutboxTable) => {
    const message: MailMessage = { to: mail.recipient, subject: mail.subject ?? '', text: mail.body ?? '', kind: mail.kind };
    try {
      await transport.send({ ...message, html: htmlOf(message) });
    } catch (error) {
      const now = clock.now();
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      const givenUp = now - mail.created_at >= RETRY_FOR_MS;
      const wait = Math.min(RETRY_MAX_MS, settings.retryMinMs * 2 ** (mail.attempts - 1));
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('mail_attempts').values({ mail_id: mail.id, attempt: mail.attempts, at: now, outcome: 'failed', error: reason }).execute();
        await trx
          .updateTable('mail_outbox')
          .set(
            givenUp
              ? { status: 'failed', lease_until: null, last_error: reason, subject: null, body: null }
              : { next_attempt_at: now + wait, lease_until: null, last_error: reason },
          )
          .where('id', '=', mail.id)
          .execute();
      });
      failing = true;
      log.error(
        { event: 'mail.send_failed', kind: mail.kind, to: maskAddress(mail.recipient), attempt: mail.attempts, givenUp, retryInMs: givenUp ? null : wait, err: error },
        givenUp
          ? `${mail.kind} mail to ${maskAddress(mail.recipient)} not sent after 24 hours of tries: given up`
          : `${mail.kind} mail to ${maskAddress(mail.recipient)} not sent (try ${mail.attempts}): tried again in ${Math.round(wait / 1000)} s`,
      );
      return;
    }
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('mail_attempts').values({ mail_id: mail.id, attempt: mail.attempts, at: now, outcome: 'sent', error: null }).execute();
      await trx.updateTable('mail_outbox').set({ status: 'sent', sent_at: now, lease_until: null, subject: null, body: null }).where('id', '=', mail.id).execute();
    });
    failing = false;
    log.info({ event: 'mail.sent', kind: mail.kind, to: maskAddress(mail.recipient), attempt: mail.attempts }, 'mail sent');
  };

  const drainOnce = async () => {
    for (;;) {
      if (stopped) return;
      const mail = await claim(clock.now());
      if (!mail) return;
      await sendOne(mail);
    }
  };

  /** One drain at a time per instance; a kick during one runs another after it. */
  const drain = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await drainOnce();
        } catch (error) {
          // The database failed: the mails stay queued, the next round tries again.
          log.error({ event: 'mail.queue_failed', err: error }, 'mail queue could not be read');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const timer = setInterval(() => void drain(), settings.pollMs);
  timer.unref();

  const enqueue = async (target: Db, message: MailMessage) => {
    const now = clock.now();
    // A newer mail about the same thing (a resent invitation) replaces one not yet sent: its link is dead.
    if (message.ref) {
      await target.updateTable('mail_outbox').set({ status: 'superseded', subject: null, body: null }).where('ref', '=', message.ref).where('status', '=', 'pending').execute();
    }
    await target
      .insertInto('mail_outbox')
      .values({
        id: crypto.randomUUID(),
        kind: message.kind ?? 'mail',
        recipient: message.to,
        subject: message.subject,
        body: message.text,
        ref: message.ref ?? null,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        created_at: now,
        sent_at: null,
        last_error: null,
      })
      .execute();
  };

  return {
    enqueue,
    async send(message) {
      await enqueue(db, message);
      void drain();
    },
    kick: () => void drain(),
    drain,
    health: () => (failing ? 'degraded' : 'ok'),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** How the newest mail about each of `refs` fared: sent, not tried yet, or its last try failed (or it was given up). */
export async function deliveryOf(db: Db, refs: string[]): Promise<Map<string, Delivery>> {
  const result = new Map<string, Delivery>();
  if (refs.length === 0) return result;
  const rows = await db
    .selectFrom('mail_outbox')
    .select(['ref', 'status', 'last_error', 'created_at'])
    .where('ref', 'in', refs)
    .where('status', '!=', 'superseded')
    .orderBy('created_at')
    .execute();
  for (const row of rows) {
    result.set(row.ref!, row.status === 'sent' ? 'sent' : row.status === 'failed' || row.last_error !== null ? 'failed' : 'pending');
  }
  return result;
}
