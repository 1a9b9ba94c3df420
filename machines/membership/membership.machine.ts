import { assign, fromPromise, setup } from 'xstate';
import { withAuthRetry, type AuthActorRef } from '../shared/authRetry';
import { authApi } from '../shared/api';
import { tokenStorage } from '../shared/tokenStorage';

export interface MembershipContext {
  auth: AuthActorRef;
  /** Whether the signed-in person is in a team, as last learned. */
  inTeam: boolean;
}

export interface MembershipInput {
  auth: AuthActorRef;
  /**
   * Whether the person is in a team, when the auth chart holds it as the chart starts (a restored
   * session's `GET /users/me` answered with the page): the bar is drawn with its team link from the
   * first render, not given it a render later, which moved the links after it.
   */
  inTeam?: boolean;
}

export type MembershipEvent =
  /** Ask the server (`GET /users/me`'s `team_role`): on signing in, and after something outside the app may have changed it (a paid Team checkout). */
  | { type: 'membership.check' }
  /** A page shows the Team plan: its payer may own a team now (a paid Team checkout). Asks unless the person is known to be in one. */
  | { type: 'membership.teamPlanSeen' }
  /** A page that has just learned it tells it (the team page's load, leaving, accepting an invitation): no call. */
  | { type: 'membership.known'; inTeam: boolean }
  /** Signed out: nobody's membership is known. */
  | { type: 'membership.forget' };

/**
 * Whether the signed-in person is in a team, which puts the team page in the top bar (decisions.md:
 * linked for team members, whatever their plan). Asked of the server once per sign-in and when the
 * Team plan shows for someone not known to be in a team (a paid Team checkout makes its payer an owner); the pages where membership changes (the team page, the invitation) tell it what they
 * learned, so joining or leaving shows at once without the bar asking on every page. A failed
 * check keeps what was known.
 */
export const membershipMachine = setup({
  types: {
    context: {} as MembershipContext,
    events: {} as MembershipEvent,
    input: {} as MembershipInput,
  },
  actors: {
    check: fromPromise<boolean, { auth: AuthActorRef }>(async ({ input, signal }) => {
      // `GET /users/me` rather than `GET /teams/me`: someone in no team gets no 404 (which the browser logs).
      const me = await withAuthRetry(input.auth, () => authApi.me({ signal }));
      tokenStorage.writeTeamRoleOf(me);
      return me.team_role != null;
    }),
  },
  actions: {
    store: assign({ inTeam: (_, inTeam: boolean) => inTeam }),
  },
  guards: {
    notKnownInTeam: ({ context }) => !context.inTeam,
  },
}).createMachine({
  id: 'membership',
  context: ({ input }) => ({ auth: input.auth, inTeam: input.inTeam ?? false }),
  initial: 'unknown',
  on: {
    'membership.check': '.checking',
    'membership.teamPlanSeen': { guard: 'notKnownInTeam', target: '.checking' },
    'membership.known': { target: '.known', actions: { type: 'store', params: ({ event }) => event.inTeam } },
    'membership.forget': { target: '.unknown', actions: { type: 'store', params: false } },
  },
  states: {
    unknown: {},
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
    known: {},
  },
});

export type MembershipMachine = typeof membershipMachine;
