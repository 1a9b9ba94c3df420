import { emit, setup } from 'xstate';
import type { AuthActorRef } from '../../src/app/auth';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../src/lib/api';
import type { NotifyParams } from '../auth/auth.machine';
import { changePasswordActors } from './changePassword.actors';
import type { ChangePasswordValues } from './changePassword.schema';

export type ChangePasswordEvent = { type: 'password.submit' } & ChangePasswordValues;

const t = messages.profile;

/**
 * Product-spec §8, "Password change failure". Where the server says why and the spec's sentence
 * would mislead (no connection, too many attempts, a new password it refuses), that reason shows.
 */
export function passwordChangeFailure(error: unknown): string {
  if (!(error instanceof ApiRequestError)) return t.updateFailed;
  if (error.isNetworkError) return messages.auth.networkFailure;
  if (error.status === 429) return messages.auth.tooManyAttempts(error.retryAfter ?? 60);
  if (error.status === 400 && error.code !== 'invalid_current_password' && error.serverMessage) return error.serverMessage;
  return t.updateFailed;
}

type SubmitEvent = { event: ChangePasswordEvent };

/** The change-password form: idle → submitting → idle, with a toast for every outcome. */
export const changePasswordMachine = setup({
  types: {
    context: {} as { auth: AuthActorRef },
    events: {} as ChangePasswordEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy',
    /** Tells the form to clear itself. */
    emitted: {} as { type: 'password.changed' },
  },
  actors: changePasswordActors,
  actions: {
    notify: (_, _params: NotifyParams) => undefined,
  },
  guards: {
    passwordsMatch: (_, { new_password, confirm_password }: ChangePasswordValues) => new_password === confirm_password,
  },
}).createMachine({
  id: 'changePassword',
  context: ({ input }) => ({ auth: input.auth }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        'password.submit': [
          { guard: { type: 'passwordsMatch', params: ({ event }: SubmitEvent) => event }, target: 'submitting' },
          { actions: { type: 'notify', params: { type: 'error', title: t.error, description: t.passwordsMismatch } } },
        ],
      },
    },
    submitting: {
      tags: ['busy'],
      invoke: {
        id: 'changePassword',
        src: 'changePassword',
        input: ({ context, event }) => {
          const { current_password, new_password } = event as ChangePasswordEvent;
          return { auth: context.auth, current_password, new_password };
        },
        onDone: {
          target: 'idle',
          actions: [emit({ type: 'password.changed' }), { type: 'notify', params: { type: 'success', title: t.updated, description: t.updatedText } }],
        },
        onError: {
          target: 'idle',
          actions: {
            type: 'notify',
            params: ({ event }: { event: { error: unknown } }) => ({ type: 'error', title: t.error, description: passwordChangeFailure(event.error) }),
          },
        },
      },
    },
  },
});

export type ChangePasswordMachine = typeof changePasswordMachine;
