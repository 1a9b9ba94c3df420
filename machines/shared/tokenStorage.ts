/**
 * The session tokens, kept in the browser's local storage (product spec, section 3) so every tab
 * shares them, and the person's team role as last answered, which lives and ends with them. This
 * module is the only code that touches those keys.
 */
import type { TeamRole } from '../../contract/teams';
import { localStore } from './localStore';

export const ACCESS_TOKEN_KEY = 'access_token';
export const REFRESH_TOKEN_KEY = 'refresh_token';
/**
 * The signed-in person's team role as the server last answered it (the session check, the team
 * page), so that the next load of the team page can ask what that role sees before the app has
 * loaded (src/firstCalls.ts). Absent outside a team, while a team holds the person to a second
 * factor they lack (every such call would be refused), and from a sign-in until the next answer.
 */
export const TEAM_ROLE_KEY = 'team_role';
const TEAM_ROLES: readonly string[] = ['owner', 'admin', 'member'] satisfies TeamRole[];
/**
 * On <html> from the first paint while a stored session is being checked (src/colorModeBoot.ts
 * sets it, the top bar removes it once the auth chart knows): the top bar shows no account
 * controls meanwhile, neither Login and Sign Up nor the signed-in ones.
 */
export const SESSION_CHECK_ATTRIBUTE = 'data-session-check';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** Whether this browser holds a session: what the auth chart checks first, and the page scripts too. */
export function hasStoredSession(): boolean {
  return (localStore()?.getItem(ACCESS_TOKEN_KEY) ?? null) !== null;
}

export const tokenStorage = {
  read(): { accessToken: string | null; refreshToken: string | null } {
    const store = localStore();
    return { accessToken: store?.getItem(ACCESS_TOKEN_KEY) ?? null, refreshToken: store?.getItem(REFRESH_TOKEN_KEY) ?? null };
  },
  write(tokens: TokenPair): void {
    const store = localStore();
    store?.setItem(ACCESS_TOKEN_KEY, tokens.access_token);
    store?.setItem(REFRESH_TOKEN_KEY, tokens.refresh_token);
  },
  /** A new sign-in's tokens: what was remembered of the last session's person is not theirs. */
  start(tokens: TokenPair): void {
    localStore()?.removeItem(TEAM_ROLE_KEY);
    tokenStorage.write(tokens);
  },
  clear(): void {
    const store = localStore();
    store?.removeItem(ACCESS_TOKEN_KEY);
    store?.removeItem(REFRESH_TOKEN_KEY);
    store?.removeItem(TEAM_ROLE_KEY);
  },
  /** The team role last remembered, or null (none, or not known). */
  readTeamRole(): TeamRole | null {
    const role = localStore()?.getItem(TEAM_ROLE_KEY) ?? null;
    return role !== null && TEAM_ROLES.includes(role) ? (role as TeamRole) : null;
  },
  /** Remembers the role an answer gave, or forgets it (null: in no team). */
  writeTeamRole(role: TeamRole | null): void {
    const store = localStore();
    if (role) store?.setItem(TEAM_ROLE_KEY, role);
    else store?.removeItem(TEAM_ROLE_KEY);
  },
  /** Remembers the role a `GET /users/me` answer gives, none while the team holds the person to a second factor. */
  writeTeamRoleOf(me: { team_role?: TeamRole | null; two_factor_required?: boolean }): void {
    if (me.team_role !== undefined) tokenStorage.writeTeamRole(me.two_factor_required ? null : me.team_role);
  },
};
