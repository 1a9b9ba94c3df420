import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import type { TeamData } from '../../machines/team/team.actors';
import { doneText, teamMachine, type TeamEvent } from '../../machines/team/team.machine';
import { refusalText } from '../../machines/shared/failures';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type AuditEvent, type TeamMember, type TeamUsage } from '../../machines/shared/api';
import { planName } from '../../contract/plans';
import type { ErrorCode } from '../../contract/errors';
import { TEAM_SEAT_LIMIT } from '../../contract/plans';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import { word } from '../helpers/words';
import { HELD_SENTENCE } from '../helpers/fixtures';

/**
 * The team-page chart (`/team`) as a test model, shared by the jsdom replay
 * (tests/model/team.model.test.tsx) and the Chromium replay against the real server
 * (tests/paths/team.paths.test.ts): the team as an owner and as a plain member sees it, how each
 * call can end, the generated paths for both, and what the page shows in each state.
 */

const t = messages.team;

/** The people of the model; the Chromium runner makes a real team of them for each path. */
export const OWNER_NAME = 'Ada Lovelace';
export const MEMBER_NAME = 'Grace Hopper';
/** The pending invitation's address; nobody has an account with it. */
export const INVITED = 'alan.pending@example.com';
export const TEAM_NAME = `${OWNER_NAME}’s team`;

export const thisMonth = new Date().toISOString().slice(0, 7);
const lastMonthDate = new Date();
lastMonthDate.setUTCDate(1);
lastMonthDate.setUTCMonth(lastMonthDate.getUTCMonth() - 1);
export const lastMonth = lastMonthDate.toISOString().slice(0, 7);

const now = new Date().toISOString();
const row = (user_id: string, full_name: string, role: TeamMember['role'], own: boolean): TeamMember => ({
  user_id,
  full_name,
  role,
  joined_at: now,
  ...(own
    ? { email: `${user_id}@example.com`, last_active_at: null, month_queries: 0, day_tokens: 0, monthly_query_cap: null, second_factor: 'none' as const }
    : { email: null, last_active_at: null, month_queries: null, day_tokens: null, monthly_query_cap: null, second_factor: null }),
});
const usageOf = (month: string): TeamUsage => ({ month, days: [], by_task: [], members: [] });
const created: AuditEvent = { id: 'e-1', at: now, actor: { user_id: 'u-ada', name: OWNER_NAME }, action: 'team.created', target: null, ip: '127.0.0.1' };
const team = { id: 't-1', name: TEAM_NAME, created_at: now, seat_limit: TEAM_SEAT_LIMIT, seats_used: 3, plan_status: 'active' as const, default_monthly_query_cap: null, require_two_factor: false, session_max_age_hours: null };

/** How a path arrives: as the owner (who sees everything, with older audit events to page to), as an admin, or as a plain member. */
export const ARRIVALS = {
  owner: {
    userId: 'u-ada',
    data: {
      team,
      role: 'owner',
      ownPaidPlan: null,
      members: [row('u-ada', OWNER_NAME, 'owner', true), row('u-grace', MEMBER_NAME, 'member', true)],
      invitations: [{ id: 'i-alan', email: INVITED, role: 'member', expires_at: now }],
      usage: usageOf(thisMonth),
      audit: { events: [created], next: 'older-cursor' },
      held: null,
    },
  },
  // Grace as an admin: she sees what the owner sees, but cannot act on the owner, nor on her own cap or role; she can leave.
  admin: {
    userId: 'u-grace',
    data: {
      team,
      role: 'admin',
      ownPaidPlan: 'professional',
      members: [row('u-ada', OWNER_NAME, 'owner', true), row('u-grace', MEMBER_NAME, 'admin', true)],
      invitations: [{ id: 'i-alan', email: INVITED, role: 'member', expires_at: now }],
      usage: usageOf(thisMonth),
      audit: { events: [created], next: 'older-cursor' },
      held: null,
    },
  },
  // Grace while the team requires two-step sign-in and she has none: the server answers the team's own read only.
  held: {
    userId: 'u-grace',
    data: {
      team: { ...team, require_two_factor: true },
      role: 'member',
      ownPaidPlan: null,
      members: [],
      invitations: null,
      usage: null,
      audit: null,
      held: { text: HELD_SENTENCE },
    },
  },
  member: {
    userId: 'u-grace',
    // Grace also pays for her own Professional plan, which keeps billing while she is in the team.
    data: { team, role: 'member', ownPaidPlan: 'professional', members: [row('u-ada', OWNER_NAME, 'owner', false), row('u-grace', MEMBER_NAME, 'member', true)], invitations: null, usage: null, audit: null, held: null },
  },
} satisfies Record<string, { userId: string; data: TeamData }>;
export type Arrival = keyof typeof ARRIVALS;

