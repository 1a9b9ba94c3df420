import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireVerifiedEmail } from '../domain/emailVerification';
import { accept, previewInvitation } from '../domain/invitations';
import { membershipOf, wireTeam } from '../domain/teams';
import { ErrorSchema, OpaqueToken } from '../../contract/schemas';
import { InvitationPreviewSchema, InvitedRoleSchema, TeamSchema } from '../../contract/teams';

const TokenParams = Type.Object({ token: OpaqueToken });

/** The invitation link's calls: what it offers (no sign-in needed to see it) and accepting it. */
export const invitationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, engine } = app.database;

  app.get(
    '/invitations/:token',
    {
      schema: {
        tags: ['teams'],
        summary: 'What an invitation link offers: team, inviter, address and role',
        params: TokenParams,
        response: {
          200: InvitationPreviewSchema,
          400: ErrorSchema,
          404: ErrorSchema,
          // Path parameters are at most 100 characters (Fastify's maxParamLength); a token is 43.
          414: ErrorSchema,
        },
      },
    },
    async (request) => previewInvitation(db, request.params.token, app.clock.now()),
  );

  app.post(
    '/invitations/:token/accept',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['teams'],
        summary: "Join the invitation's team; the signed-in account's email must be the invited one",
        security: [{ bearer: [] }],
        params: TokenParams,
        response: { 200: Type.Object({ team: TeamSchema, role: InvitedRoleSchema }), 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 414: ErrorSchema },
      },
    },
    async (request) => {
      const user = request.currentUser!;
      requireVerifiedEmail(user);
      const now = app.clock.now();
      const joined = await db.transaction().execute((trx) => accept(trx, engine, user, request.params.token, request.ip, now));
      const membership = (await membershipOf(db, user.id))!;
      return { team: await wireTeam(db, membership.team, now), role: joined.role };
    },
  );
};
