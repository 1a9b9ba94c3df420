import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { verifyPassword } from '../domain/passwords';
import { confirmTotp, disableTotp, replaceRecoveryCodes, secondFactorStatus, startTotpSetup } from '../domain/secondFactors';
import { findUserById } from '../domain/users';
import { ApiError } from '../errors';
import { deliverLater } from '../mail/mailer';
import { secondFactorOffMail } from '../mail/templates';
import { tokenRefused } from '../plugins/auth';
import { consume, type Limit } from '../plugins/rateLimit';
import { ErrorSchema } from '../../contract/schemas';
import { PasswordConfirmation, RecoveryCodesSchema, SecondFactorStatusSchema, TotpCode, TotpSetupSchema } from '../../contract/security';
import { PASSWORD_CHANGE_LIMIT } from './users';

/** Codes typed while setting the app up: a person needs a few, a guesser gets nowhere. */
export const TOTP_CONFIRM_LIMIT: Limit = { what: 'set-up codes', max: 10, windowMs: 15 * 60_000 };

const errors = { 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 429: ErrorSchema };

/**
 * The password of the signed-in user, checked before a second factor is turned off or its codes
 * renewed; it shares the password change's guessing limit (one budget for guesses of one password).
 */
async function checkPassword(app: FastifyInstance, userId: string, password: string) {
  const user = await findUserById(app.database.db, userId);
  if (!user) throw tokenRefused('session_revoked', 'This session has ended. Please sign in again.');
  const key = `password-change:${userId}`;
  const { ticket } = await consume(app.rateLimits, [[key, PASSWORD_CHANGE_LIMIT]]);
  let valid: boolean;
  try {
    valid = await verifyPassword(user.password_hash, password);
  } catch (error) {
    await app.rateLimits.release([key], ticket);
    throw error;
  }
  if (!valid) throw new ApiError(400, 'invalid_password', 'The password is not correct.', { field: 'password' });
  await app.rateLimits.release([key], ticket);
  return user;
}

/** Two-step sign-in with an authenticator app and its recovery codes (decisions.md, "Advanced security"). */
export const mfaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);
  const security = [{ bearer: [] }];

  app.get(
    '/mfa',
    { schema: { tags: ['security'], summary: "The account's second factors", security, response: { 200: SecondFactorStatusSchema, 401: ErrorSchema } } },
    async (request) => secondFactorStatus(db, request.auth!.userId),
  );

  app.post(
    '/mfa/totp/setup',
    {
      schema: {
        tags: ['security'],
        summary: 'Start setting up an authenticator app: a new secret, on once a code confirms it',
        security,
        response: { 200: TotpSetupSchema, ...errors },
      },
    },
    async (request) => {
      const user = request.currentUser!;
      return startTotpSetup(db, app.secondFactorKey, user, app.config.web.brandName);
    },
  );

  app.post(
    '/mfa/totp/confirm',
    {
      schema: {
        tags: ['security'],
        summary: 'Turn the authenticator app on with its first code; answers ten recovery codes, shown once',
        security,
        body: Type.Object({ code: TotpCode }, { additionalProperties: false }),
        response: { 200: RecoveryCodesSchema, ...errors },
      },
    },
    async (request) => {
      const { userId } = request.auth!;
      await consume(app.rateLimits, [[`totp-confirm:${userId}`, TOTP_CONFIRM_LIMIT]]);
      const recovery_codes = await confirmTotp(db, app.secondFactorKey, userId, request.body.code, app.clock.now());
      request.log.info({ event: 'auth.totp_enabled', userId, ip: request.ip }, 'authenticator app turned on');
      return { recovery_codes };
    },
  );

  app.delete(
    '/mfa/totp',
    {
      schema: {
        tags: ['security'],
        summary: 'Turn the authenticator app off (with the password); its recovery codes stop working',
        security,
        body: PasswordConfirmation,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const { userId } = request.auth!;
      const user = await checkPassword(app, userId, request.body.password);
      if (!(await disableTotp(db, userId))) throw new ApiError(409, 'totp_not_enabled', 'Two-step sign-in with an authenticator app is not on.');
      await deliverLater(app.mailer, app.log, secondFactorOffMail(user.email, `${app.config.publicUrl}/profile`, app.config.web));
      request.log.info({ event: 'auth.totp_disabled', userId, ip: request.ip }, 'authenticator app turned off');
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/mfa/recovery-codes',
    {
      schema: {
        tags: ['security'],
        summary: 'Make ten new recovery codes (with the password); the old ones stop working',
        security,
        body: PasswordConfirmation,
        response: { 200: RecoveryCodesSchema, ...errors },
      },
    },
    async (request) => {
      const { userId } = request.auth!;
      await checkPassword(app, userId, request.body.password);
      const status = await secondFactorStatus(db, userId);
      if (!status.totp_enabled) throw new ApiError(409, 'totp_not_enabled', 'Recovery codes come with an authenticator app: set one up first.');
      const recovery_codes = await db.transaction().execute((trx) => replaceRecoveryCodes(trx, userId, app.clock.now()));
      request.log.info({ event: 'auth.recovery_codes_renewed', userId, ip: request.ip }, 'recovery codes renewed');
      return { recovery_codes };
    },
  );
};
