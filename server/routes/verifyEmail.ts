import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createEmailVerification, isVerified, verifyEmail } from '../domain/emailVerification';
import { ApiError } from '../errors';
import { deliverLater } from '../mail/mailer';
import { emailVerificationMail } from '../mail/templates';
import { consume, type Limit } from '../plugins/rateLimit';
import { ErrorSchema, OpaqueToken } from '../../contract/schemas';

/** New links per account: enough for a lost or late mail, too few to flood an inbox. */
export const VERIFY_RESEND_LIMIT: Limit = { what: 'verification mails', max: 5, windowMs: 60 * 60_000 };

/**
 * Mails the account a new link to confirm its address (`{PUBLIC_URL}/verify-email?token=…`). A
 * failure is logged, never the caller's: the account works on, and the banner offers a new link.
 */
export async function mailVerificationLink(app: FastifyInstance, user: { id: string; email: string }): Promise<void> {
  try {
    const token = await createEmailVerification(app.database.db, user, app.clock.now());
    const link = `${app.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    await deliverLater(app.mailer, app.log, emailVerificationMail(user.email, link, app.config.web));
  } catch (error) {
    app.log.error({ err: error, userId: user.id }, 'verification link not sent');
  }
}

const VerifiedSchema = Type.Object({ email_verified: Type.Literal(true) });

/** `POST /auth/verify-email` (the mailed link's page; no sign-in needed) and its resend (signed in). */
export const verifyEmailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;

  app.post(
    '/auth/verify-email',
    {
      schema: {
        tags: ['auth'],
        summary: "Confirm the account's email address with the mailed link's token (single use, valid 24 hours)",
        body: Type.Object({ token: OpaqueToken }, { additionalProperties: false }),
        response: {
          200: VerifiedSchema,
          400: Type.Object(ErrorSchema.properties, { description: '`invalid_verification_token`: the link is unknown, used or expired; the message says which.' }),
        },
      },
    },
    async (request) => {
      const { userId } = await verifyEmail(db, request.body.token, app.clock.now());
      request.log.info({ event: 'auth.email_verified', userId, ip: request.ip }, 'email verified');
      return { email_verified: true as const };
    },
  );

  app.post(
    '/auth/verify-email/resend',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['auth'],
        summary: 'Mail a new link to confirm the email address (at most 5 an hour)',
        security: [{ bearer: [] }],
        response: {
          202: Type.Object({ message: Type.String() }),
          401: ErrorSchema,
          403: ErrorSchema,
          409: Type.Object(ErrorSchema.properties, { description: '`email_already_verified`: there is nothing to confirm.' }),
          429: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const user = request.currentUser!;
      if (isVerified(user)) throw new ApiError(409, 'email_already_verified', 'Your email address is already verified.');
      await consume(app.rateLimits, [[`verify-resend:${user.id}`, VERIFY_RESEND_LIMIT]]);
      await mailVerificationLink(app, user);
      request.log.info({ event: 'auth.verification_resent', userId: user.id, ip: request.ip }, 'verification link resent');
      return reply.status(202).send({ message: `We sent a new link to ${user.email}.` });
    },
  );
};
