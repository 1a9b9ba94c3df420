import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { managesTeam } from '../../contract/roles';
import type { Database } from '../db/types';
import { auditPage } from '../domain/auditLog';
import { findSubscription, planAt } from '../domain/subscriptions';
import { requireVerifiedEmail } from '../domain/emailVerification';
import { invite, pendingInvitations, resend, revoke, type Issued } from '../domain/invitations';
import { checkMonth, teamUsage, usageCsv } from '../domain/teamUsage';
import { addressesOf } from '../domain/users';
import {
  actingIn,
  forbidden,
  listMembers,
  membershipOf,
  notInTeam,
  removeMember,
  renameTeam,
  setSecurityPolicy,
  transferOwnership,
  updateMember,
  wireTeam,
  type Acting,
} from '../domain/teams';
import { deliverLater } from '../mail/mailer';
import { deliveryOf } from '../mail/queue';
import { ownershipTransferredMail, teamInvitationMail } from '../mail/templates';
import { returnUrls } from '../billing/provider';
import { DisplayText, Email, ErrorSchema, Text } from '../../contract/schemas';
import { AuditPageSchema, InvitedRoleSchema, MyTeamSchema, TeamInvitationSchema, TeamMemberSchema, TeamSchema, TeamSecurityPolicyBody, TeamUsageSchema } from '../../contract/teams';

/** A cap is a whole number of queries a month; null is no cap. */
const Cap = Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()]);
const Month = Type.Object({ month: Text({ maxLength: 20, description: 'YYYY-MM, not after the current UTC month.' }) }, { additionalProperties: false });

const UserIdParams = Type.Object({ user_id: Text({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Text({ minLength: 1, maxLength: 100 }) });

const bearerOnly = [{ bearer: [] }];
const e = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorSchema]));

