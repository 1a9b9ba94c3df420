import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { accountExportMachine, type AccountExportEvent } from '../../machines/accountExport/accountExport.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * "Download my data" (the account export of /usage and /profile) as a test model, for the jsdom
 * replay (tests/model/accountExport.model.test.tsx): how the export call may end (the file saved,
 * the hour's wait on a 429, no connection, the server's own refusal), the generated paths and what
 * the section shows in each state.
 */

const t = messages.usage;

/** The wait the server names in Retry-After when an export came less than an hour ago. */
export const RETRY_AFTER = 3540;
/** The server's own sentence for a failure no rule of the chart words. */
export const SERVER_SENTENCE = 'The export could not be put together. Please try again later.';

/** How the export call may end. */
export const exportOutcomes = {
  saved: { type: 'xstate.done.actor.exportAccount', output: undefined },
  throttled: {
    type: 'xstate.error.actor.exportAccount',
    error: new ApiRequestError('API Error: Too Many Requests', 429, 'rate_limited', 'Too many account exports.', RETRY_AFTER),
  },
  offline: { type: 'xstate.error.actor.exportAccount', error: new ApiRequestError(messages.api.network, 0) },
  serverError: { type: 'xstate.error.actor.exportAccount', error: new ApiRequestError('API Error: Internal Server Error', 500, 'internal_error', SERVER_SENTENCE) },
} satisfies Record<string, ActorOutcome>;

/** The sentence each ending shows beside the button: the catalogue's, or the server's own words for its refusal. */
export function noticeOf(outcome: ActorOutcome): string {
  const status = outcome.error instanceof ApiRequestError ? outcome.error.status : null;
  if (status === null) return t.exportDone;
  return status === 429 ? t.exportThrottled(RETRY_AFTER) : status === 0 ? messages.auth.networkFailure : SERVER_SENTENCE;
}
const NOTICES = Object.values(exportOutcomes).map(noticeOf);

const userEvents: AccountExportEvent[] = [{ type: 'export.start' }];

export type AccountExportSnapshot = SnapshotFrom<typeof accountExportMachine>;

const model = createTestModel(toTestModelMachine(accountExportMachine.provide({ actions: { logFailure: () => undefined } })), {
  input: { auth: null },
  events: [...Object.values(exportOutcomes), ...userEvents],
  // A state is what the section shows (the chart's state and the last export's notice) and the
  // notice before it, so each way a second export ends is walked after each way the first one
  // ended: a refusal's sentence must give way to the next one's.
  serializeState: (state: AccountExportSnapshot, _event: unknown, previous?: AccountExportSnapshot) => JSON.stringify([state.value, state.context.notice, previous?.context.notice ?? null]),
} as never);

export const accountExportPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const accountExportCoverage = chartCoverage(accountExportMachine, accountExportPaths.map(({ path }) => path));

/**
 * The paths whose first export is saved: every state, and each way a second export ends. The
 * second page with the same section (/profile) replays only these.
 */
export const firstSavedPaths = accountExportPaths.filter(({ path }) => path.steps.find((step) => /^xstate\.(done|error)\./.test(step.event.type))?.event.type === exportOutcomes.saved.type);
export const firstSavedCoverage = chartCoverage(accountExportMachine, firstSavedPaths.map(({ path }) => path));

const section = { role: 'region', name: t.exportHeading } as const;

/** The section at rest: the button to start, and the last export's notice beside it, if any (and no other). */
function atRest({ context: { notice } }: AccountExportSnapshot): Sight[] {
  const shown = notice === null ? null : word(notice);
  return [
    { in: section, text: t.exportText },
    { in: section, role: 'button', name: t.exportAction, disabled: false },
    { in: section, role: 'button', name: t.exportBusy, absent: true },
    ...(shown === null ? [] : [{ in: section, text: shown } satisfies Sight]),
    ...NOTICES.filter((text) => text !== shown).map((text): Sight => ({ text, absent: true })),
  ];
}

/** What the section shows in each state of the chart. */
export const accountExportViews = {
  idle: atRest,
  // While the file is made the button says so and cannot be pressed again, and the last notice is gone.
  exporting: (): Sight[] => [
    { in: section, role: 'button', name: t.exportBusy, disabled: true },
    { in: section, role: 'button', name: t.exportAction, absent: true },
    ...NOTICES.map((text): Sight => ({ text, absent: true })),
  ],
  done: atRest,
  failed: atRest,
} satisfies Record<string, (state: AccountExportSnapshot) => Sight[]>;
