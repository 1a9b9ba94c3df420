import { assign, fromPromise, setup } from 'xstate';
import { withAuthRetry, type AuthActorRef } from '../auth/auth.retry';
import { ApiRequestError, teamApi } from '../../src/lib/api';

export interface MembershipContext {
  auth: AuthActorRef;
  /** Whether `GET /teams/me` last found the person in a team. */
  inTeam: boolean;
}

export type MembershipEvent = { type: 'membership.check' };

/**
 * Whether the signed-in person is in a team, which puts the team page in the top bar (decisions.md:
 * linked for team members, whatever their plan). Checked on start and again on `membership.check`
 * (the app sends it on every navigation, so joining or leaving shows on the next page); a failed
 * check other than `not_in_team` keeps what was known.
 */
export const membershipMachine = setup({
  types: {
    context: {} as MembershipContext,
    events: {} as MembershipEvent,
    input: {} as { auth: AuthActorRef },
  },
  actors: {
    check: fromPromise<boolean, { auth: AuthActorRef }>(async ({ input, signal }) => {
      try {
        await withAuthRetry(input.auth, () => teamApi.team({ signal }));
        return true;
      } catch (error) {
        if (error instanceof ApiRequestError && error.code === 'not_in_team') return false;
        throw error;
      }
    }),
  },
  actions: {
    store: assign({ inTeam: (_, inTeam: boolean) => inTeam }),
  },
}).createMachine({
  id: 'membership',
  context: ({ input }) => ({ auth: input.auth, inTeam: false }),
  initial: 'checking',
  states: {
    checking: {
      on: { 'membership.check': { target: 'checking', reenter: true } },
      invoke: {
        id: 'check',
        src: 'check',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'known', actions: { type: 'store', params: ({ event }) => event.output } },
        onError: 'known',
      },
    },
    known: { on: { 'membership.check': 'checking' } },
  },
});

export type MembershipMachine = typeof membershipMachine;
