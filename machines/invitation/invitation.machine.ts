import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import { withAuthRetry, type AuthActorRef } from '../shared/authRetry';
import { ApiRequestError, teamApi, type InvitationPreview, type Team, type TeamRole } from '../shared/api';
import type { NotifyParams } from '../shared/notify';
import { refusalText } from '../shared/failures';
import { sentence, type Message } from '../shared/messages';

export interface InvitationContext {
  auth: AuthActorRef;
  token: string;
  preview: InvitationPreview | null;
  /** Why accepting failed, shown on the page. */
  failure: Message | null;
}

export type InvitationEvent = { type: 'invitation.accept' } | { type: 'invitation.retry' };

type ErrorEvent = { event: { error: unknown } };

const isInvalid = (error: unknown) => error instanceof ApiRequestError && error.code === 'invalid_invitation';

const invitationSetup = setup({
  types: {
    context: {} as InvitationContext,
    events: {} as InvitationEvent,
    input: {} as { auth: AuthActorRef; token: string },
    tags: {} as 'loading' | 'busy',
  },
  actors: {
    preview: fromPromise<InvitationPreview, { token: string }>(({ input, signal }) => teamApi.preview(input.token, { signal })),
    accept: fromPromise<{ team: Team; role: TeamRole }, { auth: AuthActorRef; token: string }>(({ input, signal }) =>
      withAuthRetry(input.auth, () => teamApi.accept(input.token, { signal })),
    ),
  },
  actions: {
    store: assign({ preview: (_, preview: InvitationPreview) => preview }),
    fail: assign({ failure: (_, message: Message) => message }),
    clearFailure: assign({ failure: null }),
    notify: (_, _params: NotifyParams) => undefined,
    navigate: (_, _params: { to: string }) => undefined,
    /** The person has joined a team, for the top bar's Team link. */
    joinedTeam: () => undefined,
  },
  guards: {
    invalid: (_, error: unknown) => isInvalid(error),
  },
});

/**
 * The invitation page: loading → showing | invalid | failed. Who may accept is the view's to say
 * (signed out: sign in or register and come back; signed in as another address: sign out); the
 * chart accepts and, once joined, goes on to the team page. A refusal stays on the page in words.
 */
export const invitationMachine = invitationSetup.createMachine({
  id: 'invitation',
  context: ({ input }) => ({ auth: input.auth, token: input.token, preview: null, failure: null }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'preview',
        src: 'preview',
        input: ({ context }) => ({ token: context.token }),
        onDone: { target: 'showing', actions: { type: 'store', params: ({ event }) => event.output } },
        onError: [{ guard: { type: 'invalid', params: ({ event }: ErrorEvent) => event.error }, target: 'invalid' }, { target: 'failed' }],
      },
    },
    failed: { on: { 'invitation.retry': 'loading' } },
    invalid: {},
    showing: {
      on: { 'invitation.accept': { target: 'accepting', actions: 'clearFailure' } },
    },
    accepting: {
      tags: ['busy'],
      invoke: {
        id: 'accept',
        src: 'accept',
        input: ({ context }) => ({ auth: context.auth, token: context.token }),
        onDone: {
          target: 'joined',
          actions: [
            'joinedTeam',
            { type: 'notify', params: ({ event }) => ({ type: 'success', title: 'invitation.joinedTitle', description: sentence('invitation.joinedText', event.output.team.name) }) },
            { type: 'navigate', params: { to: '/team' } },
          ],
        },
        onError: [
          { guard: { type: 'invalid', params: ({ event }: ErrorEvent) => event.error }, target: 'invalid' },
          { target: 'showing', actions: { type: 'fail', params: ({ event }: ErrorEvent) => refusalText(event.error, 'invitation.errors') } },
        ],
      },
    },
    joined: { type: 'final' },
  },
});

export type InvitationMachine = typeof invitationMachine;
export type InvitationSnapshot = SnapshotFrom<InvitationMachine>;
