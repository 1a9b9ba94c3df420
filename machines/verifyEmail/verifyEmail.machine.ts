import { assign, setup, type SnapshotFrom } from 'xstate';
import { serverFailure, unreachable } from '../shared/failures';
import type { Message } from '../shared/messages';
import { verifyEmailActors } from './verifyEmail.actors';

export interface VerifyEmailContext {
  token: string;
  /** Why the link did not verify (unknown, used or expired: the server's words), for the page. */
  failure: Message | null;
}

type ErrorEvent = { event: { error: unknown } };

/**
 * The page behind the mailed link (`/verify-email?token=…`, decisions.md "Verified email"): it
 * verifies as it opens, signed in or not. `verifying` → `verified` (and the signed-in app's user
 * learns it: `emailVerified`, which the page provides) | `failed` with the reason. A link without
 * a token fails at once.
 */
export const verifyEmailMachine = setup({
  types: { context: {} as VerifyEmailContext, input: {} as { token: string }, tags: {} as 'busy' },
  actors: verifyEmailActors,
  actions: {
    fail: assign({ failure: (_, failure: Message) => failure }),
    /** The address is verified: the page tells the auth chart, when someone is signed in. */
    emailVerified: () => undefined,
  },
  guards: {
    hasToken: ({ context }) => context.token !== '',
  },
}).createMachine({
  id: 'verifyEmail',
  context: ({ input }) => ({ token: input.token, failure: null }),
  initial: 'checking',
  states: {
    checking: {
      always: [{ guard: 'hasToken', target: 'verifying' }, { target: 'failed', actions: { type: 'fail', params: 'verifyEmail.missingToken' } }],
    },
    verifying: {
      tags: ['busy'],
      invoke: {
        id: 'verifyEmail',
        src: 'verifyEmail',
        input: ({ context }) => ({ token: context.token }),
        onDone: { target: 'verified', actions: 'emailVerified' },
        onError: { target: 'failed', actions: { type: 'fail', params: ({ event }: ErrorEvent) => serverFailure(event.error, unreachable) } },
      },
    },
    verified: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type VerifyEmailMachine = typeof verifyEmailMachine;
export type VerifyEmailSnapshot = SnapshotFrom<VerifyEmailMachine>;
