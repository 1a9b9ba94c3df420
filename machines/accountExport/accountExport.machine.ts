import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { serverFailure, throttled, unreachable, type FailedCall } from '../shared/failures';
import type { Message } from '../shared/messages';
import { accountExportActors } from './accountExport.actors';

export interface AccountExportContext {
  auth: AuthActorRef;
  /** What the last export ended with, as the person is told it (beside the button, not only in a toast; the view words it). */
  notice: Message | null;
}

export type AccountExportEvent = { type: 'export.start' };

type ErrorEvent = { event: { error: unknown } };

/** Once an hour (server/routes/accountExport.ts): a second export within it names the wait. */
const exportFailure = (error: FailedCall) => unreachable(error) ?? throttled(error, 'usage.exportThrottled');

const accountExportSetup = setup({
  types: {
    context: {} as AccountExportContext,
    events: {} as AccountExportEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy',
  },
  actors: accountExportActors,
  actions: {
    done: assign({ notice: 'usage.exportDone' }),
    fail: assign({ notice: (_, error: unknown) => serverFailure(error, exportFailure) }),
    logFailure: (_, error: unknown) => console.error('Could not export the account:', error),
  },
});

const start = { 'export.start': 'exporting' } as const;

/**
 * "Download my data" (decisions.md, "Professional's promises": every plan, at most once an hour),
 * on /usage and the profile: `idle` → `exporting` → `done` (the file is saved) | `failed` (the
 * reason beside the button: the hour's wait on a 429, no connection, the server's words).
 */
export const accountExportMachine = accountExportSetup.createMachine({
  id: 'accountExport',
  context: ({ input }) => ({ auth: input.auth, notice: null }),
  initial: 'idle',
  states: {
    idle: { on: start },
    exporting: {
      tags: ['busy'],
      invoke: {
        id: 'exportAccount',
        src: 'exportAccount',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'done', actions: 'done' },
        onError: {
          target: 'failed',
          actions: [
            { type: 'logFailure', params: ({ event }: ErrorEvent) => event.error },
            { type: 'fail', params: ({ event }: ErrorEvent) => event.error },
          ],
        },
      },
    },
    done: { on: start },
    failed: { on: start },
  },
});

export type AccountExportMachine = typeof accountExportMachine;
export type AccountExportSnapshot = SnapshotFrom<AccountExportMachine>;
