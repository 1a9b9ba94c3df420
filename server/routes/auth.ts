import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from '../domain/passwords';
import { completeReset, createPasswordReset, usableReset } from '../domain/passwordResets';
import { createSession, revokeSession, rotateRefreshToken, type SessionOrigin } from '../domain/sessions';
import { ACCESS_TOKEN_TTL_S } from '../domain/tokens';
import {
  createMfaChallenge,
  finishMfaChallenge,
  recordDevice,
  secondFactorMethods,
  takeMfaTry,
  useRecoveryCode,
  useTotpCode,
} from '../domain/secondFactors';
import {
  emailTaken,
  findUserByEmail,
  findUserById,
  insertUser,
  normaliseEmail,
  normaliseFullName,
  normaliseUsername,
  usernameInUse,
  usernameTaken,
} from '../domain/users';
import { ApiError } from '../errors';
import { deliverLater } from '../mail/mailer';
import { newDeviceSignInMail, passwordChangedMail, passwordResetMail } from '../mail/templates';
import { sessionIdOf } from '../plugins/auth';
import { consume, type Limit } from '../plugins/rateLimit';
import { MfaLoginBody, MfaRequiredSchema } from '../../contract/security';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { relyingPartyOf, verifyPasskeyAuthentication } from '../domain/passkeys';
import type { UsersTable } from '../db/types';
import { AuthResponseSchema, Email, ErrorSchema, FullName, MessageSchema, OpaqueToken, Password, TokenPairSchema, Username } from '../../contract/schemas';
import { wireUser } from './users';
import { mailVerificationLink } from './verifyEmail';

const MINUTE = 60_000;
export const LOGIN_LIMITS = {
  account: { what: 'sign-in attempts', max: 10, windowMs: 15 * MINUTE },
  ip: { what: 'sign-in attempts', max: 50, windowMs: 15 * MINUTE },
} satisfies Record<string, Limit>;
export const RESET_LIMITS = {
  account: { what: 'password reset requests', max: 5, windowMs: 60 * MINUTE },
  ip: { what: 'password reset requests', max: 20, windowMs: 15 * MINUTE },
} satisfies Record<string, Limit>;
/**
 * Sign-ups per address: enough for a household or an office behind one address, far too few to
 * fill the database or keep the CPU hashing (every sign-up is an argon2 hash) from one machine.
 */
export const REGISTER_LIMITS = {
  ip: { what: 'sign-ups from this network', max: 20, windowMs: 60 * MINUTE },
} satisfies Record<string, Limit>;
/**
 * After each failed sign-in to an account, the next guess waits this long (by the count of guesses
 * in the last 15 minutes; the last value repeats). The first few mistakes cost nothing; one after
 * another, guesses get about nine tries in 15 minutes, ever further apart, so the hard limit above
 * stops only bursts, and the owner waits five minutes at most rather than the rest of the window.
 */
export const LOGIN_PAUSES_MS = [0, 0, 0, 30_000, 60_000, 120_000, 240_000, 300_000];

export const RESET_REQUESTED = {
  message: 'If an account exists for that email, we have sent a link to reset the password.',
};

const errors = { 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 413: ErrorSchema, 415: ErrorSchema, 429: ErrorSchema };
/** Routes that hash a password may answer 503 `busy` when too many hashes are queued already. */
const hashingErrors = { ...errors, 503: ErrorSchema };

function passwordPolicy(password: string, field: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new ApiError(400, problem.code, problem.message, { field });
}

/** A session signed in on the web, with where it came from for "Sessions and devices". */
const webOrigin = (request: FastifyRequest): SessionOrigin => ({ kind: 'web', ip: request.ip, userAgent: request.headers['user-agent'] });

export async function issueTokens(app: FastifyInstance, session: { sessionId: string; userId: string; refreshToken: string }) {
  return {
    access_token: app.tokens.signAccess({ userId: session.userId, sessionId: session.sessionId }),
    refresh_token: session.refreshToken,
    token_type: 'bearer' as const,
    expires_in: ACCESS_TOKEN_TTL_S,
  };
}

