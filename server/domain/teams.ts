import type { Kysely, Transaction } from 'kysely';
import { findPlan, TEAM_SEAT_LIMIT } from '../../contract/plans';
import { managesTeam } from '../../contract/roles';
import type { Team, TeamMember } from '../../contract/teams';
import type { Database, Engine, SubscriptionsTable, TeamRole, TeamsTable } from '../db/types';
import { ApiError } from '../errors';
import { recordAudit, type AuditActor, type Person } from './auditLog';
import { findSubscription, planAt } from './subscriptions';
import { memberActivity } from './teamUsage';
import { periodsAt } from './usageReport';
import { uuidV7 } from './uuidv7';

/**
 * Teams and their members (decisions.md, "Teams: what the Team plan promises"). Every call reads
 * the caller's role from the database in its own transaction, with the team's row locked on
 * PostgreSQL, so two changes to one team run one after the other there (SQLite runs one
 * transaction at a time): what one checked still holds when it writes. The constraints of the
 * migration back the rules that matter most (one team per user, one owner per team).
 *
 * Over 300 lines because every change to a membership (role, cap, removal, transfer) must be read
 * beside the role checks and audit entries it shares with the others; invitations, usage and the
 * audit log are their own modules.
 */

type Db = Kysely<Database> | Transaction<Database>;
type Trx = Transaction<Database>;

export const notInTeam = () => new ApiError(404, 'not_in_team', 'You are not in a team.');
export const forbidden = (message = 'Only the team’s owner or an admin can do this.') => new ApiError(403, 'forbidden', message);
/**
 * A Team checkout makes its payer a team's owner, and a person is in one team at a time: a member
 * paying for Team would pay for a team they could never have. The checkout call and the test
 * checkout page refuse with these same words.
 */
export const alreadyInTeamToPay = () =>
  new ApiError(409, 'already_in_team', 'You are in a team already, and its Team plan is yours while you are in it. Leave the team first to pay for a team of your own.');

/** In a team whose subscription someone else pays (the owner): a Team checkout of theirs must not be paid. */
export async function inTeamPaidByAnother(db: Db, userId: string): Promise<boolean> {
  const membership = await membershipOf(db, userId);
  return membership !== undefined && membership.team.billing_user_id !== userId;
}

const memberNotFound = () => new ApiError(404, 'member_not_found', 'There is no such member in your team.', { field: 'user_id' });

/** The caller in their team, as the database says on this request. */
export interface Acting {
  team: TeamsTable;
  role: TeamRole;
  person: Person;
  ip: string | null;
}

export type PlanStatus = Team['plan_status'];

/** How the team's Team subscription stands: while it applies, it is every member's plan. */
export function planStatusOf(subscription: SubscriptionsTable | undefined, now: number): PlanStatus {
  if (planAt(subscription, now) !== 'team') return 'ended';
  if (subscription!.status === 'past_due') return 'past_due';
  const ending = subscription!.cancel_at_period_end === 1 && subscription!.scheduled_plan !== 'team';
  return ending ? 'ending' : 'active';
}

/**
 * Finds the caller's team and role in `trx`, locking the team's row on PostgreSQL first and
 * reading the role after the lock, so the role is the one every earlier change to the team left.
 */
