import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { failureCode, serverFailure } from '../shared/failures';
import type { Message } from '../shared/messages';
import { resendVerificationActors } from './resendVerification.actors';

export interface ResendVerificationContext {
  auth: AuthActorRef;
  /** What the last request ended with, beside the button (the view words it). */
  notice: Message | null;
}

export type ResendVerificationEvent = { type: 'resend.start' };

type ErrorEvent = { event: { error: unknown } };

const start = { 'resend.start': 'sending' } as const;

/**
 * The banner's "Resend link" (signed-in pages while the address is unverified): `idle` → `sending`
 * → `sent` | `failed` (the wait on a 429, no connection, the server's words), and again from
 * either. An account verified meanwhile (409 `email_already_verified`) ends it: the app's user
 * learns it (`emailVerified`, which the banner provides) and the banner goes.
 */
export const resendVerificationMachine = setup({
  types: {
    context: {} as ResendVerificationContext,
    events: {} as ResendVerificationEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy',
  },
  actors: resendVerificationActors,
  actions: {
    sent: assign({ notice: 'verifyEmail.sent' }),
    fail: assign({ notice: (_, error: unknown) => serverFailure(error) }),
    emailVerified: () => undefined,
  },
  guards: {
    alreadyVerified: (_, error: unknown) => failureCode(error) === 'email_already_verified',
  },
}).createMachine({
  id: 'resendVerification',
  context: ({ input }) => ({ auth: input.auth, notice: null }),
  initial: 'idle',
  states: {
    idle: { on: start },
    sending: {
      tags: ['busy'],
      invoke: {
        id: 'resendVerification',
        src: 'resendVerification',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'sent', actions: 'sent' },
        onError: [
          { guard: { type: 'alreadyVerified', params: ({ event }: ErrorEvent) => event.error }, target: 'verified', actions: 'emailVerified' },
          { target: 'failed', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
        ],
      },
    },
    sent: { on: start },
    failed: { on: start },
    verified: { type: 'final' },
  },
});

export type ResendVerificationMachine = typeof resendVerificationMachine;
export type ResendVerificationSnapshot = SnapshotFrom<ResendVerificationMachine>;