const refusal = (status: number, code: ErrorCode) => new ApiRequestError(`API Error: ${status}`, status, code, code);
const offline = () => new ApiRequestError(messages.api.network, 0);
const notInTeam = refusal(404, 'not_in_team');

export type TeamSnapshot = SnapshotFrom<typeof teamMachine>;

/** The answers each call may get; the team's own data depends on who looks. */
function outcomes(arrival: Arrival): ActorOutcome[] {
  const { data } = ARRIVALS[arrival];
  return [
    { type: 'xstate.done.actor.load', output: data },
    { type: 'xstate.error.actor.load', error: notInTeam },
    { type: 'xstate.error.actor.load', error: offline() },
    { type: 'xstate.error.actor.load', error: refusal(503, 'service_unavailable') },
    { type: 'xstate.done.actor.change', output: undefined },
    { type: 'xstate.error.actor.change', error: refusal(403, 'forbidden') },
    { type: 'xstate.done.actor.reload', output: data },
    { type: 'xstate.error.actor.reload', error: notInTeam },
    { type: 'xstate.error.actor.reload', error: offline() },
    { type: 'xstate.done.actor.loadUsage', output: usageOf(lastMonth) },
    { type: 'xstate.error.actor.loadUsage', error: offline() },
    { type: 'xstate.done.actor.downloadCsv', output: undefined },
    { type: 'xstate.error.actor.downloadCsv', error: offline() },
    { type: 'xstate.done.actor.loadOlder', output: { events: [{ ...created, id: 'e-0' }], next: null } },
    { type: 'xstate.error.actor.loadOlder', error: offline() },
  ];
}

/** The answer of a confirmation the page asks for (leave, remove, hand ownership over). */
const answers: TeamEvent[] = [{ type: 'change.confirm' }, { type: 'change.cancel' }];
/** The default cap the paths set for new members. */
export const DEFAULT_CAP = 20;
/**
 * The security policy the owner's paths save: a session limit, two-step sign-in left optional (the
 * model's owner has no second factor, so the real server would refuse the requirement:
 * tests/e2e/teamSecurity.test.ts turns it on with one).
 */
export const SECURITY_POLICY = { requireTwoFactor: false, sessionMaxAgeHours: 12 };

/**
 * What each person can do on the page: a member only leaves; an admin leaves and renames the team
 * (the rest of what an admin does is the owner's paths'); the owner acts on Grace, the pending
 * invitation and the team's settings.
 */
function userEvents(arrival: Arrival): TeamEvent[] {
  if (arrival === 'member' || arrival === 'held') return [{ type: 'team.retry' }, { type: 'member.remove', userId: 'u-grace' }, ...answers];
  if (arrival === 'admin') return [{ type: 'member.remove', userId: 'u-grace' }, ...answers, { type: 'team.rename', name: TEAM_NAME }];
  return [
    { type: 'team.retry' },
    { type: 'team.reload' },
    { type: 'member.remove', userId: 'u-grace' },
    { type: 'member.transfer', userId: 'u-grace' },
    ...answers,
    { type: 'team.rename', name: TEAM_NAME },
    { type: 'team.defaultCap', cap: DEFAULT_CAP },
    { type: 'team.security', ...SECURITY_POLICY },
    { type: 'member.cap', userId: 'u-grace', cap: 5 },
    { type: 'member.role', userId: 'u-grace', role: 'admin' },
    { type: 'invitation.resend', id: 'i-alan' },
    { type: 'invitation.revoke', id: 'i-alan' },
    { type: 'usage.month', month: lastMonth },
    { type: 'usage.download' },
    { type: 'audit.older' },
  ];
}

const busy = (state: TeamSnapshot) => state.hasTag('changing') || state.hasTag('usageLoading') || state.hasTag('downloading') || state.hasTag('auditLoading');
const isOutcome = (type: string) => type.startsWith('xstate.');
const movedOn = ({ context }: TeamSnapshot) => context.month !== thisMonth || (context.data?.audit !== null && context.data?.audit?.next === null);

const noop = () => undefined;

