import type { TeamRole } from './teams';

/**
 * An owner or an admin manages the team (decisions.md, Teams): its invitations, its members' roles
 * and caps, its usage, audit log and functions. The server's checks and the pages' controls read
 * this one rule. A module of its own, with no schema: the pages' code takes it without TypeBox.
 */
export const managesTeam = (role: TeamRole | null | undefined): boolean => role === 'owner' || role === 'admin';
