import { assign, fromPromise, setup } from 'xstate';
import { ApiRequestError } from '../../src/lib/api';

export interface SubmissionContext {
  /** Why the last attempt failed, for the form to show; null before and after success. */
  error: { status: number; code: string | null; message: string; retryAfter: number | null } | null;
}

export type SubmissionEvent = { type: 'form.submit'; values: Record<string, string> } | { type: 'form.reset' };

/**
 * One form sent to the server: idle → submitting → succeeded, or back to idle with the error.
 * The `submit` actor is provided by each form (e.g. request a reset link, set a new password).
 */
export const submissionMachine = setup({
  types: { context: {} as SubmissionContext, events: {} as SubmissionEvent },
  actors: {
    submit: fromPromise<unknown, Record<string, string>>(async () => {
      throw new Error('submit is provided by the form');
    }),
  },
}).createMachine({
  id: 'submission',
  context: { error: null },
  initial: 'idle',
  states: {
    idle: {
      on: { 'form.submit': { target: 'submitting', actions: assign({ error: null }) } },
    },
    submitting: {
      tags: ['busy'],
      invoke: {
        id: 'submit',
        src: 'submit',
        input: ({ event }) => (event as Extract<SubmissionEvent, { type: 'form.submit' }>).values,
        onDone: 'succeeded',
        onError: {
          target: 'idle',
          actions: assign({
            error: ({ event }) =>
              event.error instanceof ApiRequestError
                ? {
                    status: event.error.status,
                    code: event.error.code,
                    message: event.error.serverMessage ?? event.error.message,
                    retryAfter: event.error.retryAfter,
                  }
                : { status: 0, code: null, message: String(event.error), retryAfter: null },
          }),
        },
      },
    },
    succeeded: {
      tags: ['done'],
      on: { 'form.reset': 'idle' },
    },
  },
});
