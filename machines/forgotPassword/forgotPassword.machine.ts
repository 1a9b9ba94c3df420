import { assign, fromPromise, setup } from 'xstate';
import { authApi } from '../shared/api';
import { serverFailure } from '../shared/failures';
import type { Message } from '../shared/messages';

export interface ForgotPasswordContext {
  /** Why the last request failed, worded for the form; null before and after a success. */
  failure: Message | null;
}

export type ForgotPasswordEvent = { type: 'form.submit'; email: string };

/**
 * The forgot-password form (product spec §4): editing → sending → sent, or back to editing with
 * the failure. The server answers alike whether or not the account exists.
 */
export const forgotPasswordMachine = setup({
  types: { context: {} as ForgotPasswordContext, events: {} as ForgotPasswordEvent },
  actors: {
    requestReset: fromPromise<unknown, { email: string }>(({ input, signal }) => authApi.requestPasswordReset(input.email, { signal })),
  },
  actions: {
    clearFailure: assign({ failure: null }),
    showFailure: assign({ failure: (_, failure: Message) => failure }),
  },
}).createMachine({
  id: 'forgotPassword',
  context: { failure: null },
  initial: 'editing',
  states: {
    editing: {
      on: { 'form.submit': { target: 'sending', actions: 'clearFailure' } },
    },
    sending: {
      tags: ['busy'],
      invoke: {
        id: 'requestReset',
        src: 'requestReset',
        input: ({ event }) => ({ email: (event as ForgotPasswordEvent).email }),
        onDone: 'sent',
        onError: { target: 'editing', actions: { type: 'showFailure', params: ({ event }) => serverFailure(event.error) } },
      },
    },
    sent: { tags: ['done'] },
  },
});

export type ForgotPasswordMachine = typeof forgotPasswordMachine;
