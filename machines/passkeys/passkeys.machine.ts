import { assign, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import type { Passkey, PasskeyCreationOptions, RegistrationCredential } from '../shared/api';
import type { MessageKey } from '../shared/messages';
import type { NotifyParams } from '../shared/notify';
import { reportFailure } from '../shared/failures';
import { passkeyFailureText, type PasskeyWords } from '../shared/passkeyFailures';
import { knownPasskeys, passkeysActors, takeKnownPasskeys } from './passkeys.actors';

export type PasskeysEvent =
  | { type: 'passkeys.retry' }
  | { type: 'passkey.add' }
  /** The name of the passkey just made on the device; empty lets the server name it. */
  | { type: 'name.save'; name: string }
  | { type: 'name.cancel' }
  | { type: 'passkey.rename'; id: string }
  | { type: 'rename.save'; name: string }
  | { type: 'rename.cancel' }
  | { type: 'passkey.delete'; id: string }
  | { type: 'delete.confirm' }
  | { type: 'delete.cancel' };

export interface PasskeysContext {
  auth: AuthActorRef;
  passkeys: Passkey[];
  /** The options the server gave for the passkey being added. */
  options: PasskeyCreationOptions | null;
  /** The passkey made on the device, kept until it is saved or dropped: a failed save loses nothing. */
  credential: RegistrationCredential | null;
  /** The name last given, kept across a failed save or rename. */
  name: string;
  /** The passkey being renamed or asked about before deleting. */
  pendingId: string | null;
}

const WORDS: PasskeyWords = { cancelled: 'passkeys.cancelled', exists: 'passkeys.exists', unsupported: 'passkeys.notSupported', refused: 'passkeys.refused' };

type ErrorEvent = { event: { error: unknown } };
const failed = (title: MessageKey) => reportFailure(({ event }: ErrorEvent) => ({ title, description: passkeyFailureText(event.error, WORDS) }));
const done = (title: MessageKey) => ({ type: 'notify' as const, params: { type: 'success' as const, title } });

/**
 * The profile's "Passkeys": the list (there at once when the page's early call has it in already:
 * `knownPasskeys`), adding one (the server's options, the device's prompt, then
 * its name and the save), renaming and deleting (asked first). Every change reloads the list; a
 * prompt the person closes, or a save that fails, goes back without losing what was done.
 */
export const passkeysMachine = setup({
  types: {
    context: {} as PasskeysContext,
    events: {} as PasskeysEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'loading' | 'busy',
  },
  actors: passkeysActors,
  actions: {
    notify: (_, _params: NotifyParams) => undefined,
    /** The account has a second factor now; the app tells the auth chart. */
    secondFactorAdded: () => undefined,
    takeKnown: () => takeKnownPasskeys(),
  },
  guards: {
    isKnown: () => knownPasskeys() !== undefined,
  },
}).createMachine({
  id: 'passkeys',
  context: ({ input }) => ({ auth: input.auth, passkeys: [], options: null, credential: null, name: '', pendingId: null }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isKnown', target: 'idle', actions: [assign({ passkeys: () => knownPasskeys()! }), 'takeKnown'] }, { target: 'loading' }],
    },
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadPasskeys',
        src: 'loadPasskeys',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'idle', actions: assign({ passkeys: ({ event }) => event.output }) },
        onError: 'failed',
      },
    },
    failed: { on: { 'passkeys.retry': 'loading' } },
    idle: {
      on: {
        'passkey.add': 'adding',
        'passkey.rename': { target: 'renaming', actions: assign({ pendingId: ({ event }) => event.id, name: ({ context, event }) => context.passkeys.find((p) => p.id === event.id)?.name ?? '' }) },
        'passkey.delete': { target: 'confirmingDelete', actions: assign({ pendingId: ({ event }) => event.id }) },
      },
    },
    adding: {
      initial: 'preparing',
      exit: assign({ options: null, credential: null, name: '' }),
      states: {
        preparing: {
          tags: ['busy'],
          invoke: {
            id: 'registrationOptions',
            src: 'registrationOptions',
            input: ({ context }) => ({ auth: context.auth }),
            onDone: { target: 'prompting', actions: assign({ options: ({ event }) => event.output }) },
            onError: { target: '#passkeys.idle', actions: failed('passkeys.addFailed') },
          },
        },
        /** The browser's own prompt is up. */
        prompting: {
          tags: ['busy'],
          invoke: {
            id: 'createPasskey',
            src: 'createPasskey',
            input: ({ context }) => ({ options: context.options! }),
            onDone: { target: 'naming', actions: assign({ credential: ({ event }) => event.output }) },
            onError: { target: '#passkeys.idle', actions: failed('passkeys.addFailed') },
          },
        },
        naming: {
          on: {
            'name.save': { target: 'saving', actions: assign({ name: ({ event }) => event.name }) },
            'name.cancel': '#passkeys.idle',
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'savePasskey',
            src: 'savePasskey',
            input: ({ context }) => ({ auth: context.auth, credential: context.credential!, name: context.name }),
            onDone: { target: '#passkeys.loading', actions: [done('passkeys.added'), 'secondFactorAdded'] },
            onError: { target: 'naming', actions: failed('passkeys.addFailed') },
          },
        },
      },
    },
    renaming: {
      exit: assign({ pendingId: null }),
      initial: 'editing',
      states: {
        editing: {
          on: {
            'rename.save': { target: 'saving', actions: assign({ name: ({ event }) => event.name }) },
            'rename.cancel': '#passkeys.idle',
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'renamePasskey',
            src: 'renamePasskey',
            input: ({ context }) => ({ auth: context.auth, id: context.pendingId!, name: context.name }),
            onDone: { target: '#passkeys.loading', actions: done('passkeys.renamed') },
            onError: { target: 'editing', actions: failed('passkeys.renameFailed') },
          },
        },
      },
    },
    confirmingDelete: {
      on: { 'delete.confirm': 'deleting', 'delete.cancel': { target: 'idle', actions: assign({ pendingId: null }) } },
    },
    deleting: {
      tags: ['busy'],
      invoke: {
        id: 'deletePasskey',
        src: 'deletePasskey',
        input: ({ context }) => ({ auth: context.auth, id: context.pendingId! }),
        onDone: { target: 'loading', actions: [assign({ pendingId: null }), done('passkeys.deleted')] },
        onError: { target: 'idle', actions: [assign({ pendingId: null }), failed('passkeys.deleteFailed')] },
      },
    },
  },
});

export type PasskeysMachine = typeof passkeysMachine;
