import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { UsersTable } from '../db/types';
import { hashPassword, passwordProblem, verifyPassword } from '../domain/passwords';
import { revokeUserSessions } from '../domain/sessions';
import { membershipOf } from '../domain/teams';
import { effectivePlan } from '../domain/subscriptions';
import { findUserById, normaliseFullName, normaliseUsername, setPasswordHash, toWireUser, updateProfile } from '../domain/users';
import { ApiError } from '../errors';
import { deliverLater } from '../mail/mailer';
import { passwordChangedMail } from '../mail/templates';
import { sessionIdOf, tokenRefused } from '../plugins/auth';
import { consume, type Limit } from '../plugins/rateLimit';
import { ErrorSchema, FullName, Password, UserSchema, Username, type User } from '../../contract/schemas';

export const PASSWORD_CHANGE_LIMIT: Limit = { what: 'password change attempts', max: 10, windowMs: 15 * 60_000 };

/** The user as the API shows it, with the plan that applies now (the billing module records it). */
export async function wireUser(app: FastifyInstance, user: UsersTable): Promise<User> {
  return toWireUser(user, (await effectivePlan(app.database.db, user.id, app.clock.now())).id);
}

const errors = { 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 429: ErrorSchema };

export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);

  const currentUser = async (userId: string) => {
    const user = await findUserById(db, userId);
    if (!user) throw tokenRefused('session_revoked', 'This session has ended. Please sign in again.');
    return user;
  };

  app.get(
    '/users/me',
    { schema: { tags: ['users'], summary: 'The signed-in user', security: [{ bearer: [] }], response: { 200: UserSchema, 401: ErrorSchema } } },
    // The session check already read the plan; the role is one keyed read (the app's top bar asks it
    // rather than `GET /teams/me`, whose 404 for someone in no team the browser logs as an error).
    async (request) => {
      const user = request.currentUser!;
      return {
        ...toWireUser(user, user.plan),
        team_role: (await membershipOf(db, user.id))?.role ?? null,
        two_factor_required: user.policy.requireTwoFactor && !user.policy.hasSecondFactor,
      };
    },
  );

  app.put(
    '/users/me',
    {
      schema: {
        tags: ['users'],
        summary: 'Change the full name or username (nothing else can be set here)',
        security: [{ bearer: [] }],
        body: Type.Object(
          { full_name: Type.Optional(FullName), username: Type.Optional(Username) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: UserSchema, ...errors },
      },
    },
    async (request) => {
      const { userId } = request.auth!;
      await updateProfile(
        db,
        userId,
        {
          ...(request.body.full_name !== undefined ? { full_name: normaliseFullName(request.body.full_name) } : {}),
          ...(request.body.username !== undefined ? { username: normaliseUsername(request.body.username) } : {}),
        },
        app.clock.now(),
      );
      return wireUser(app, await currentUser(userId));
    },
  );

  app.put(
    '/users/me/password',
    {
      schema: {
        tags: ['users'],
        summary: 'Change the password; signs out every other session',
        security: [{ bearer: [] }],
        body: Type.Object({ current_password: Password, new_password: Password }, { additionalProperties: false }),
        response: {
          204: Type.Null(),
          ...errors,
          400: Type.Object(ErrorSchema.properties, {
            description:
              '`invalid_current_password` (field current_password); `password_unchanged` when the new password is the current one, and the password rules\' codes (field new_password).',
          }),
          // 503 `busy`: too many password hashes are queued already.
          503: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { userId } = request.auth!;
      const sessionId = sessionIdOf(request);
      const key = `password-change:${userId}`;
      const user = await currentUser(userId);
      // The check of the current password takes its place first, so a burst gets no more than the limit.
      const { ticket } = await consume(app.rateLimits, [[key, PASSWORD_CHANGE_LIMIT]]);
      let valid: boolean;
      try {
        valid = await verifyPassword(user.password_hash, request.body.current_password);
      } catch (error) {
        await app.rateLimits.release([key], ticket);
        throw error;
      }
      if (!valid) {
        request.log.warn({ event: 'auth.password_change_failed', userId, ip: request.ip }, 'wrong current password');
        throw new ApiError(400, 'invalid_current_password', 'The current password is not correct.', { field: 'current_password' });
      }
      await app.rateLimits.release([key], ticket);
      // Else the "change" would only sign out the other devices, while the user believes the password is new.
      if (request.body.new_password === request.body.current_password) {
        throw new ApiError(400, 'password_unchanged', 'The new password must differ from the current one.', { field: 'new_password' });
      }
      const problem = passwordProblem(request.body.new_password);
      if (problem) throw new ApiError(400, problem.code, problem.message, { field: 'new_password' });
      const passwordHash = await hashPassword(request.body.new_password);
      const now = app.clock.now();
      await db.transaction().execute(async (trx) => {
        await setPasswordHash(trx, userId, passwordHash, now);
        await revokeUserSessions(trx, userId, 'password_changed', now, sessionId);
      });
      await deliverLater(app.mailer, app.log, passwordChangedMail(user.email, app.config.web));
      request.log.info({ event: 'auth.password_changed', userId, ip: request.ip }, 'password changed');
      return reply.status(204).send(null);
    },
  );
};