export async function actingIn(trx: Trx, engine: Engine, userId: string, ip: string | null): Promise<Acting> {
  const found = await trx.selectFrom('team_members').select('team_id').where('user_id', '=', userId).executeTakeFirst();
  if (!found) throw notInTeam();
  const team = await trx
    .selectFrom('teams')
    .selectAll()
    .where('id', '=', found.team_id)
    .$if(engine === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
  const member = await trx
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.team_id', 'team_members.role', 'users.full_name'])
    .where('team_members.user_id', '=', userId)
    .executeTakeFirst();
  // Removed or moved while waiting for the lock.
  if (!team || member?.team_id !== team.id) throw notInTeam();
  return { team, role: member.role, person: { id: userId, name: member.full_name }, ip };
}

/** The caller's team and role without locking anything (reads). */
export async function membershipOf(db: Db, userId: string): Promise<{ team: TeamsTable; role: TeamRole } | undefined> {
  const row = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .selectAll('teams')
    .select('team_members.role')
    .where('team_members.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { role, ...team } = row;
  return { team, role };
}

/** Members plus pending invitations that have not expired: what the seat limit counts. */
export async function seatsUsed(db: Db, teamId: string, now: number): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('team_members').select((e) => e.fn.countAll<number>().as('n')).where('team_id', '=', teamId).as('members'),
      eb
        .selectFrom('team_invitations')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('team_id', '=', teamId)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .as('pending'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.members) + Number(row.pending);
}

export async function wireTeam(db: Db, team: TeamsTable, now: number): Promise<Team> {
  const subscription = await db.selectFrom('subscriptions').selectAll().where('user_id', '=', team.billing_user_id).executeTakeFirst();
  return {
    id: team.id,
    name: team.name,
    created_at: new Date(Number(team.created_at)).toISOString(),
    seat_limit: TEAM_SEAT_LIMIT,
    seats_used: await seatsUsed(db, team.id, now),
    plan_status: planStatusOf(subscription, now),
    default_monthly_query_cap: team.default_monthly_query_cap,
    require_two_factor: Number(team.require_two_factor) === 1,
    session_max_age_hours: team.session_max_age_hours ?? null,
  };
}

/** The payer of a Team subscription joined a team while it was being applied (see `ensureTeamOf`). */
export class JoinedTeamMeanwhile extends Error {
  constructor() {
    super('the payer joined a team while their Team subscription was applied');
  }
}

/**
 * The team of a user whose Team checkout was paid, made in the billing event's transaction: its
 * owner is the user, its subscription the user's. A user already in a team, or billing one, gets no second one.
 * A join that commits while this runs takes the user's one membership first: the insert waits for
 * it and then does nothing, and the event must roll back (`JoinedTeamMeanwhile`) rather than leave
 * a Team subscription with no team.
 */
export async function ensureTeamOf(trx: Trx, userId: string, now: number): Promise<void> {
  const member = await trx.selectFrom('team_members').select('team_id').where('user_id', '=', userId).executeTakeFirst();
  // Billing follows ownership, so a team's billing user is its owner; a row that says otherwise predates that.
  const paidFor = await trx.selectFrom('teams').select('id').where('billing_user_id', '=', userId).executeTakeFirst();
  if (member && member.team_id !== paidFor?.id) throw new JoinedTeamMeanwhile();
  if (member || paidFor) return;
  const owner = await trx.selectFrom('users').select(['full_name']).where('id', '=', userId).executeTakeFirstOrThrow();
  const team = { id: uuidV7(now), name: defaultTeamName(owner.full_name) };
  await trx
    .insertInto('teams')
    .values({ ...team, billing_user_id: userId, default_monthly_query_cap: null, require_two_factor: 0, session_max_age_hours: null, created_at: now, updated_at: now })
    .execute();
  const joined = await trx
    .insertInto('team_members')
    .values({ team_id: team.id, user_id: userId, role: 'owner', monthly_query_cap: null, joined_at: now })
    .onConflict((conflict) => conflict.column('user_id').doNothing())
    .executeTakeFirst();
  if (Number(joined.numInsertedOrUpdatedRows ?? 0) === 0) throw new JoinedTeamMeanwhile();
  await recordAudit(trx, { teamId: team.id, actor: { id: userId, name: owner.full_name }, action: 'team.created', target: team, ip: null, at: now });
}

/** Team names are bounded like full names: the default fits whatever the owner's name is. */
export const TEAM_NAME_MAX = 100;

export function defaultTeamName(ownerName: string): string {
  const suffix = '’s team';
  return [...ownerName].slice(0, TEAM_NAME_MAX - suffix.length).join('') + suffix;
}

export function normaliseTeamName(raw: string): string {
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > TEAM_NAME_MAX) {
    throw new ApiError(400, 'invalid_input', `The team name must be 1 to ${TEAM_NAME_MAX} characters.`, { field: 'name' });
  }
  return name;
}

/** When the billing user's Team subscription changes how it applies, the team's log says so, and who did it. */
export async function recordPlanChange(
  trx: Trx,
  userId: string,
  before: SubscriptionsTable | undefined,
  after: SubscriptionsTable,
  times: { at: number; now: number },
  by: { person: AuditActor; ip: string | null },
) {
  const team = await trx.selectFrom('teams').select(['id']).where('billing_user_id', '=', userId).executeTakeFirst();
  if (!team) return;
  const { at, now } = times;
  // How it stood just before the event's own time: an end announced at the period end (or
  // settled later) was still running then, and the log says it ended.
  const was = planStatusOf(before, Math.min(at, now) - 1);
  const is = planStatusOf(after, now);
  if (was === is) return;
  await recordAudit(trx, { teamId: team.id, actor: by.person, action: 'team.plan_changed', target: { id: null, name: 'Team' }, detail: `${was} → ${is}`, ip: by.ip, at: now });
}

