import crypto from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { HASHING, hashPassword } from '../../server/domain/passwords';
import { LOGIN_LIMITS, REGISTER_LIMITS, RESET_LIMITS } from '../../server/routes/auth';
import { PASSWORD_CHANGE_LIMIT } from '../../server/routes/users';
import { eventually } from '../helpers/eventually';
import { ENGINES, bearer, newAccount, newAddress, register, LIMIT_STORES, useTestAppWithStore } from '../helpers/testApp';

/**
 * Requests sent all at once, as an attacker sends them: a limit holds however they are timed,
 * on both engines, with counters in memory and in Redis.
 */

jest.setTimeout(60_000);

// The object the server's password module calls (a namespace import would be a copy of it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const argon2 = require('@node-rs/argon2') as typeof import('@node-rs/argon2');
/** The password of the hashes that fill the queue. */
const FILLER = 'Filling-the-queue-1';

const CASES = ENGINES.flatMap((engine) => LIMIT_STORES.map((store) => [engine, store] as const));

/** How many answers had each status. */
function tally(answers: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.statusCode] = (counts[answer.statusCode] ?? 0) + 1;
  return counts;
}

describe.each(CASES)('limits under concurrency on %s with the %s store', (engine, store) => {
  const ctx = useTestAppWithStore(engine, store);

  const send = (url: string, payload: object, remoteAddress: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, remoteAddress, headers });
  const login = (email: string, password: string, from: string) => send('/auth/login/email', { email, password }, from);
  const mailsTo = (to: string) => ctx.mail.sent.filter((mail) => mail.to === to && mail.kind === 'password_reset');
  /**
   * The reset mails to the account `userId` once the work of each of its `answered` requests is done
   * (it runs after the answer, queues the mail and then logs `auth.reset_requested`), and the app's
   * queue has sent what it holds.
   */
  const resetMailsTo = async (to: string, userId: string, answered: number) => {
    const requestsDone = async () => ctx.logs().split('\n').filter((line) => line.includes('"auth.reset_requested"') && line.includes(`"userId":"${userId}"`)).length;
    await eventually(requestsDone, answered);
    return ctx.mail.settledTo(to, 'password_reset');
  };

  it('evaluates no more guesses of a burst of 300 than the account limit, and the right password in it does not sign in', async () => {
    const { account } = await register(ctx.app);
    const from = newAddress();
    const guesses = Array.from({ length: 300 }, (_, i) => (i === 299 ? account.password : `Wrong-guess-${i}-x`));
    const answers = await Promise.all(guesses.map((password) => login(account.email, password, from)));
    const counts = tally(answers);
    expect(counts[401]).toBeGreaterThan(0);
    expect(counts[401]).toBeLessThanOrEqual(LOGIN_LIMITS.account.max);
    expect(counts[401]! + counts[429]!).toBe(300);
    expect(answers.at(-1)!.statusCode).toBe(429);
    for (const answer of answers.filter((a) => a.statusCode === 429)) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    // The owner's right password, from anywhere, waits like the guesses.
    expect((await login(account.email, account.password, newAddress())).statusCode).toBe(429);
  });

  it('evaluates no more of 120 simultaneous failures from one address than the address limit', async () => {
    const from = newAddress();
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => login(`nobody-${i}-${crypto.randomUUID()}@example.com`, 'Wrong-guess-123', from)),
    );
    const counts = tally(answers);
    expect(counts[401]).toBeGreaterThan(0);
    expect(counts[401]).toBeLessThanOrEqual(LOGIN_LIMITS.ip.max);
    expect(counts[401]! + counts[429]!).toBe(120);
  });

  it('checks no more current passwords of a burst of 30 password changes than the limit', async () => {
    const session = await register(ctx.app);
    const change = (current: string) =>
      ctx.app.inject({
        method: 'PUT',
        url: '/api/v1/users/me/password',
        headers: bearer(session.access_token),
        payload: { current_password: current, new_password: 'Brand-new-secret-42' },
      });
    const counts = tally(await Promise.all(Array.from({ length: 30 }, (_, i) => change(`Wrong-current-${i}`))));
    expect(counts[400]).toBeGreaterThan(0);
    expect(counts[400]).toBeLessThanOrEqual(PASSWORD_CHANGE_LIMIT.max);
    expect(counts[400]! + counts[429]!).toBe(30);
    expect((await change(session.account.password)).statusCode).toBe(429);
  });

  it('answers and mails no more of 200 simultaneous reset requests for one address than the account limit', async () => {
    const { account, user } = await register(ctx.app);
    const from = newAddress();
    const answers = await Promise.all(Array.from({ length: 200 }, () => send('/auth/password-reset-request', { email: account.email }, from)));
    expect(tally(answers)).toEqual({ 202: RESET_LIMITS.account.max, 429: 200 - RESET_LIMITS.account.max });
    expect(await resetMailsTo(account.email, user.id, RESET_LIMITS.account.max)).toHaveLength(RESET_LIMITS.account.max);
  });

  it('answers no more simultaneous reset requests from one address than the address limit', async () => {
    const from = newAddress();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => send('/auth/password-reset-request', { email: `ghost-${i}-${crypto.randomUUID()}@example.com` }, from)),
    );
    expect(tally(answers)).toEqual({ 202: RESET_LIMITS.ip.max, 429: 60 - RESET_LIMITS.ip.max });
  });

  it('answers a reset request without waiting for the work on the account', async () => {
    const { account } = await register(ctx.app);
    const { db } = ctx.app.database;
    const insertInto = db.insertInto.bind(db);
    let letWrite!: () => void;
    const writeAllowed = new Promise<void>((resolve) => (letWrite = resolve));
    // The reset link's row is written only when the test lets it: a database that has slowed down.
    const slowWrite = jest.spyOn(db, 'insertInto').mockImplementation(((table: 'password_resets') => ({
      values: (row: never) => ({
        execute: async () => {
          await writeAllowed;
          return insertInto(table).values(row).execute();
        },
      }),
    })) as never);
    try {
      const answer = await Promise.race([
        send('/auth/password-reset-request', { email: account.email }, newAddress()),
        new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 2000)),
      ]);
      expect(answer === 'no answer' ? answer : answer.statusCode).toBe(202);
      expect(mailsTo(account.email)).toEqual([]);
    } finally {
      letWrite();
      slowWrite.mockRestore();
    }
    expect((await ctx.mail.latestTo(account.email, 'password_reset')).subject).toMatch(/Reset/);
  });

  it('lets a password reset lift the hold that guesses put on the account', async () => {
    const { account } = await register(ctx.app);
    const from = newAddress();
    await Promise.all(Array.from({ length: 30 }, (_, i) => login(account.email, `Wrong-guess-${i}-x`, from)));
    expect((await login(account.email, account.password, newAddress())).statusCode).toBe(429);

    expect((await send('/auth/password-reset-request', { email: account.email }, newAddress())).statusCode).toBe(202);
    const token = new URL(/https?:\/\/\S+/.exec((await ctx.mail.latestTo(account.email, 'password_reset')).text)![0]).searchParams.get('token')!;
    const reset = await send('/auth/password-reset', { token, new_password: 'Reset-after-guesses-1' }, newAddress());
    expect(reset.statusCode).toBe(204);
    expect((await login(account.email, 'Reset-after-guesses-1', newAddress())).statusCode).toBe(200);
  });

  it('creates no more of 40 simultaneous sign-ups from one address than the limit, and stops answering "email taken" there', async () => {
    const from = newAddress();
    const answers = await Promise.all(Array.from({ length: 40 }, () => send('/auth/register', newAccount(), from)));
    expect(tally(answers)).toEqual({ 201: REGISTER_LIMITS.ip.max, 429: 40 - REGISTER_LIMITS.ip.max });
    const taken = answers.find((a) => a.statusCode === 201)!.json().user.email as string;
    const probe = await send('/auth/register', newAccount({ email: taken }), from);
    expect(probe.statusCode).toBe(429);
    expect(probe.json().error.code).toBe('rate_limited');
  });

  it('answers 503 busy with Retry-After when the password hashing queue is full, and recovers', async () => {
    const { account } = await register(ctx.app);
    const from = newAddress();
    // The queue is filled with hashes that end only when the test lets them: with real ones it is
    // full only until the first of them ends, which a slow request may reach after.
    const realHash = argon2.hash;
    let letFillersEnd = () => {};
    const fillersMayEnd = new Promise<void>((resolve) => (letFillersEnd = resolve));
    const held = jest.spyOn(argon2, 'hash').mockImplementation(async (password, options) => {
      if (password === FILLER) await fillersMayEnd;
      return realHash(password, options);
    });
    let queued: Promise<string>[] = [];
    try {
      queued = Array.from({ length: HASHING.running + HASHING.waiting }, () => hashPassword(FILLER));
      const busy = await Promise.all([send('/auth/register', newAccount(), from), login(account.email, account.password, from)]);
      for (const answer of busy) {
        expect(answer.statusCode).toBe(503);
        expect(answer.json().error.code).toBe('busy');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      letFillersEnd();
      await Promise.all(queued);
      held.mockRestore();
    }
    // Once the queue drains, the same requests go through.
    expect((await send('/auth/register', newAccount(), from)).statusCode).toBe(201);
    expect((await login(account.email, account.password, from)).statusCode).toBe(200);
  });
});
