import { Type, type SchemaOptions, type Static, type TSchema } from '@sinclair/typebox';
import { PlanIdSchema, RoleSchema } from './schemas';

/**
 * The team workspace's wire shapes (decisions.md, Teams): server/routes/teams.ts and invitations.ts
 * answer with them, the client reads their static types (machines/shared/api.ts).
 */

const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

export { RoleSchema };
export type TeamRole = Static<typeof RoleSchema>;
export const InvitedRoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('member')]);
export type InvitedRole = Static<typeof InvitedRoleSchema>;

/** What the audit log records (decisions.md: invitations, joins, removals, role and cap changes, renames, plan changes). */
export const AUDIT_ACTIONS = [
  'team.created',
  'team.renamed',
  'team.two_factor_policy_changed',
  'team.session_policy_changed',
  'team.default_cap_changed',
  'team.ownership_transferred',
  'team.plan_changed',
  'invitation.created',
  'invitation.resent',
  'invitation.revoked',
  'member.joined',
  'member.removed',
  'member.left',
  'member.role_changed',
  'member.cap_changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** `GET /teams/me`'s team. */
export const TeamSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    seat_limit: Type.Integer(),
    seats_used: Type.Integer({ description: 'Members plus pending invitations.' }),
    plan_status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('ending'), Type.Literal('ended')], {
      description: "How the team's Team subscription stands; while it is not `ended`, it is every member's plan.",
    }),
    default_monthly_query_cap: Nullable(Type.Integer()),
    require_two_factor: Type.Boolean({ description: 'Members without a second factor get 403 `two_factor_required` on every call but setting one up, the profile, signing out and leaving.' }),
    session_max_age_hours: Nullable(Type.Integer({ minimum: 1, maximum: 720, description: "A member's session ends this many hours after its sign-in; null: the usual 30 days." })),
  },
  { $id: 'Team' },
);

/** `PATCH /teams/me/security` (admins): the team's security policy; at least one field. */
export const TeamSecurityPolicyBody = Type.Object(
  {
    require_two_factor: Type.Optional(Type.Boolean()),
    session_max_age_hours: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 720 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TeamSecurityPolicy = Static<typeof TeamSecurityPolicyBody>;

/** A member's second factor as the members table shows it. */
export const SecondFactorStatusOfMember = Type.Union([Type.Literal('authenticator_app'), Type.Literal('passkey'), Type.Literal('none')]);
export type Team = Static<typeof TeamSchema>;

/**
 * `GET /teams/me`: the team and the caller's role (decisions.md), and the paid plan the caller pays
 * for themselves apart from the team, which keeps billing while they are in it (decisions.md: the
 * team page says so and links to it).
 */
export const MyTeamSchema = Type.Object({
  team: TeamSchema,
  role: RoleSchema,
  own_paid_plan: Type.Union([PlanIdSchema, Type.Null()], {
    description: "The caller's own paid subscription's plan, billed apart from the team's; null when they have none or it is the team's own.",
  }),
});
export type MyTeam = Static<typeof MyTeamSchema>;

/** A `GET /teams/me/members` row. */
export const TeamMemberSchema = Type.Object(
  {
    user_id: Type.String(),
    full_name: Type.String(),
    email: Nullable(Type.String()),
    role: RoleSchema,
    joined_at: Type.String({ format: 'date-time' }),
    last_active_at: Nullable(Type.String({ format: 'date-time' })),
    month_queries: Nullable(Type.Integer()),
    day_tokens: Nullable(Type.Integer()),
    monthly_query_cap: Nullable(Type.Integer()),
    second_factor: Nullable(SecondFactorStatusOfMember, {
      description: 'The member\'s second factor: an authenticator app (with or without passkeys), passkeys only, or none; null for a plain member\'s view of the others.',
    }),
  },
  { $id: 'TeamMember', description: "A plain member sees the others' names and roles; the other fields are null but for their own row." },
);
export type TeamMember = Static<typeof TeamMemberSchema>;

export const TeamInvitationSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: InvitedRoleSchema,
    expires_at: Type.String({ format: 'date-time' }),
    // Optional for the client's sake only: the server sends it on every invitation.
    delivery: Type.Optional(
      Type.Union([Type.Literal('sent'), Type.Literal('pending'), Type.Literal('failed')], {
        description: 'How its newest mail fared: `sent`, `pending` (queued, not tried yet), `failed` (its last try failed; it is tried again for 24 hours, or resend it).',
      }),
    ),
  },
  { $id: 'TeamInvitation' },
);
export type TeamInvitation = Static<typeof TeamInvitationSchema>;

/** `GET /teams/me/usage`. */
const Totals = { queries: Type.Integer(), tokens: Type.Integer() };
export const TeamUsageSchema = Type.Object({
  month: Type.String(),
  days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), user_id: Type.String(), ...Totals })),
  by_task: Type.Array(Type.Object({ task: Type.String(), ...Totals })),
  members: Type.Array(Type.Object({ user_id: Type.String(), full_name: Type.String(), email: Type.String(), ...Totals })),
});
export type TeamUsage = Static<typeof TeamUsageSchema>;

/** `GET /teams/me/audit-log`: a page of events. */
export const AuditPageSchema = Type.Object({
  events: Type.Array(
    Type.Object({
      id: Type.String(),
      at: Type.String({ format: 'date-time' }),
      actor: Nullable(Type.Object({ user_id: Nullable(Type.String()), name: Type.String() })),
      action: Type.Unsafe<AuditAction>({ type: 'string', enum: [...AUDIT_ACTIONS] }),
      target: Nullable(Type.Object({ user_id: Nullable(Type.String()), name: Type.String(), detail: Nullable(Type.String()) })),
      ip: Nullable(Type.String()),
    }),
  ),
  next: Nullable(Type.String({ description: 'Pass as `before` for the next (older) page; null on the last page.' })),
});
export type AuditPage = Static<typeof AuditPageSchema>;
export type AuditEvent = AuditPage['events'][number];

/** What `/invite/{token}` shows before anyone signs in. */
export const InvitationPreviewSchema = Type.Object({
  team_name: Type.String(),
  inviter_name: Type.String(),
  email: Type.String(),
  role: InvitedRoleSchema,
  expires_at: Type.String({ format: 'date-time' }),
});
export type InvitationPreview = Static<typeof InvitationPreviewSchema>;