export async function renameTeam(trx: Trx, acting: Acting, changes: { name?: string; defaultCap?: number | null }, now: number): Promise<TeamsTable> {
  if (!managesTeam(acting.role)) throw forbidden();
  const { team } = acting;
  const name = changes.name === undefined ? team.name : normaliseTeamName(changes.name);
  const defaultCap = changes.defaultCap === undefined ? team.default_monthly_query_cap : changes.defaultCap;
  await trx.updateTable('teams').set({ name, default_monthly_query_cap: defaultCap, updated_at: now }).where('id', '=', team.id).execute();
  if (name !== team.name) {
    await recordAudit(trx, { teamId: team.id, actor: acting.person, action: 'team.renamed', target: { id: team.id, name }, detail: team.name, ip: acting.ip, at: now });
  }
  if (defaultCap !== team.default_monthly_query_cap) {
    await recordAudit(trx, { teamId: team.id, actor: acting.person, action: 'team.default_cap_changed', target: { id: team.id, name }, detail: capText(defaultCap), ip: acting.ip, at: now });
  }
  return { ...team, name, default_monthly_query_cap: defaultCap, updated_at: now };
}

const capText = (cap: number | null) => (cap === null ? 'no cap' : String(cap));

/** Sets the team's security policy (admins); each change is in the audit log, with who made it. */
export async function setSecurityPolicy(
  trx: Trx,
  acting: Acting,
  changes: { require_two_factor?: boolean; session_max_age_hours?: number | null },
  now: number,
): Promise<TeamsTable> {
  if (!managesTeam(acting.role)) throw forbidden();
  const { team } = acting;
  if (changes.require_two_factor === true && !(await hasSecondFactor(trx, acting.person.id))) {
    throw new ApiError(403, 'two_factor_required', 'Set up two-step sign-in for yourself first: then you can require it of the team without locking yourself out.');
  }
  const requireTwoFactor = changes.require_two_factor === undefined ? Number(team.require_two_factor ?? 0) : changes.require_two_factor ? 1 : 0;
  const maxAge = changes.session_max_age_hours === undefined ? (team.session_max_age_hours ?? null) : changes.session_max_age_hours;
  await trx.updateTable('teams').set({ require_two_factor: requireTwoFactor, session_max_age_hours: maxAge, updated_at: now }).where('id', '=', team.id).execute();
  const target = { id: team.id, name: team.name };
  if (requireTwoFactor !== Number(team.require_two_factor)) {
    await recordAudit(trx, { teamId: team.id, actor: acting.person, action: 'team.two_factor_policy_changed', target, detail: requireTwoFactor ? 'required' : 'not required', ip: acting.ip, at: now });
  }
  if (maxAge !== (team.session_max_age_hours ?? null)) {
    await recordAudit(trx, { teamId: team.id, actor: acting.person, action: 'team.session_policy_changed', target, detail: maxAge === null ? 'no limit' : `${maxAge} hours`, ip: acting.ip, at: now });
  }
  return { ...team, require_two_factor: requireTwoFactor, session_max_age_hours: maxAge, updated_at: now };
}

async function hasSecondFactor(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users as u')
    .select((eb) => ['u.totp_enabled_at', eb.exists(eb.selectFrom('webauthn_credentials as w').select('w.id').whereRef('w.user_id', '=', 'u.id')).as('has_passkey')])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return Boolean(row && (row.totp_enabled_at != null || Number(row.has_passkey)));
}

/** Each member's second factor, for the members table: an app (with or without passkeys), passkeys only, or none. */
async function secondFactorsOf(db: Db, teamId: string): Promise<Map<string, 'authenticator_app' | 'passkey' | 'none'>> {
  const rows = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select((eb) => [
      'm.user_id',
      'u.totp_enabled_at',
      eb.exists(eb.selectFrom('webauthn_credentials as w').select('w.id').whereRef('w.user_id', '=', 'm.user_id')).as('has_passkey'),
    ])
    .where('m.team_id', '=', teamId)
    .execute();
  return new Map(rows.map((row) => [row.user_id, row.totp_enabled_at != null ? 'authenticator_app' : row.has_passkey ? 'passkey' : 'none']));
}

