import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { teamApi, type AuditEvent, type InvitedRole, type Team, type TeamInvitation, type TeamMember, type TeamRole, type TeamUsage } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import type { PlanId } from '../../contract/plans';
import { failureCode, serverFailure } from '../shared/failures';
import type { Message } from '../shared/messages';
import { saveFile } from '../shared/saveFile';
import { knownAnswer, takeKnownAnswers } from '../shared/earlyCalls';
import type { MyTeam } from '../../contract/teams';
import { managesTeam } from '../../contract/roles';
import { LOAD_PATHS } from '../shared/loadPaths';
import { teamPaths } from './team.calls';

/** Everything the team page shows; the admin-only parts are null for a plain member. */
export interface TeamData {
  team: Team;
  role: TeamRole;
  /** A paid plan the person pays for themselves, which keeps billing while they are in the team. */
  ownPaidPlan: PlanId | null;
  members: TeamMember[];
  invitations: TeamInvitation[] | null;
  usage: TeamUsage | null;
  audit: { events: AuditEvent[]; next: string | null } | null;
  /**
   * While the team requires two-step sign-in of a member who has no second factor, the server's
   * sentence: the team's own read answers (to find the way out), the rest is refused, so the page
   * shows the team, the way to the set-up and Leave (decisions.md, "Team security policy").
   */
  held: Message | null;
}

/** One change a person makes on the page; each is one call. */
export type TeamChange =
  | { kind: 'remove'; userId: string }
  | { kind: 'cap'; userId: string; cap: number | null }
  | { kind: 'role'; userId: string; role: InvitedRole }
  | { kind: 'transfer'; userId: string }
  | { kind: 'rename'; name: string }
  | { kind: 'defaultCap'; cap: number | null }
  | { kind: 'security'; requireTwoFactor: boolean; sessionMaxAgeHours: number | null }
  | { kind: 'resend'; id: string }
  | { kind: 'revoke'; id: string };

async function load(input: AuthInput & { month: string }, signal: AbortSignal): Promise<TeamData> {
  const opts = { signal };
  const { team, role, own_paid_plan: ownPaidPlan } = await withAuthRetry(input.auth, () => teamApi.team(opts));
  const alone = { team, role, ownPaidPlan, members: [], invitations: null, usage: null, audit: null, held: null };
  try {
    const members = withAuthRetry(input.auth, () => teamApi.members(opts));
    if (!managesTeam(role)) return { ...alone, members: (await members).members };
    const [list, invitations, usage, audit] = await Promise.all([
      members,
      withAuthRetry(input.auth, () => teamApi.invitations(opts)),
      withAuthRetry(input.auth, () => teamApi.usage(input.month, opts)),
      withAuthRetry(input.auth, () => teamApi.auditLog(null, opts)),
    ]);
    return { ...alone, members: list.members, invitations: invitations.invitations, usage, audit };
  } catch (error) {
    if (failureCode(error) === 'two_factor_required') return { ...alone, held: serverFailure(error) };
    throw error;
  }
}

/**
 * The team as the page's early calls already answered it (machines/shared/earlyCalls.ts): the team
 * and role, and every call `load` makes for that role. Null when one of them is not in (or was
 * refused, or was sent for another role): the chart then loads the team.
 */
export function knownTeam(month: string): TeamData | null {
  const mine = knownAnswer<MyTeam>(LOAD_PATHS.team);
  if (!mine) return null;
  const paths = teamPaths(mine.role, month);
  const members = knownAnswer<{ members: TeamMember[] }>(paths.members);
  if (!members) return null;
  const alone = { team: mine.team, role: mine.role, ownPaidPlan: mine.own_paid_plan, members: members.members, invitations: null, usage: null, audit: null, held: null };
  if (!('invitations' in paths)) return alone;
  const invitations = knownAnswer<{ invitations: TeamInvitation[] }>(paths.invitations);
  const usage = knownAnswer<TeamUsage>(paths.usage);
  const audit = knownAnswer<{ events: AuditEvent[]; next: string | null }>(paths.audit);
  return invitations && usage && audit ? { ...alone, invitations: invitations.invitations, usage, audit } : null;
}

/** Spends the early answers the chart started from (`knownTeam`). */
export function takeKnownTeam(data: TeamData, month: string): void {
  takeKnownAnswers([LOAD_PATHS.team, ...Object.values(teamPaths(data.role, month))]);
}

async function change(input: AuthInput & { change: TeamChange }, signal: AbortSignal): Promise<void> {
  const c = input.change;
  const opts = { signal };
  await withAuthRetry(input.auth, async () => {
    switch (c.kind) {
      case 'remove':
        return teamApi.removeMember(c.userId, opts);
      case 'cap':
        return void (await teamApi.updateMember(c.userId, { monthly_query_cap: c.cap }, opts));
      case 'role':
        return void (await teamApi.updateMember(c.userId, { role: c.role }, opts));
      case 'transfer':
        return teamApi.transfer(c.userId, opts);
      case 'rename':
        return void (await teamApi.updateTeam({ name: c.name }, opts));
      case 'defaultCap':
        return void (await teamApi.updateTeam({ default_monthly_query_cap: c.cap }, opts));
      case 'security':
        return void (await teamApi.updateSecurity({ require_two_factor: c.requireTwoFactor, session_max_age_hours: c.sessionMaxAgeHours }, opts));
      case 'resend':
        return void (await teamApi.resend(c.id, opts));
      case 'revoke':
        return teamApi.revoke(c.id, opts);
    }
  });
}

export const teamActors = {
  load: fromPromise<TeamData, AuthInput & { month: string }>(({ input, signal }) => load(input, signal)),
  change: fromPromise<void, AuthInput & { change: TeamChange }>(({ input, signal }) => change(input, signal)),
  loadUsage: fromPromise<TeamUsage, AuthInput & { month: string }>(({ input, signal }) => withAuthRetry(input.auth, () => teamApi.usage(input.month, { signal }))),
  loadOlder: fromPromise<{ events: AuditEvent[]; next: string | null }, AuthInput & { before: string }>(({ input, signal }) =>
    withAuthRetry(input.auth, () => teamApi.auditLog(input.before, { signal })),
  ),
  downloadCsv: fromPromise<void, AuthInput & { month: string }>(async ({ input, signal }) =>
    saveFile(await withAuthRetry(input.auth, () => teamApi.usageCsv(input.month, { signal })), `team-usage-${input.month}.csv`, 'text/csv'),
  ),
};
