import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** What the mail is (`password_reset`, `team_invitation`, …), as logs name it. */
  kind?: string;
  /** What it is about (an invitation's id), so its delivery can be shown there. */
  ref?: string;
  /** The HTML part, made from the text by the queue (server/mail/queue.ts). */
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** What a transport is handed: no queue bookkeeping. */
const envelope = ({ to, subject, text, html }: MailMessage) => ({ to, subject, text, ...(html ? { html } : {}) });

/**
 * The transport the mail queue (queue.ts) sends with: SMTP when SMTP_URL is set; otherwise each message is written as an .eml file to
 * `dataDir/outbox`, so a local run works end to end (open the file to follow a reset link).
 * The log names the file, never the message: mails carry one-time links.
 */
export function createMailer(options: { smtpUrl: string | null; from: string; dataDir: string; log: FastifyBaseLogger }): Mailer {
  if (options.smtpUrl) {
    // Bounded well within the queue's lease, so a server that never answers costs one try, not the mail.
    const transport = nodemailer.createTransport({ url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    return {
      async send(message) {
        await transport.sendMail({ from: options.from, ...envelope(message) });
      },
    };
  }
  const outbox = path.join(options.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...envelope(message) });
      // Mails carry reset links: the folder and its files are the server user's alone.
      fs.mkdirSync(outbox, { recursive: true, mode: 0o700 });
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}.eml`);
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      options.log.info({ file }, 'no SMTP_URL set: mail written to the outbox');
    },
  };
}

/**
 * Queues a mail (the queue sends it, so delivery time tells a caller nothing); a failure to queue is
 * logged. Resolves once it is queued (or the failure logged). Routes await it before answering, so a
 * crash after the answer loses no mail; only the reset link is queued after the answer, so that the
 * answer's timing cannot tell whether the address has an account.
 */
export function deliverLater(mailer: Mailer, log: FastifyBaseLogger, message: MailMessage): Promise<void> {
  return mailer.send(message).catch((error: unknown) => log.error({ err: error, kind: message.kind }, 'mail could not be queued'));
}
