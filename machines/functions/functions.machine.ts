import { assign, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import type { NotifyParams } from '../shared/notify';
import { failureCode, reportFailure, serverFailure } from '../shared/failures';
import { functionsActors, knownFunctions, takeKnownFunctions, type FunctionList } from './functions.actors';

export type FunctionsEvent =
  | { type: 'function.delete'; id: string }
  /** The answer to "Delete …?". */
  | { type: 'change.confirm' }
  | { type: 'change.cancel' }
  /** The editor saved a function: the list is read again. */
  | { type: 'functions.reload' }
  | { type: 'functions.retry' };

export interface FunctionsContext extends FunctionList {
  auth: AuthActorRef;
  /** The function asked about, then deleted. */
  pendingId: string | null;
}

type ErrorEvent = { event: { error: unknown } };

/**
 * The list of /functions: loading → `idle` with the caller's and their team's functions, `failed`
 * (with retry), or `upgrade` when the plan does not include custom functions (403 `plan_required`:
 * the page shows what Professional adds). Deleting asks first (`confirmingDelete`) and reloads after.
 */
export const functionsMachine = setup({
  types: {
    context: {} as FunctionsContext,
    events: {} as FunctionsEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'loading' | 'busy',
  },
  actors: functionsActors,
  actions: {
    notify: (_, _params: NotifyParams) => undefined,
    takeKnown: () => takeKnownFunctions(),
  },
  guards: {
    isKnown: () => knownFunctions() !== null,
    planRequired: ({ event }) => failureCode((event as unknown as ErrorEvent['event']).error) === 'plan_required',
  },
}).createMachine({
  id: 'functions',
  context: ({ input }) => ({ auth: input.auth, functions: [], teamRole: null, pendingId: null }),
  // Loaded at once when the page's early calls have the list and the role in already (`knownFunctions`).
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isKnown', target: 'idle', actions: [assign(() => knownFunctions()!), 'takeKnown'] }, { target: 'loading' }],
    },
    loading: {
      tags: ['loading'],
      // A function saved while the list loads: the load starts again, so its answer holds it.
      on: { 'functions.reload': { target: 'loading', reenter: true } },
      invoke: {
        id: 'loadFunctions',
        src: 'loadFunctions',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'idle', actions: assign(({ event }) => event.output) },
        onError: [{ guard: 'planRequired', target: 'upgrade' }, { target: 'failed' }],
      },
    },
    failed: { on: { 'functions.retry': 'loading', 'functions.reload': 'loading' } },
    upgrade: {},
    idle: {
      on: {
        'function.delete': { target: 'confirmingDelete', actions: assign({ pendingId: ({ event }) => event.id }) },
        'functions.reload': 'loading',
      },
    },
    confirmingDelete: {
      on: {
        'change.confirm': 'deleting',
        'change.cancel': { target: 'idle', actions: assign({ pendingId: null }) },
        // A function saved in the editor meanwhile: the list is read again, and the question dropped.
        'functions.reload': { target: 'loading', actions: assign({ pendingId: null }) },
      },
    },
    deleting: {
      tags: ['busy'],
      invoke: {
        id: 'deleteFunction',
        src: 'deleteFunction',
        input: ({ context }) => ({ auth: context.auth, id: context.pendingId! }),
        onDone: { target: 'loading', actions: [assign({ pendingId: null }), { type: 'notify', params: { type: 'success', title: 'functions.deleted' } }] },
        onError: {
          target: 'loading',
          actions: [assign({ pendingId: null }), reportFailure(({ event }: ErrorEvent) => ({ title: 'functions.deleteFailed', description: serverFailure(event.error) }))],
        },
      },
    },
  },
});

export type FunctionsMachine = typeof functionsMachine;
