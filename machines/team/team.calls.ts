import { managesTeam } from '../../contract/roles';
import type { TeamRole } from '../shared/api';
import { LOAD_PATHS } from '../shared/loadPaths';

/**
 * The calls the team page loads with, by the role `GET /teams/me` answers: every role sees the
 * members, an owner or admin also the invitations, the month's usage and the audit log. The page's
 * early calls (src/firstCalls.ts) send these for the role last answered, and the chart starts from
 * their answers (./team.actors.ts, `knownTeam`): one list, so the two cannot drift apart.
 */
type TeamPaths = { members: string } | { members: string; invitations: string; usage: string; audit: string };

export function teamPaths(role: TeamRole, month: string): TeamPaths {
  const members = LOAD_PATHS.teamMembers;
  if (!managesTeam(role)) return { members };
  return { members, invitations: LOAD_PATHS.teamInvitations, usage: `${LOAD_PATHS.teamUsage}?${new URLSearchParams({ month })}`, audit: LOAD_PATHS.teamAudit };
}
