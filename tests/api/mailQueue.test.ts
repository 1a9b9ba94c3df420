import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../server/app';
import { freePort } from '../helpers/server';
import { SmtpSink } from '../helpers/smtpSink';
import { join, signIn, teamOwner, type Account } from '../helpers/teams';
import { bearer, ENGINES, MailCatcher, post, register, useTestApp } from '../helpers/testApp';

/**
 * Mail that is not lost, against a real SMTP server (smtp-server, read back with mailparser) that
 * the test takes down, makes answer 451 and brings back: every mail is delivered exactly once,
 * with a text and an HTML part; meanwhile the invitation shows its mail failed, health says
 * `mail: "degraded"` and the instance answers on. On both engines.
 */

jest.setTimeout(60_000);

const RETRY_MIN_MS = 60_000;

describe.each(ENGINES)('mail through the durable queue on %s', (engine) => {
  const env: Record<string, string> = { MAIL_RETRY_MIN_MS: String(RETRY_MIN_MS) };
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = new SmtpSink(await freePort());
    env.SMTP_URL = sink.url;
    await sink.start();
  });
  afterAll(() => sink.stop());
  const ctx = useTestApp(engine, { env, realMailer: true });

  const health = async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(res.statusCode).toBe(200);
    return res.json().mail as string;
  };
  const invite = async (owner: Account, email: string) => {
    const res = await post(ctx.app, '/api/v1/teams/me/invitations', { email, role: 'member' }, bearer(owner.access_token));
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string; delivery: string };
  };
  const deliveries = async (owner: Account) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/teams/me/invitations', headers: bearer(owner.access_token) });
    return Object.fromEntries((res.json().invitations as Array<{ email: string; delivery: string }>).map((i) => [i.email, i.delivery]));
  };
  const tries = async (ref: string) =>
    (
      await ctx.app.database.db
        .selectFrom('mail_attempts')
        .innerJoin('mail_outbox', 'mail_outbox.id', 'mail_attempts.mail_id')
        .select(['mail_attempts.outcome'])
        .where('mail_outbox.ref', '=', ref)
        .orderBy('mail_attempts.at')
        .orderBy('mail_attempts.attempt')
        .execute()
    ).map((row) => row.outcome);
  const address = (name: string) => `${name}-${engine}-${Date.now()}@example.com`;

  it('sends a plain-text and an escaped HTML part, and shows the invitation sent', async () => {
    const owner = await teamOwner(ctx, { full_name: 'Ada <b>Bold</b> & Co' });
    const to = address('html');
    expect((await invite(owner, to)).delivery).toBe('pending');
    await ctx.app.mailer.drain();
    const [mail] = sink.to(to);
    expect(sink.to(to)).toHaveLength(1);
    expect(mail!.subject).toBe('You are invited to join a team on SheetMind');
    const link = /(http:\/\/\S+\/invite\/[\w-]+)/.exec(mail!.text!)![1]!;
    expect(mail!.html).toContain(`<a href="${link}">${link}</a>`);
    expect(mail!.html).toContain('Ada &#60;b&#62;Bold&#60;/b&#62; &#38; Co');
    expect(mail!.html).not.toContain('<b>');
    expect(await deliveries(owner)).toEqual({ [to]: 'sent' });
  });

  it('keeps mail while the server is down or answers 451, and delivers each once when it is back', async () => {
    const owner = await teamOwner(ctx);
    const [first, second] = [address('down'), address('refused')];
    await sink.stop();
    const firstInvitation = await invite(owner, first);
    await ctx.app.mailer.drain();
    // Down: the invitation shows it, health says so, the instance answers on; the log names the kind and a masked address.
    expect(await deliveries(owner)).toEqual({ [first]: 'failed' });
    expect(await health()).toBe('degraded');
    const failure = ctx.logs().split('\n').find((line) => line.includes('"mail.send_failed"') && line.includes(`${first[0]}***@example.com`));
    expect(failure).toMatch(/"kind":"team_invitation"/);
    expect(failure).not.toContain(first);

    await sink.start();
    sink.mode = 'refuse';
    await invite(owner, second);
    ctx.clock.advance(RETRY_MIN_MS);
    await ctx.app.mailer.drain();
    expect(await deliveries(owner)).toEqual({ [first]: 'failed', [second]: 'failed' });
    expect(sink.received.filter((mail) => [first, second].some((to) => sink.to(to).includes(mail)))).toEqual([]);

    sink.mode = 'accept';
    ctx.clock.advance(2 * RETRY_MIN_MS);
    await ctx.app.mailer.drain();
    expect([sink.to(first).length, sink.to(second).length]).toEqual([1, 1]);
    expect(await deliveries(owner)).toEqual({ [first]: 'sent', [second]: 'sent' });
    expect(await health()).toBe('ok');
    expect(await tries(firstInvitation.id)).toEqual(['failed', 'failed', 'sent']);
    // Sent: the text (a one-time link) is no longer kept.
    const row = await ctx.app.database.db.selectFrom('mail_outbox').selectAll().where('ref', '=', firstInvitation.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', body: null, subject: null });
    // Nothing more is due: a later round sends nothing twice.
    ctx.clock.advance(60 * 60_000);
    await ctx.app.mailer.drain();
    expect([sink.to(first).length, sink.to(second).length]).toEqual([1, 1]);
  });

  it('gives a mail up after 24 hours of tries, and a resend sends a new link once', async () => {
    const owner = await teamOwner(ctx);
    const to = address('given-up');
    await sink.stop();
    const invitation = await invite(owner, to);
    await ctx.app.mailer.drain();
    ctx.clock.advance(25 * 60 * 60_000);
    await ctx.app.mailer.drain();
    expect(ctx.logs()).toContain(`team_invitation mail to ${to[0]}***@example.com not sent after 24 hours of tries: given up`);
    await sink.start();
    // Given up: no later round sends it.
    ctx.clock.advance(2 * 60 * 60_000);
    await ctx.app.mailer.drain();
    expect(sink.to(to)).toEqual([]);
    await signIn(ctx, owner);
    expect(await deliveries(owner)).toEqual({ [to]: 'failed' });

    const resent = await post(ctx.app, `/api/v1/teams/me/invitations/${invitation.id}/resend`, {}, bearer(owner.access_token));
    expect(resent.json().delivery).toBe('pending');
    await ctx.app.mailer.drain();
    expect(sink.to(to)).toHaveLength(1);
    expect(await deliveries(owner)).toEqual({ [to]: 'sent' });
    const preview = await ctx.app.inject({ method: 'GET', url: `/api/v1/invitations/${/\/invite\/([\w-]+)/.exec(sink.to(to)[0]!.text!)![1]}` });
    expect(preview.statusCode).toBe(200);
  });

  it('has one sender per mail when two instances send from one database at once', async () => {
    const other = new MailCatcher();
    const second = await buildApp({ config: { ...ctx.config, logLevel: 'silent' }, database: ctx.app.database, clock: ctx.clock, mailer: other });
    try {
      const recipients = Array.from({ length: 20 }, (_, i) => address(`both${i}`));
      for (const to of recipients) await ctx.app.mailer.enqueue(ctx.app.database.db, { to, subject: 'Hello', text: 'Once.', kind: 'test' });
      await Promise.all([ctx.app.mailer.drain(), second.mailer.drain(), ctx.app.mailer.drain(), second.mailer.drain()]);
      const counts = recipients.map((to) => sink.to(to).length + other.sent.filter((mail) => mail.to === to).length);
      expect(counts).toEqual(recipients.map(() => 1));
    } finally {
      await second.close();
    }
  });

  it('sends the password-reset mail through the queue too', async () => {
    const person = await register(ctx.app);
    expect((await post(ctx.app, '/api/v1/auth/password-reset-request', { email: person.account.email })).statusCode).toBe(202);
    // The reset mail is queued after the answer: wait for it to be queued, then send it.
    // (The account's verification mail, queued as it registered, is the first of its mails.)
    const queued = async () => (await ctx.app.database.db.selectFrom('mail_outbox').select('id').where('recipient', '=', person.account.email).execute()).length === 2;
    for (let i = 0; i < 200 && !(await queued()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await ctx.app.mailer.drain();
    expect(sink.to(person.account.email).map((mail) => [mail.subject, mail.html === false ? null : typeof mail.html])).toEqual([
      ['Verify your email address for SheetMind', 'string'],
      ['Reset your SheetMind password', 'string'],
    ]);
  });
});

/**
 * A change whose mail tells the person what happened answers only once that mail is in the queue:
 * a crash right after the answer loses no mail, and a client that reads its mail after the answer
 * finds it there. The queue is held here, so an answer that did not wait for it would come anyway.
 */
describe.each(ENGINES)('a change answered only once its mail is queued, on %s', (engine) => {
  const ctx = useTestApp(engine);

  /** Holds every mail the app queues until the returned `release` is called. */
  function holdQueue() {
    const queue = ctx.app.mailer;
    const send = queue.send;
    const held: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    queue.send = async (message) => {
      held.push(message.kind ?? '');
      await released;
      return send(message);
    };
    return {
      held,
      release: () => {
        queue.send = send;
        release();
      },
    };
  }

  /** Sends `request` with the queue held: it must not be answered before the mails are queued. */
  async function answeredAfterQueued(request: () => Promise<LightMyRequestResponse>, kinds: string[]): Promise<LightMyRequestResponse> {
    const hold = holdQueue();
    let answered = false;
    const pending = request().then((res) => {
      answered = true;
      return res;
    });
    try {
      for (let i = 0; i < 500 && hold.held.length < kinds.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(hold.held).toEqual(kinds);
      // An answer that did not wait for the queue goes out at once: give it time to.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(answered).toBe(false);
    } finally {
      hold.release();
    }
    return pending;
  }

  it('a password change, a password reset and an ownership transfer', async () => {
    const person = await register(ctx.app);
    const changed = await answeredAfterQueued(
      () => ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me/password', headers: bearer(person.access_token), payload: { current_password: person.account.password, new_password: 'A-changed-secret-2026!' } }),
      ['password_changed'],
    );
    expect(changed.statusCode).toBe(204);
    expect((await ctx.mail.settledTo(person.account.email, 'password_changed')).length).toBe(1);

    expect((await post(ctx.app, '/api/v1/auth/password-reset-request', { email: person.account.email })).statusCode).toBe(202);
    const link = /https?:\/\/\S+/.exec((await ctx.mail.latestTo(person.account.email, 'password_reset')).text)![0];
    const reset = await answeredAfterQueued(
      () => post(ctx.app, '/api/v1/auth/password-reset', { token: new URL(link).searchParams.get('token'), new_password: 'A-reset-secret-2026!' }),
      ['password_changed'],
    );
    expect(reset.statusCode).toBe(204);
    expect((await ctx.mail.settledTo(person.account.email, 'password_changed')).map((mail) => mail.text.includes('reset with a link'))).toEqual([false, true]);

    const owner = await teamOwner(ctx);
    const member = await register(ctx.app);
    await join(ctx, owner, member);
    const transfer = await answeredAfterQueued(() => post(ctx.app, '/api/v1/teams/me/transfer', { user_id: member.user.id }, bearer(owner.access_token)), [
      'ownership_transferred',
      'ownership_transferred',
    ]);
    expect(transfer.statusCode).toBe(204);
    for (const to of [owner.account.email, member.account.email]) expect((await ctx.mail.settledTo(to, 'ownership_transferred')).length).toBe(1);
  });
});