export async function listMembers(db: Db, teamId: string, viewer: { userId: string; role: TeamRole }, now: number): Promise<TeamMember[]> {
  const { month, day } = periodsAt(now);
  const rows = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .leftJoin('team_member_months as mm', (join) => join.onRef('mm.team_id', '=', 'm.team_id').onRef('mm.user_id', '=', 'm.user_id').on('mm.month', '=', month))
    .select(['m.user_id', 'u.full_name', 'u.email', 'm.role', 'm.joined_at', 'm.monthly_query_cap', 'mm.queries'])
    .where('m.team_id', '=', teamId)
    .orderBy('m.joined_at')
    .orderBy('m.user_id')
    .execute();
  const byUser = await memberActivity(db, teamId, day);
  const seesAll = managesTeam(viewer.role);
  const factors = await secondFactorsOf(db, teamId);
  return rows.map((row) => {
    const full = seesAll || row.user_id === viewer.userId;
    const active = byUser.get(row.user_id);
    return {
      user_id: row.user_id,
      full_name: row.full_name,
      email: full ? row.email : null,
      role: row.role,
      joined_at: new Date(Number(row.joined_at)).toISOString(),
      last_active_at: full && active ? new Date(active.lastAt).toISOString() : null,
      month_queries: full ? Number(row.queries ?? 0) : null,
      day_tokens: full ? (active?.dayTokens ?? 0) : null,
      monthly_query_cap: full ? row.monthly_query_cap : null,
      second_factor: full ? (factors.get(row.user_id) ?? 'none') : null,
    };
  });
}

async function memberIn(trx: Trx, teamId: string, userId: string) {
  const row = await trx
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.user_id', 'team_members.role', 'team_members.monthly_query_cap', 'users.full_name'])
    .where('team_members.team_id', '=', teamId)
    .where('team_members.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw memberNotFound();
  return row;
}

/**
 * Who may set whose cap (decisions.md, "Team money and roles"): an admin caps members only, never
 * themself, the owner or another admin; the owner caps anyone but themself, and may only lift a cap
 * they carry from before they owned the team. Decided on the target's role as read under the lock.
 */
function capRefusal(acting: Acting, target: { user_id: string; role: TeamRole }, cap: number | null) {
  if (target.role === 'owner') return acting.role === 'owner' && cap === null ? null : forbidden('No one can cap the team’s owner.');
  if (target.role === 'admin' && acting.role !== 'owner') return forbidden('Only the team’s owner can set an admin’s cap, your own included.');
  return null;
}

/** Role changes are the owner's; caps are any admin's (see `capRefusal`). The owner's own role changes only by a transfer. */
export async function updateMember(
  trx: Trx,
  acting: Acting,
  userId: string,
  changes: { role?: 'admin' | 'member'; cap?: number | null },
  now: number,
): Promise<void> {
  if (!managesTeam(acting.role)) throw forbidden();
  const teamId = acting.team.id;
  const target = await memberIn(trx, teamId, userId);
  const who = { id: target.user_id, name: target.full_name };
  const refusal = changes.cap === undefined ? null : capRefusal(acting, target, changes.cap);
  if (refusal) throw refusal;
  if (changes.role !== undefined && changes.role !== target.role) {
    if (acting.role !== 'owner') throw forbidden('Only the team’s owner can change roles.');
    if (target.role === 'owner') throw forbidden('The owner’s role changes only by handing ownership to another member.');
    // `role <> 'owner'` again in the write: the row may have become the owner's since it was read (SQLite has no row lock to hold).
    await trx.updateTable('team_members').set({ role: changes.role }).where('team_id', '=', teamId).where('user_id', '=', userId).where('role', '<>', 'owner').execute();
    await recordAudit(trx, { teamId, actor: acting.person, action: 'member.role_changed', target: who, detail: `${target.role} → ${changes.role}`, ip: acting.ip, at: now });
  }
  if (changes.cap !== undefined && changes.cap !== target.monthly_query_cap) {
    await trx.updateTable('team_members').set({ monthly_query_cap: changes.cap }).where('team_id', '=', teamId).where('user_id', '=', userId).execute();
    await recordAudit(trx, { teamId, actor: acting.person, action: 'member.cap_changed', target: who, detail: `${capText(target.monthly_query_cap)} → ${capText(changes.cap)}`, ip: acting.ip, at: now });
  }
}

/** An admin removes a member (the owner removes admins too); anyone but the owner leaves. */
export async function removeMember(trx: Trx, acting: Acting, userId: string, now: number): Promise<void> {
  const teamId = acting.team.id;
  const leaving = userId === acting.person.id;
  if (leaving && acting.role === 'owner') throw forbidden('The owner cannot leave the team. Hand ownership to another member first.');
  if (!leaving && !managesTeam(acting.role)) throw forbidden();
  const target = await memberIn(trx, teamId, userId);
  if (target.role === 'owner') throw forbidden('The owner cannot be removed from the team.');
  if (!leaving && target.role === 'admin' && acting.role !== 'owner') throw forbidden('Only the team’s owner can remove an admin.');
  const removed = await trx.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).where('role', '<>', 'owner').executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) throw memberNotFound();
  const who = { id: target.user_id, name: target.full_name };
  await recordAudit(trx, { teamId, actor: acting.person, action: leaving ? 'member.left' : 'member.removed', target: who, detail: target.role, ip: acting.ip, at: now });
}

