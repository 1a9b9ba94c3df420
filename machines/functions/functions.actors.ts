import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { authApi, functionsApi, type CustomFunction, type TeamRole } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';

export interface FunctionList {
  functions: CustomFunction[];
  /** The caller's role in their team (null when in none): owners and admins manage the team's functions. */
  teamRole: TeamRole | null;
}

export const functionsActors = {
  loadFunctions: fromPromise<FunctionList, AuthInput>(async ({ input: { auth }, signal }) => {
    const [list, me] = await Promise.all([withAuthRetry(auth, () => functionsApi.list({ signal })), withAuthRetry(auth, () => authApi.me({ signal }))]);
    return { functions: list.functions, teamRole: me.team_role ?? null };
  }),
  deleteFunction: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => functionsApi.remove(id, { signal }))),
};
