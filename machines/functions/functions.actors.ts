import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { authApi, functionsApi, type CustomFunction, type TeamRole } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import type { User } from '../shared/api';

export interface FunctionList {
  functions: CustomFunction[];
  /** The caller's role in their team (null when in none): owners and admins manage the team's functions. */
  teamRole: TeamRole | null;
}

/**
 * The list and the role as the page's early calls already answered them (machines/shared/earlyCalls.ts),
 * or null when either is not in: the chart then loads both.
 */
export function knownFunctions(): FunctionList | null {
  const list = knownAnswer<{ functions: CustomFunction[] }>('/functions');
  const me = knownAnswer<User>('/users/me');
  return list && me ? { functions: list.functions, teamRole: me.team_role ?? null } : null;
}

/** Spends the early answers the chart started from. */
export function takeKnownFunctions(): void {
  takeKnownAnswer('/functions');
  takeKnownAnswer('/users/me');
}

export const functionsActors = {
  loadFunctions: fromPromise<FunctionList, AuthInput>(async ({ input: { auth }, signal }) => {
    const [list, me] = await Promise.all([withAuthRetry(auth, () => functionsApi.list({ signal })), withAuthRetry(auth, () => authApi.me({ signal }))]);
    return { functions: list.functions, teamRole: me.team_role ?? null };
  }),
  deleteFunction: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => functionsApi.remove(id, { signal }))),
};