export const teamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, engine } = app.database;
  app.addHook('onRequest', app.authenticate);

  /** Runs `work` with the caller's team and role read in its transaction (see `actingIn`). */
  const acting = <T>(request: FastifyRequest, work: (trx: Transaction<Database>, who: Acting) => Promise<T>) =>
    db.transaction().execute(async (trx) => work(trx, await actingIn(trx, engine, request.auth!.userId, request.ip)));

  /** The caller's team and role, read on this request; admin-only reads refuse the rest. */
  const reading = async (request: FastifyRequest, adminOnly: boolean) => {
    const membership = await membershipOf(db, request.auth!.userId);
    if (!membership) throw notInTeam();
    if (adminOnly && !managesTeam(membership.role)) throw forbidden();
    return membership;
  };

  /** Queues the invitation's mail in the transaction that made it (so neither is without the other); its delivery shows on /team. */
  const mailInvitation = async (trx: Transaction<Database>, who: Acting, issued: Issued) => {
    const mail = teamInvitationMail(
      issued.invitation.email,
      `${app.config.publicUrl}/invite/${encodeURIComponent(issued.token)}`,
      { teamName: who.team.name, inviterName: who.person.name, role: issued.invitation.role, expiresAt: Date.parse(issued.invitation.expires_at) },
      app.config.web,
    );
    await app.mailer.enqueue(trx, { ...mail, ref: issued.invitation.id });
    return { ...issued.invitation, delivery: 'pending' as const };
  };

  app.get(
    '/teams/me',
    {
      schema: {
        tags: ['teams'],
        summary: "The caller's team and role",
        security: bearerOnly,
        response: { 200: MyTeamSchema, ...e(401, 404) },
      },
    },
    async (request) => {
      const { team, role } = await reading(request, false);
      const now = app.clock.now();
      const userId = request.auth!.userId;
      // The owner's own subscription is the team's; anyone else's paid one bills apart from it.
      const own = team.billing_user_id === userId ? 'free' : planAt(await findSubscription(db, userId), now);
      return { team: await wireTeam(db, team, now), role, own_paid_plan: own === 'free' ? null : own };
    },
  );

  app.patch(
    '/teams/me',
    {
      schema: {
        tags: ['teams'],
        summary: 'Rename the team or set the monthly query cap new members get (admins)',
        security: bearerOnly,
        body: Type.Object({ name: Type.Optional(DisplayText({ maxLength: 1000 })), default_monthly_query_cap: Type.Optional(Cap) }, { additionalProperties: false, minProperties: 1 }),
        response: { 200: TeamSchema, ...e(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const now = app.clock.now();
      const { name, default_monthly_query_cap: defaultCap } = request.body;
      return acting(request, async (trx, who) => wireTeam(trx, await renameTeam(trx, who, { name, defaultCap }, now), now));
    },
  );

  app.patch(
    '/teams/me/security',
    {
      schema: {
        tags: ['teams'],
        summary: "Set the team's security policy: two-step sign-in required, how long members' sessions last (admins)",
        description:
          'While `require_two_factor` is on, a member without a second factor gets 403 `two_factor_required` on every call but setting one up, ' +
          'the profile, signing out and leaving; `session_max_age_hours` (1-720, null for none) ends a member\'s session that many hours after its sign-in. ' +
          'Both hold from the next call, on every instance; each change is in the audit log.',
        security: bearerOnly,
        body: TeamSecurityPolicyBody,
        response: { 200: TeamSchema, ...e(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const now = app.clock.now();
      return acting(request, async (trx, who) => wireTeam(trx, await setSecurityPolicy(trx, who, request.body, now), now));
    },
  );

  app.get(
    '/teams/me/members',
    { schema: { tags: ['teams'], summary: "The team's members", security: bearerOnly, response: { 200: Type.Object({ members: Type.Array(TeamMemberSchema) }), ...e(401, 404) } } },
    async (request) => {
      const { team, role } = await reading(request, false);
      return { members: await listMembers(db, team.id, { userId: request.auth!.userId, role }, app.clock.now()) };
    },
  );

  app.patch(
    '/teams/me/members/:user_id',
    {
      schema: {
        tags: ['teams'],
        summary: "Change a member's role (the owner) or monthly query cap (admins; null removes it)",
        security: bearerOnly,
        params: UserIdParams,
        body: Type.Object({ role: Type.Optional(InvitedRoleSchema), monthly_query_cap: Type.Optional(Cap) }, { additionalProperties: false, minProperties: 1 }),
        response: { 200: TeamMemberSchema, ...e(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const now = app.clock.now();
      const { role, monthly_query_cap: cap } = request.body;
      return acting(request, async (trx, who) => {
        await updateMember(trx, who, request.params.user_id, { role, cap }, now);
        const members = await listMembers(trx, who.team.id, { userId: who.person.id, role: who.role }, now);
        return members.find((member) => member.user_id === request.params.user_id)!;
      });
    },
  );

  app.delete(
    '/teams/me/members/:user_id',
    {
      schema: {
        tags: ['teams'],
        summary: 'Remove a member (admins), or leave (your own id); never the owner',
        security: bearerOnly,
        params: UserIdParams,
        response: { 204: Type.Null(), ...e(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await acting(request, (trx, who) => removeMember(trx, who, request.params.user_id, app.clock.now()));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/teams/me/transfer',
    {
      schema: {
        tags: ['teams'],
        summary: 'Hand ownership to a member; the owner becomes an admin',
        security: bearerOnly,
        body: Type.Object({ user_id: Text({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...e(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      // Periods that ended are written down first (test mode), so what moves is what runs now: for
      // an owner's request only, and outside the transfer's transaction (settling writes in its own).
      const membership = await membershipOf(db, request.auth!.userId);
      if (membership?.role === 'owner') await Promise.all([app.billing.settle(membership.team.billing_user_id), app.billing.settle(request.body.user_id)]);
      const { team, handover } = await acting(request, async (trx, who) => ({ team: who.team, handover: await transferOwnership(trx, engine, who, request.body.user_id, app.clock.now()) }));
      const people = await addressesOf(db, [handover.former.id, handover.next.id]);
      // Both mails are in the queue before the answer goes, so a crash after it loses neither.
      await Promise.all(
        people.map((person) => {
          const recipient = person.id === handover.next.id ? 'new' : 'former';
          const transfer = { teamName: team.name, formerName: handover.former.name, newName: handover.next.name, recipient, billingMoved: handover.billingMoved } as const;
          return deliverLater(app.mailer, app.log, ownershipTransferredMail(person.email, { ...transfer, subscriptionUrl: returnUrls(app.config.publicUrl).manage }, app.config.web));
        }),
      );
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/teams/me/invitations',
    {
      schema: {
        tags: ['teams'],
        summary: 'Invite someone by email (admins); the mail carries a single-use link valid 7 days',
        security: bearerOnly,
        body: Type.Object({ email: Email, role: InvitedRoleSchema }, { additionalProperties: false }),
        response: { 201: TeamInvitationSchema, ...e(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      requireVerifiedEmail(request.currentUser!);
      const now = app.clock.now();
      const invitation = await acting(request, async (trx, who) => mailInvitation(trx, who, await invite(trx, engine, who, request.body.email, request.body.role, app.config.invitationMails, now)));
      app.mailer.kick();
      return reply.status(201).send(invitation);
    },
  );

  app.get(
    '/teams/me/invitations',
    {
      schema: { tags: ['teams'], summary: 'Pending invitations (admins)', security: bearerOnly, response: { 200: Type.Object({ invitations: Type.Array(TeamInvitationSchema) }), ...e(401, 403, 404) } },
    },
    async (request) => {
      const { team } = await reading(request, true);
      const invitations = await pendingInvitations(db, team.id, app.clock.now());
      const delivery = await deliveryOf(db, invitations.map((invitation) => invitation.id));
      return { invitations: invitations.map((invitation) => ({ ...invitation, delivery: delivery.get(invitation.id) ?? 'sent' })) };
    },
  );

  app.post(
    '/teams/me/invitations/:id/resend',
    {
      schema: {
        tags: ['teams'],
        summary: 'Send a pending invitation again with a new link; the old link stops working (admins)',
        security: bearerOnly,
        params: IdParams,
        response: { 200: TeamInvitationSchema, ...e(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const now = app.clock.now();
      const invitation = await acting(request, async (trx, who) => mailInvitation(trx, who, await resend(trx, engine, who, request.params.id, app.config.invitationMails, now)));
      app.mailer.kick();
      return invitation;
    },
  );

  app.delete(
    '/teams/me/invitations/:id',
    {
      schema: { tags: ['teams'], summary: 'Revoke a pending invitation (admins)', security: bearerOnly, params: IdParams, response: { 204: Type.Null(), ...e(401, 403, 404) } },
    },
    async (request, reply) => {
      await acting(request, (trx, who) => revoke(trx, who, request.params.id, app.clock.now()));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/teams/me/usage',
    {
      schema: {
        tags: ['teams'],
        summary: "The team's queries and tokens in a month, per day and member, per task and per member (admins)",
        security: bearerOnly,
        querystring: Month,
        response: { 200: TeamUsageSchema, ...e(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const month = checkMonth(request.query.month, app.clock.now());
      const { team } = await reading(request, true);
      return teamUsage(db, team.id, month);
    },
  );

  app.get(
    '/teams/me/usage.csv',
    {
      schema: {
        tags: ['teams'],
        summary: 'The month as CSV: date,user_id,full_name,email,queries,tokens, one row per member per day with use (admins)',
        security: bearerOnly,
        querystring: Month,
        response: {
          200: { description: 'UTF-8 with a byte order mark and a header row, RFC 4180 quoting, formulas neutralised.', content: { 'text/csv': { schema: Type.String() } } },
          ...e(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const month = checkMonth(request.query.month, app.clock.now());
      const { team } = await reading(request, true);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="team-usage-${month}.csv"`)
        .send(usageCsv(await teamUsage(db, team.id, month)));
    },
  );

  app.get(
    '/teams/me/audit-log',
    {
      schema: {
        tags: ['teams'],
        summary: "The team's events, newest first, 50 a page (admins); nothing can change them",
        security: bearerOnly,
        querystring: Type.Object({ before: Type.Optional(Text({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: AuditPageSchema, ...e(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { team } = await reading(request, true);
      return auditPage(db, team.id, request.query.before ?? null);
    },
  );
};