function pathsFrom(arrival: Arrival) {
  const chart = teamMachine.provide({ actions: { notify: noop, navigate: noop, logFailure: noop } });
  const events = [...outcomes(arrival), ...userEvents(arrival)];
  const offered = new Set(events.map((event) => event.type));
  const model = createTestModel(toTestModelMachine(chart), {
    input: { auth: null, userId: ARRIVALS[arrival].userId, month: thisMonth },
    events,
    // One thing at a time: the regions' calls overlapping is the chart tests' business, and each
    // overlap would multiply the paths without showing the person anything new.
    // The model leaves out what the page does not offer this person (the chart would make up the
    // bare event).
    // Once older events or another month are shown, the paths end: what follows is walked from the
    // first screen already.
    // While the page asks for a confirmation, its dialog is all a person can reach.
    filterEvents: (state: TeamSnapshot, event: { type: string }) =>
      offered.has(event.type) &&
      (isOutcome(event.type) || (!busy(state) && !movedOn(state) && state.matches({ ready: { changes: 'confirming' } }) === event.type.startsWith('change.'))),
    serializeState: (state: TeamSnapshot, event: ActorOutcome | undefined, previous?: TeamSnapshot) =>
      JSON.stringify([
        state.value,
        state.context.changing?.kind ?? null,
        state.context.month,
        state.context.data?.audit?.next ?? null,
        // Why a load failed, while the page says it: the failures differ on screen, not after a retry.
        state.matches('failed') ? state.context.failure : null,
        event?.type ?? null,
        previous?.value ?? null,
      ]),
  } as never);
  return model.getShortestPaths().map((path) => ({ arrival, title: `${arrival}: ${path.description}`, path }));
}

export const teamPaths = (Object.keys(ARRIVALS) as Arrival[]).flatMap(pathsFrom);
export const teamCoverage = chartCoverage(teamMachine, teamPaths.map(({ path }) => path));

const shown = (when: boolean) => (when ? {} : { absent: true as const });
const section = (name: string, when: boolean): Sight => ({ role: 'heading', level: 2, name, ...shown(when) });

/** Whether the person just left the team (they go on to their dashboard). */
export const leftTeam = ({ context }: TeamSnapshot) => context.changing?.kind === 'remove' && context.changing.userId === context.userId;

/** The workspace: the team, the person's role, the sections their role may see, and the actions it allows, disabled while a change is under way. */
function workspace(state: TeamSnapshot): Sight[] {
  const data = state.context.data!;
  const admin = data.role !== 'member';
  const owner = data.role === 'owner';
  const changing = state.hasTag('changing');
  const sights: Sight[] = [
    { role: 'heading', level: 1, name: TEAM_NAME },
    { text: t.yourRole(t.roles[data.role]!) },
    section(t.membersHeading, true),
    section(t.billingHeading, true),
    // The owner is told how many members a downgrade or a cancellation takes the Team plan from, and leaves only by handing ownership over.
    owner ? { text: t.billingOwner } : { text: t.billingOther(OWNER_NAME) },
    { text: t.downgradeWarning(data.members.length), ...shown(owner) },
    { role: 'link', name: t.manageBilling, ...shown(owner) },
    { text: t.ownerCannotLeave, ...shown(owner) },
    section(t.settingsHeading, admin),
    { role: 'button', name: t.saveName, ...(admin ? { disabled: changing } : { absent: true as const }) },
    { role: 'button', name: t.saveDefaultCap, ...(admin ? { disabled: changing } : { absent: true as const }) },
    // Everyone sees the security policy; admins change it, the others read it.
    section(t.securityHeading, true),
    { role: 'button', name: t.saveSecurity, ...(admin ? { disabled: changing } : { absent: true as const }) },
    { label: t.requireTwoFactor, ...shown(admin) },
    { label: t.sessionMaxAge, ...shown(admin) },
    { text: data.team.require_two_factor ? t.twoFactorRequired : t.twoFactorOptional, ...shown(!admin) },
    { text: t.noSessionLimit, ...shown(!admin && data.team.session_max_age_hours === null) },
    { role: 'alertdialog', absent: true },
    section(t.inviteHeading, admin),
    section(t.pendingHeading, admin),
    section(t.usageHeading, admin),
    section(t.auditHeading, admin),
    ...(data.ownPaidPlan
      ? [{ text: t.ownPlanStillBilled(planName(data.ownPaidPlan)) }, { role: 'link', name: t.manageOwnPlan } as Sight]
      : [{ text: t.ownPlanStillBilled(planName('professional')), absent: true } as Sight, { role: 'link', name: t.manageOwnPlan, absent: true } as Sight]),
    { text: new RegExp(`^${MEMBER_NAME}`) },
  ];
  // Nobody caps or removes the owner: the owner caps anyone but themself, an admin plain members only.
  sights.push({ role: 'button', name: `${t.setCap}: ${OWNER_NAME}`, absent: true }, { role: 'button', name: `${t.remove}: ${OWNER_NAME}`, absent: true });
  if (!owner) {
    sights.push(
      { role: 'button', name: t.leave, disabled: changing },
      { role: 'button', name: `${t.setCap}: ${MEMBER_NAME}`, absent: true },
      { role: 'button', name: new RegExp(`^${t.makeOwner}`), absent: true },
      { role: 'button', name: new RegExp(`^${t.makeAdmin}`), absent: true },
    );
  }
  if (!admin) return sights;
  if (owner) {
    sights.push(
      { role: 'button', name: t.leave, absent: true },
      { role: 'button', name: `${t.setCap}: ${MEMBER_NAME}`, disabled: changing },
      { role: 'button', name: `${t.makeAdmin}: ${MEMBER_NAME}`, disabled: changing },
      { role: 'button', name: `${t.makeOwner}: ${MEMBER_NAME}`, disabled: changing },
      { role: 'button', name: `${t.remove}: ${MEMBER_NAME}`, disabled: changing },
    );
  }
  sights.push(
    { role: 'button', name: `${t.resend}: ${INVITED}`, disabled: changing },
    { role: 'button', name: `${t.revoke}: ${INVITED}`, disabled: changing },
    { label: t.month, value: state.context.month },
    { text: t.noUsage },
    { role: 'button', name: state.hasTag('downloading') ? t.downloadBusy : t.downloadCsv },
    data.audit?.next ? { role: 'button', name: state.hasTag('auditLoading') ? t.olderBusy : t.olderEvents } : { role: 'button', name: t.olderEvents, absent: true },
  );
  return sights;
}