/** What a transfer changed, for the mails that tell both people. */
export interface Handover {
  former: Person;
  next: Person;
  /** The team's running subscription moved to the new owner (there is a card on file). */
  billingMoved: boolean;
}

const day = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString().slice(0, 10));

/** The new owner still pays for a plan of their own: it cannot sit beside the team's (a person has one subscription). */
function newOwnerPays(name: string, own: SubscriptionsTable, now: number): ApiError {
  const plan = findPlan(planAt(own, now))!.name;
  const ends = own.cancel_at_period_end === 1 ? `It ends on ${day(own.current_period_end)}` : 'They can cancel it on their subscription page; it then ends at the end of its period';
  return new ApiError(
    409,
    'new_owner_has_subscription',
    `${name} pays for their own ${plan} plan, and the team’s subscription would become theirs. ${ends}, and they can take over the team after that.`,
    { field: 'user_id' },
  );
}

/**
 * The team's billing follows ownership (decisions.md, "Team money and roles"): the running Team
 * subscription, with its provider customer and ids, moves to the new owner's account, so their
 * plan changes, the billing page and every later provider event act on it, and the former owner
 * is back on their own plan (Free, unless they pay for one apart). On PostgreSQL both users are
 * locked after the team, the order billing events take too, so an event for either waits for
 * the move or runs before it.
 */
async function handBillingOver(trx: Trx, engine: Engine, team: TeamsTable, to: Person, now: number): Promise<boolean> {
  const from = team.billing_user_id;
  if (engine === 'postgres') {
    await trx.selectFrom('users').select('id').where('id', 'in', [from, to.id]).orderBy('id').forNoKeyUpdate().execute();
  }
  const paying = await findSubscription(trx, from);
  const teamSubscription = from !== to.id && paying?.plan === 'team' && paying.status !== 'canceled';
  if (teamSubscription) {
    const own = await findSubscription(trx, to.id);
    if (own && planAt(own, now) !== 'free') throw newOwnerPays(to.name, own, now);
    // What is left of an ended subscription of theirs is only history; the team's takes its place.
    if (own) await trx.deleteFrom('subscriptions').where('user_id', '=', to.id).execute();
    await trx.updateTable('subscriptions').set({ user_id: to.id, updated_at: now }).where('user_id', '=', from).execute();
  }
  await trx.updateTable('teams').set({ billing_user_id: to.id, updated_at: now }).where('id', '=', team.id).execute();
  return teamSubscription;
}

/**
 * The owner hands ownership to a member and becomes an admin, in one transaction: the old owner's
 * row is demoted before the new one is promoted, so the one-owner index holds at every statement,
 * and a failure leaves both as they were. The team is never without an owner to anyone else. The
 * team's billing moves with ownership, in the same transaction.
 */
export async function transferOwnership(trx: Trx, engine: Engine, acting: Acting, userId: string, now: number): Promise<Handover> {
  if (acting.role !== 'owner') throw forbidden('Only the team’s owner can hand ownership to someone else.');
  const teamId = acting.team.id;
  if (userId === acting.person.id) throw new ApiError(400, 'invalid_input', 'You already own the team; choose another member.', { field: 'user_id' });
  const target = await memberIn(trx, teamId, userId);
  const next = { id: target.user_id, name: target.full_name };
  const billingMoved = await handBillingOver(trx, engine, acting.team, next, now);
  const demoted = await trx
    .updateTable('team_members')
    .set({ role: 'admin' })
    .where('team_id', '=', teamId)
    .where('user_id', '=', acting.person.id)
    .where('role', '=', 'owner')
    .executeTakeFirst();
  if (Number(demoted.numUpdatedRows) !== 1) throw forbidden('Only the team’s owner can hand ownership to someone else.');
  const promoted = await trx.updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  if (Number(promoted.numUpdatedRows) !== 1) throw memberNotFound();
  await recordAudit(trx, { teamId, actor: acting.person, action: 'team.ownership_transferred', target: next, detail: target.role, ip: acting.ip, at: now });
  return { former: acting.person, next, billingMoved };
}
