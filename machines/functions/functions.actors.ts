import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { authApi, functionsApi, type CustomFunction, type TeamRole } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import { knownAnswers, takeKnownAnswers } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';
import type { User } from '../shared/api';

export interface FunctionList {
  functions: CustomFunction[];
  /** The caller's role in their team (null when in none): owners and admins manage the team's functions. */
  teamRole: TeamRole | null;
}

/** The calls the page loads with: the list, and the session check for the person's team role. */
const LIST_AND_ROLE = [LOAD_PATHS.functions, LOAD_PATHS.me] as const;

/**
 * The list and the role as the page's early calls already answered them (machines/shared/earlyCalls.ts),
 * or null when either is not in: the chart then loads both.
 */
export function knownFunctions(): FunctionList | null {
  const known = knownAnswers<[{ functions: CustomFunction[] }, User]>(LIST_AND_ROLE);
  return known && { functions: known[0].functions, teamRole: known[1].team_role ?? null };
}

/** Spends the early answers the chart started from. */
export const takeKnownFunctions = (): void => takeKnownAnswers(LIST_AND_ROLE);

export const functionsActors = {
  loadFunctions: fromPromise<FunctionList, AuthInput>(async ({ input: { auth }, signal }) => {
    const [list, me] = await Promise.all([withAuthRetry(auth, () => functionsApi.list({ signal })), withAuthRetry(auth, () => authApi.me({ signal }))]);
    return { functions: list.functions, teamRole: me.team_role ?? null };
  }),
  deleteFunction: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => functionsApi.remove(id, { signal }))),
};
