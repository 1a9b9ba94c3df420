import { emit, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { ApiRequestError } from '../shared/api';
import type { NotifyParams } from '../shared/notify';
import type { Message } from '../shared/messages';
import { commonFailure, reportFailure } from '../shared/failures';
import { changePasswordActors } from './changePassword.actors';
import type { ChangePasswordValues } from './changePassword.schema';

export type ChangePasswordEvent = { type: 'password.submit' } & ChangePasswordValues;

/**
 * Product-spec §8, "Password change failure". Where the server says why and the spec's sentence
 * would mislead (no connection, too many attempts, a new password it refuses), that reason shows.
 */
export function passwordChangeFailure(error: unknown): Message {
  if (!(error instanceof ApiRequestError)) return 'profile.updateFailed';
  const common = commonFailure(error);
  if (common) return common;
  if (error.status === 400 && error.code !== 'invalid_current_password' && error.serverMessage) return { text: error.serverMessage };
  return 'profile.updateFailed';
}

/** The server's answer when the new password is the current one: the New Password field's fault. */
const isUnchangedPassword = (error: unknown) => error instanceof ApiRequestError && error.code === 'password_unchanged';

type SubmitEvent = { event: ChangePasswordEvent };
type ErrorEvent = { event: { error: unknown } };

/** The change-password form: idle → submitting → idle, with a toast for every outcome. */
export const changePasswordMachine = setup({
  types: {
    context: {} as { auth: AuthActorRef },
    events: {} as ChangePasswordEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy',
    /** Tells the form to clear itself, or which field the server refused and why. */
    emitted: {} as { type: 'password.changed' } | { type: 'password.refused'; field: 'new_password'; message: Message },
  },
  actors: changePasswordActors,
  actions: {
    notify: (_, _params: NotifyParams) => undefined,
  },
  guards: {
    passwordsMatch: (_, { new_password, confirm_password }: ChangePasswordValues) => new_password === confirm_password,
    passwordUnchanged: (_, { error }: { error: unknown }) => isUnchangedPassword(error),
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
          { actions: reportFailure({ title: 'profile.error', description: 'profile.passwordsMismatch' }) },
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
          actions: [emit({ type: 'password.changed' }), { type: 'notify', params: { type: 'success', title: 'profile.updated', description: 'profile.updatedText' } }],
        },
        onError: [
          {
            // The spec's toast blames the current password; here it is the new one, so say so under it.
            guard: { type: 'passwordUnchanged', params: ({ event }: ErrorEvent) => event },
            target: 'idle',
            actions: emit({ type: 'password.refused', field: 'new_password', message: 'profile.passwordUnchanged' }),
          },
          {
            target: 'idle',
            actions: reportFailure(({ event }: ErrorEvent) => ({ title: 'profile.error', description: passwordChangeFailure(event.error) })),
          },
        ],
      },
    },
  },
});

export type ChangePasswordMachine = typeof changePasswordMachine;