/** The confirmation the page asks for: a dialog that names who is removed, or who becomes the owner; the page under it is out of reach. */
function confirmation(state: TeamSnapshot): Sight[] {
  const change = state.context.changing!;
  const self = change.kind === 'remove' && change.userId === state.context.userId;
  const [title, text, action] =
    change.kind === 'transfer'
      ? [t.transferTitle(MEMBER_NAME), t.transferConfirm(MEMBER_NAME, TEAM_NAME), t.transferAction]
      : self
        ? [t.leaveTitle, t.leaveConfirm, t.confirm]
        : [t.removeTitle(MEMBER_NAME), t.removeConfirm(MEMBER_NAME), t.confirm];
  const dialog = { role: 'alertdialog', name: title } as const;
  return [
    dialog,
    { in: dialog, text },
    { in: dialog, role: 'button', name: action },
    { in: dialog, role: 'button', name: t.cancel },
    { role: 'button', name: t.saveName, absent: true },
  ];
}

/** A member the team's requirement holds back: the team, the server's sentence, the way to the set-up and Leave; nothing the server refused. */
function held(state: TeamSnapshot): Sight[] {
  return [
    { role: 'heading', level: 1, name: TEAM_NAME },
    { text: t.yourRole(t.roles.member!) },
    { text: HELD_SENTENCE },
    { role: 'link', name: messages.security.requiredAction },
    { role: 'button', name: t.leave, disabled: state.hasTag('changing') },
    { role: 'alertdialog', absent: true },
    section(t.membersHeading, false),
    section(t.securityHeading, false),
  ];
}

/** What the page shows in each state of the chart. */
export const teamViews = {
  loading: (): Sight[] => [{ role: 'status' }, { label: messages.loading }],
  // A refusal in the server's words; a lost connection in the page's own ("check your connection").
  failed: (state: TeamSnapshot): Sight[] => [
    { text: t.loadFailed },
    ...(state.context.failure ? [{ text: word(state.context.failure) }] : []),
    { role: 'button', name: t.retry },
  ],
  // Someone who left goes on to their dashboard, told it is done; anyone else sees what Team offers.
  notInTeam: (state: TeamSnapshot): Sight[] =>
    leftTeam(state) ? [{ text: t.done }, { role: 'heading', name: TEAM_NAME, absent: true }] : [{ role: 'heading', level: 1, name: t.offerHeading }, { role: 'link', name: t.offerAction }],
  ready: (state: TeamSnapshot) => (state.matches({ ready: { changes: 'confirming' } }) ? confirmation(state) : state.context.data!.held ? held(state) : workspace(state)),
} satisfies Record<string, (state: TeamSnapshot) => Sight[]>;

/** The toast a finished call leaves (none for the loads, which the page itself shows). */
export function toastAfter(outcome: ActorOutcome, state: TeamSnapshot): Sight[] {
  if (outcome.type === 'xstate.done.actor.change') return [{ text: word(doneText(state.context.changing!, state.context.data)) }];
  if (outcome.type.startsWith('xstate.error.actor.') && !/\.(load|reload)$/.test(outcome.type)) return [{ text: t.actionFailed }, { text: word(refusalText(outcome.error)) }];
  return [];
}
