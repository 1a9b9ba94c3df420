import { assign, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import type { NewApiKey } from '../shared/api';
import type { NotifyParams } from '../shared/notify';
import type { MessageKey } from '../shared/messages';
import { credentialsActors, knownCredentials, takeKnownCredentials, type Credentials } from './credentials.actors';
import { errorText, failureCode, reportFailure } from '../shared/failures';

export type CredentialsEvent =
  | { type: 'session.end'; id: string }
  | { type: 'sessions.endOthers' }
  | { type: 'key.create'; key: NewApiKey }
  | { type: 'key.revoke'; id: string }
  | { type: 'key.dismiss' }
  /** The answer to "End this session?" / "Revoke this key?". */
  | { type: 'change.confirm' }
  | { type: 'change.cancel' }
  | { type: 'credentials.retry' };

export interface CredentialsContext extends Credentials {
  auth: AuthActorRef;
  /** The secret of the key just created: shown once, until dismissed. */
  createdKey: string | null;
  /** The session to end or the key to revoke, asked about and then acted on. */
  pendingId: string | null;
  /** Whether the lists have answered once: until then, an empty list is not "no keys yet". */
  loaded: boolean;
}

type ErrorEvent = { event: { error: unknown } };
const failed = (title: MessageKey) =>
  reportFailure(({ event }: ErrorEvent) => ({
    title,
    description: failureCode(event.error) === 'email_unverified' ? 'credentials.emailUnverified' : event.error instanceof Error ? errorText(event.error) : 'credentials.failed',
  }));

/**
 * The profile's "Sessions and devices" and "API keys": one list of each, loaded together; every
 * change (ending a session, creating or revoking a key) is a state that reloads the lists after it.
 * Ending a session and revoking a key ask first (`confirmingEnd`, `confirmingRevoke`). Both lists
 * are there at once when the page's early calls have them in already (`knownCredentials`).
 */
export const credentialsMachine = setup({
  types: {
    context: {} as CredentialsContext,
    events: {} as CredentialsEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'loading' | 'busy',
  },
  actors: credentialsActors,
  actions: {
    notify: (_, _params: NotifyParams) => undefined,
    takeKnown: () => takeKnownCredentials(),
  },
  guards: {
    isKnown: () => knownCredentials() !== null,
  },
}).createMachine({
  id: 'credentials',
  context: ({ input }) => ({ auth: input.auth, sessions: [], apiKeys: [], createdKey: null, pendingId: null, loaded: false }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isKnown', target: 'idle', actions: [assign(() => ({ ...knownCredentials()!, loaded: true })), 'takeKnown'] }, { target: 'loading' }],
    },
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadCredentials',
        src: 'loadCredentials',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'idle', actions: assign(({ event }) => ({ ...event.output, loaded: true })) },
        onError: 'failed',
      },
    },
    failed: { on: { 'credentials.retry': 'loading' } },
    idle: {
      on: {
        'session.end': { target: 'confirmingEnd', actions: assign({ pendingId: ({ event }) => event.id }) },
        'sessions.endOthers': 'endingOthers',
        'key.create': 'creatingKey',
        'key.revoke': { target: 'confirmingRevoke', actions: assign({ pendingId: ({ event }) => event.id }) },
        'key.dismiss': { actions: assign({ createdKey: null }) },
      },
    },
    confirmingEnd: {
      on: { 'change.confirm': 'endingSession', 'change.cancel': { target: 'idle', actions: assign({ pendingId: null }) } },
    },
    confirmingRevoke: {
      on: { 'change.confirm': 'revokingKey', 'change.cancel': { target: 'idle', actions: assign({ pendingId: null }) } },
    },
    endingSession: {
      tags: ['busy'],
      invoke: {
        id: 'endSession',
        src: 'endSession',
        input: ({ context }) => ({ auth: context.auth, id: context.pendingId! }),
        onDone: { target: 'loading', actions: [assign({ pendingId: null }), { type: 'notify', params: { type: 'success', title: 'credentials.sessionEnded' } }] },
        onError: { target: 'idle', actions: [assign({ pendingId: null }), failed('credentials.sessionEndFailed')] },
      },
    },
    endingOthers: {
      tags: ['busy'],
      invoke: {
        id: 'endOtherSessions',
        src: 'endOtherSessions',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'loading', actions: { type: 'notify', params: { type: 'success', title: 'credentials.othersEnded' } } },
        onError: { target: 'idle', actions: failed('credentials.sessionEndFailed') },
      },
    },
    creatingKey: {
      tags: ['busy'],
      invoke: {
        id: 'createApiKey',
        src: 'createApiKey',
        input: ({ context, event }) => ({ auth: context.auth, key: (event as Extract<CredentialsEvent, { type: 'key.create' }>).key }),
        onDone: { target: 'loading', actions: assign({ createdKey: ({ event }) => event.output.key }) },
        onError: { target: 'idle', actions: failed('credentials.keyCreateFailed') },
      },
    },
    revokingKey: {
      tags: ['busy'],
      invoke: {
        id: 'revokeApiKey',
        src: 'revokeApiKey',
        input: ({ context }) => ({ auth: context.auth, id: context.pendingId! }),
        onDone: { target: 'loading', actions: [assign({ pendingId: null }), { type: 'notify', params: { type: 'success', title: 'credentials.keyRevoked' } }] },
        onError: { target: 'idle', actions: [assign({ pendingId: null }), failed('credentials.keyRevokeFailed')] },
      },
    },
  },
});

export type CredentialsMachine = typeof credentialsMachine;
