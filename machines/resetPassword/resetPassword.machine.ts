import { assign, fromPromise, setup } from 'xstate';
import { authApi } from '../shared/api';
import { failureCode, serverFailure, unreachable } from '../shared/failures';
import type { Message } from '../shared/messages';

export interface ResetPasswordContext {
  /** Why the last attempt failed, worded for the form; null before and after a success. */
  failure: Message | null;
  /** The link's token was refused (used, expired or unknown): the form offers a new link. */
  invalidToken: boolean;
}

export interface ResetPasswordInput {
  token: string;
  new_password: string;
}

export type ResetPasswordEvent = { type: 'form.submit' } & ResetPasswordInput;

/**
 * The reset-password form behind the emailed link (product spec §4): editing → saving → saved,
 * or back to editing with the failure. A 429 shows the server's words, as before.
 */
export const resetPasswordMachine = setup({
  types: { context: {} as ResetPasswordContext, events: {} as ResetPasswordEvent },
  actors: {
    resetPassword: fromPromise<void, ResetPasswordInput>(({ input, signal }) => authApi.resetPassword(input, { signal })),
  },
  actions: {
    clearFailure: assign({ failure: null, invalidToken: false }),
    showFailure: assign((_, error: unknown) => ({
      failure: serverFailure(error, unreachable),
      invalidToken: failureCode(error) === 'invalid_reset_token',
    })),
  },
}).createMachine({
  id: 'resetPassword',
  context: { failure: null, invalidToken: false },
  initial: 'editing',
  states: {
    editing: {
      on: { 'form.submit': { target: 'saving', actions: 'clearFailure' } },
    },
    saving: {
      tags: ['busy'],
      invoke: {
        id: 'resetPassword',
        src: 'resetPassword',
        input: ({ event }) => {
          const { token, new_password } = event;
          return { token, new_password };
        },
        onDone: 'saved',
        onError: { target: 'editing', actions: { type: 'showFailure', params: ({ event }: { event: { error: unknown } }) => event.error } },
      },
    },
    saved: { tags: ['done'] },
  },
});

export type ResetPasswordMachine = typeof resetPasswordMachine;