const loginAccountKey = (email: string) => `login:account:${email}`;

/**
 * The end of every sign-in (a password, a password and a second factor, a passkey): a new session,
 * and a mail when the browser or device is one the account has not used before.
 */
export async function completeSignIn(app: FastifyInstance, request: FastifyRequest, user: UsersTable, how: string) {
  const now = app.clock.now();
  const session = await createSession(app.database.db, app.tokens, user.id, now, webOrigin(request));
  if (await recordDevice(app.database.db, user.id, request.headers['user-agent'], now)) {
    const device = { userAgent: request.headers['user-agent'] ?? '', ip: request.ip, at: now, sessionsUrl: `${app.config.publicUrl}/profile#sessions` };
    await deliverLater(app.mailer, app.log, newDeviceSignInMail(user.email, device, app.config.web));
  }
  request.log.info({ event: 'auth.login', userId: user.id, ip: request.ip, how }, 'signed in');
  return { ...(await issueTokens(app, session)), user: await wireUser(app, user) };
}

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;

  /** Takes a place under every limit (or throws the 429); `giveBack` returns it. */
  async function takePlace(limits: Array<[string, Limit]>) {
    const { counts, ticket } = await consume(app.rateLimits, limits);
    return { counts, giveBack: () => app.rateLimits.release(limits.map(([key]) => key), ticket) };
  }

  /** Runs work a place was taken for; when it fails (busy, database down), the place is given back. */
  async function givenBackOnFailure<T>(place: { giveBack(): Promise<void> }, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await place.giveBack();
      throw error;
    }
  }

  async function mailResetLink(email: string, ip: string): Promise<void> {
    const user = await findUserByEmail(db, email);
    if (user) {
      const token = await createPasswordReset(db, user.id, app.clock.now());
      const link = `${app.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
      // Queued before the request is logged as done: the log line marks the end of the work.
      await deliverLater(app.mailer, app.log, passwordResetMail(user.email, link, app.config.web));
    }
    app.log.info({ event: 'auth.reset_requested', userId: user?.id ?? null, ip }, 'password reset requested');
  }

  app.post(
    '/auth/register',
    {
      schema: {
        tags: ['auth'],
        summary: 'Create an account and sign in',
        body: Type.Object(
          { email: Email, password: Password, full_name: FullName, username: Username },
          { additionalProperties: false },
        ),
        response: { 201: AuthResponseSchema, ...hashingErrors },
      },
    },
    async (request, reply) => {
      const email = normaliseEmail(request.body.email);
      const fullName = normaliseFullName(request.body.full_name);
      const username = normaliseUsername(request.body.username);
      passwordPolicy(request.body.password, 'password');
      // Counted before the lookups, so "email taken" cannot be asked about without limit either.
      const place = await takePlace([[`register:ip:${request.ip}`, REGISTER_LIMITS.ip]]);
      if (await findUserByEmail(db, email)) throw emailTaken();
      if (await usernameInUse(db, username)) throw usernameTaken();

      const passwordHash = await givenBackOnFailure(place, () => hashPassword(request.body.password));
      const now = app.clock.now();
      const { user, session } = await db.transaction().execute(async (trx) => {
        const user = await insertUser(trx, { email, username, full_name: fullName, password_hash: passwordHash }, now);
        // The browser the account was made in is known from the start: no "new sign-in" mail for it.
        await recordDevice(trx, user.id, request.headers['user-agent'], now);
        return { user, session: await createSession(trx, app.tokens, user.id, now, webOrigin(request)) };
      });
      request.log.info({ event: 'auth.register', userId: user.id, ip: request.ip }, 'account created');
      await mailVerificationLink(app, user);
      return reply.status(201).send({ ...(await issueTokens(app, session)), user: await wireUser(app, user) });
    },
  );

  app.post(
    '/auth/login/email',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email and password',
        body: Type.Object({ email: Email, password: Password }, { additionalProperties: false }),
        response: {
          200: Type.Union([AuthResponseSchema, MfaRequiredSchema], {
            description: 'Signed in; or, for an account with a second factor, `mfa_required` with a token for POST /auth/login/mfa.',
          }),
          ...hashingErrors,
        },
      },
    },
    async (request) => {
      const email = normaliseEmail(request.body.email);
      const accountKey = loginAccountKey(email);
      // The guess takes its place before it is evaluated: a burst cannot get more guesses than the limit.
      const place = await takePlace([
        [accountKey, LOGIN_LIMITS.account],
        [`login:ip:${request.ip}`, LOGIN_LIMITS.ip],
      ]);
      const guess = place.counts[0]!;

      const user = await givenBackOnFailure(place, () => findUserByEmail(db, email));
      let valid = false;
      if (user) valid = await givenBackOnFailure(place, () => verifyPassword(user.password_hash, request.body.password));
      else await givenBackOnFailure(place, () => verifyAgainstDummy(request.body.password));
      if (!user || !valid) {
        await app.rateLimits.delay(accountKey, LOGIN_PAUSES_MS[Math.min(guess, LOGIN_PAUSES_MS.length) - 1]!);
        request.log.warn({ event: 'auth.login_failed', userId: user?.id ?? null, ip: request.ip }, 'sign-in failed');
        throw new ApiError(401, 'invalid_credentials', 'Invalid email or password.');
      }
      // A right password gives its place back; the wrong guesses before it stay counted, so
      // the owner signing in does not hand a guesser a fresh allowance.
      await place.giveBack();
      const methods = await secondFactorMethods(db, user.id);
      if (methods.length > 0) {
        const mfaToken = await createMfaChallenge(db, user.id, app.clock.now());
        request.log.info({ event: 'auth.mfa_required', userId: user.id, ip: request.ip }, 'password right; second factor asked');
        return { mfa_required: true as const, mfa_token: mfaToken, methods };
      }
      return completeSignIn(app, request, user, 'password');
    },
  );

  app.post(
    '/auth/login/mfa',
    {
      schema: {
        tags: ['auth'],
        summary: 'Finish a sign-in with a second factor: an app code, a recovery code or a passkey',
        description:
          'Each try takes one of the token\'s five; a wrong code also counts toward the account\'s sign-in guessing limit. ' +
          '401 `mfa_token_invalid` when the token is unknown, expired (5 minutes), used or out of tries; 401 `invalid_code` for a wrong code.',
        body: MfaLoginBody,
        response: { 200: AuthResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { mfa_token: mfaToken, method, code, credential } = request.body;
      const now = app.clock.now();
      const userId = await takeMfaTry(db, mfaToken, now);
      const user = await findUserById(db, userId);
      if (!user) throw new ApiError(401, 'mfa_token_invalid', 'This sign-in has expired or had too many tries. Please sign in again.');
      if (!(await secondFactorMethods(db, user.id)).includes(method)) {
        throw new ApiError(400, 'mfa_method_unavailable', 'This account cannot sign in with that second factor.', { field: 'method' });
      }
      if (method !== 'webauthn' && !code) throw new ApiError(400, 'invalid_input', 'Enter the code.', { field: 'code' });
      if (method === 'webauthn' && !credential) throw new ApiError(400, 'invalid_input', 'The passkey sent nothing.', { field: 'credential' });
      const accountKey = loginAccountKey(user.email);
      const place = await takePlace([
        [accountKey, LOGIN_LIMITS.account],
        [`login:ip:${request.ip}`, LOGIN_LIMITS.ip],
      ]);
      const guess = place.counts[0]!;
      const passed = await givenBackOnFailure(place, () => {
        if (method === 'totp') return useTotpCode(db, app.secondFactorKey, user.id, code!, now);
        if (method === 'recovery_code') return useRecoveryCode(db, user.id, code!, now);
        // A passkey cannot be guessed, but a refused one counts like a wrong code all the same.
        return verifyPasskeyAuthentication(db, relyingPartyOf(app.config), credential as unknown as AuthenticationResponseJSON, user.id, now).then(
          () => true,
          () => false,
        );
      });
      if (!passed) {
        await app.rateLimits.delay(accountKey, LOGIN_PAUSES_MS[Math.min(guess, LOGIN_PAUSES_MS.length) - 1]!);
        request.log.warn({ event: 'auth.mfa_failed', userId: user.id, ip: request.ip, method }, 'second factor refused');
        const refusals = {
          totp: 'That code is not valid. Enter the current code from your authenticator app.',
          recovery_code: 'That recovery code is not valid or was used already.',
          webauthn: 'This passkey could not be used to sign in.',
        };
        throw new ApiError(401, method === 'webauthn' ? 'invalid_passkey' : 'invalid_code', refusals[method], { field: method === 'webauthn' ? 'credential' : 'code' });
      }
      await place.giveBack();
      await finishMfaChallenge(db, mfaToken, now);
      return completeSignIn(app, request, user, method);
    },
  );

  app.post(
    '/auth/refresh',
    {
      schema: {
        tags: ['auth'],
        summary: 'Exchange a refresh token for a new token pair (rotation)',
        body: Type.Object({ refresh_token: OpaqueToken }, { additionalProperties: false }),
        response: { 200: TokenPairSchema, ...errors },
      },
    },
    async (request) => {
      try {
        const session = await rotateRefreshToken(db, app.tokens, request.body.refresh_token, app.clock.now());
        return issueTokens(app, session);
      } catch (error) {
        if (error instanceof ApiError) {
          request.log.warn({ event: 'auth.refresh_failed', code: error.code, ip: request.ip }, 'refresh refused');
        }
        throw error;
      }
    },
  );

  app.post(
    '/auth/logout',
    {
      onRequest: app.authenticate,
      schema: { tags: ['auth'], summary: 'End this session', security: [{ bearer: [] }], response: { 204: Type.Null(), 401: ErrorSchema } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      await revokeSession(db, sessionIdOf(request), 'logout', app.clock.now());
      request.log.info({ event: 'auth.logout', userId: auth.userId, ip: request.ip }, 'signed out');
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/auth/password-reset-request',
    {
      schema: {
        tags: ['auth'],
        summary: 'Mail a password-reset link (same answer whether or not the account exists)',
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        response: { 202: MessageSchema, ...errors },
      },
    },
    async (request, reply) => {
      const email = normaliseEmail(request.body.email);
      const limits: Array<[string, Limit]> = [
        [`reset:account:${email}`, RESET_LIMITS.account],
        [`reset:ip:${request.ip}`, RESET_LIMITS.ip],
      ];
      await consume(app.rateLimits, limits);
      // The answer goes before anything that depends on the account is done, so how long it
      // takes cannot tell whether the address has one.
      setImmediate(() => {
        mailResetLink(email, request.ip).catch((error: unknown) => request.log.error({ err: error }, 'reset link not sent'));
      });
      return reply.status(202).send(RESET_REQUESTED);
    },
  );

  app.post(
    '/auth/password-reset',
    {
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset link token; ends every session',
        body: Type.Object({ token: OpaqueToken, new_password: Password }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...hashingErrors },
      },
    },
    async (request, reply) => {
      passwordPolicy(request.body.new_password, 'new_password');
      const now = app.clock.now();
      const reset = await usableReset(db, request.body.token, now);
      const passwordHash = await hashPassword(request.body.new_password);
      const user = await completeReset(db, reset, passwordHash, now);
      // Whoever could read the mail owns the account: the guesses against it no longer hold them back.
      await app.rateLimits.reset(loginAccountKey(user.email));
      await deliverLater(app.mailer, app.log, passwordChangedMail(user.email, app.config.web, { apiKeysRevoked: user.apiKeysRevoked }));
      request.log.info({ event: 'auth.password_reset', userId: user.id, ip: request.ip }, 'password reset');
      return reply.status(204).send(null);
    },
  );
};
