import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { usageMachine, type UsageEvent } from '../../machines/usage/usage.machine';
import { presetRange, utcToday, type DayRange } from '../../machines/usage/usage.range';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type UsageAnalytics } from '../../machines/shared/api';
import { planWith } from '../../contract/plans';
import { afterEvent, chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';

/**
 * The /usage chart as a test model for the jsdom replay (tests/model/usage.model.test.tsx): the
 * answers the analytics call may get, the ranges a person picks, the generated paths and what the
 * page shows in each state. The Chromium side is tests/e2e/usage.test.ts, with real accounts of
 * each plan.
 */

const t = messages.usage;

/** The day the page counts from: the real one, as the page reads it. */
export const TODAY = utcToday();
const DAY_MS = 86_400_000;
const dayBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

/**
 * A custom range the page refuses (its first day after its last). A valid one loads like a preset,
 * which the paths walk already; tests/ui/usage.test.tsx and tests/e2e/usage.test.ts choose one.
 */
export const BACKWARDS: DayRange = { from: TODAY, to: dayBefore(TODAY, 1) };

/** A long credential name: it must wrap, not widen the page. */
export const LONG_KEY_NAME = 'Quarterly-reconciliation-robot-for-the-finance-team-spreadsheets-2026';

const daysOf = (range: DayRange, queries: (i: number) => number) => {
  const count = Math.round((Date.parse(range.to) - Date.parse(range.from)) / DAY_MS) + 1;
  return Array.from({ length: count }, (_, i) => ({
    date: dayBefore(range.to, count - 1 - i),
    queries: queries(i),
    tokens: queries(i) * 40,
    avg_processing_ms: queries(i) ? 812.5 : 0,
  }));
};

/** Figures for any range the path has asked for (the runner answers with the range the page asked). */
export function analyticsFor(range: DayRange): UsageAnalytics {
  const days = daysOf(range, (i) => (i % 4 === 1 ? 3 : i % 7 === 2 ? 12 : 0));
  const queries = days.reduce((sum, day) => sum + day.queries, 0);
  return {
    ...range,
    days,
    by_task: [
      { task: 'formula', queries: queries - 2, tokens: (queries - 2) * 40 },
      { task: 'analyze', queries: 2, tokens: 80 },
    ],
    by_credential: [
      { kind: 'web', id: 's-1', name: 'Web app', queries: queries - 1, tokens: (queries - 1) * 40 },
      { kind: 'api_key', id: 'k-1', name: LONG_KEY_NAME, queries: 1, tokens: 40 },
    ],
    p50_processing_ms: 790,
    p95_processing_ms: 1830,
  };
}
export const emptyFor = (range: DayRange): UsageAnalytics => ({ ...range, days: daysOf(range, () => 0), by_task: [], by_credential: [], p50_processing_ms: 0, p95_processing_ms: 0 });

/**
 * The model's answers stand for "some figures" and "none" (for the first range); a runner answers
 * with the same kind of figures for the range the page asked for.
 */
export const answerFor = (output: UsageAnalytics, range: DayRange) => (output.days.some((day) => day.queries > 0) ? analyticsFor(range) : emptyFor(range));

const planRequired = new ApiRequestError('API Error: Forbidden', 403, 'plan_required', 'Usage analytics come with the Professional plan.');
const offline = new ApiRequestError(messages.api.network, 0);

const outcomes: ActorOutcome[] = [
  ...['loadAnalytics', 'reloadAnalytics'].flatMap((id) => [
    { type: `xstate.done.actor.${id}`, output: analyticsFor(presetRange('last30', TODAY)) },
    { type: `xstate.done.actor.${id}`, output: emptyFor(presetRange('last30', TODAY)) },
    { type: `xstate.error.actor.${id}`, error: offline },
  ]),
  // A downgrade between two loads answers the reload the same way, and the page offers Professional.
  { type: 'xstate.error.actor.loadAnalytics', error: planRequired },
  { type: 'xstate.done.actor.downloadCsv', output: undefined },
  { type: 'xstate.error.actor.downloadCsv', error: offline },
];

const userEvents: UsageEvent[] = [
  { type: 'range.preset', preset: 'lastMonth' },
  { type: 'range.custom', ...BACKWARDS },
  { type: 'analytics.retry' },
  { type: 'csv.download' },
];

export type UsageSnapshot = SnapshotFrom<typeof usageMachine>;
const noop = () => undefined;

const model = createTestModel(toTestModelMachine(usageMachine.provide({ actions: { logFailure: noop, notify: noop } })), {
  input: { auth: null, today: TODAY },
  events: [...outcomes, ...userEvents, { type: afterEvent('firstDraw') }],
  // A state is what the page shows (the chart's state, the range, whether figures are kept, whether
  // the custom range was refused) and the kind of event into it, so every transition is walked once.
  serializeState: (state: UsageSnapshot, event: UsageEvent | ActorOutcome | undefined) =>
    JSON.stringify([
      state.value,
      state.context.range,
      state.context.data === null ? null : state.context.data.days.some((day) => day.queries > 0),
      Object.keys(state.context.rangeErrors).length > 0,
      event?.type ?? null,
    ]),
} as never);

export const usagePaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));

export const usageCoverage = chartCoverage(usageMachine, usagePaths.map(({ path }) => path));

const longDay = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** What every state but the offer shows: the picker, the range asked for, and a refused custom range's reason. */
function picker(state: UsageSnapshot): Sight[] {
  const { range, rangeErrors } = state.context;
  return [
    { role: 'heading', level: 1, name: t.title },
    { role: 'button', name: t.presets.last30 },
    { role: 'button', name: t.presets.custom },
    { text: t.rangeShown(longDay(range.from), longDay(range.to)) },
    { text: t.rangeErrors.fromAfterTo, ...(rangeErrors.from ? {} : { absent: true as const }) },
    { role: 'heading', name: t.upgradeHeading, absent: true },
    { role: 'button', name: t.exportAction },
  ];
}

function figures(state: UsageSnapshot): Sight[] {
  const { range } = state.context;
  return [
    ...picker(state),
    { role: 'region', name: t.totalsHeading, busy: state.hasTag('reloading') },
    { text: t.milliseconds('790') },
    { text: t.milliseconds('1,830') },
    // While a new range loads, the chart is still the last range's.
    { role: 'img', name: state.hasTag('reloading') ? new RegExp(`^${t.chartTitle('\0', '\0').split('\0')[0]}`) : t.chartTitle(longDay(range.from), longDay(range.to)) },
    { role: 'table', name: t.byTaskHeading },
    { text: t.tasks.formula! },
    { role: 'table', name: t.byCredentialHeading },
    { text: LONG_KEY_NAME },
    { role: 'button', name: state.hasTag('downloading') ? t.downloadCsvBusy : t.downloadCsv, disabled: state.hasTag('downloading') || state.hasTag('reloading') },
    { role: 'heading', name: t.emptyTitle, absent: true },
  ];
}

function nothing(state: UsageSnapshot): Sight[] {
  return [
    ...picker(state),
    { role: 'region', name: t.emptyTitle, busy: state.hasTag('reloading') },
    { role: 'button', name: t.downloadCsv, absent: true },
    { role: 'region', name: t.totalsHeading, absent: true },
  ];
}

const keptFigures = (state: UsageSnapshot) => (state.context.data?.days.some((day) => day.queries > 0) ? figures(state) : nothing(state));

/** What the page shows in each state of the chart. */
export const usageViews = {
  // The first load, before its answer or the wait's end: a spinner under the picker, no export yet.
  'loading.holding': (state: UsageSnapshot): Sight[] => [
    ...picker(state).filter((sight) => !('name' in sight && sight.name === t.exportAction)),
    { role: 'button', name: t.exportAction, absent: true },
    { role: 'status' },
    { label: messages.loading },
    { role: 'region', name: t.totalsHeading, absent: true },
  ],
  'loading.shown': (state: UsageSnapshot): Sight[] => [...picker(state), { role: 'status', name: messages.loading }, { role: 'region', name: t.totalsHeading, absent: true }],
  reloading: (state: UsageSnapshot): Sight[] =>
    state.context.data ? [...keptFigures(state), { text: t.reloading }] : [...picker(state), { role: 'status', name: messages.loading }],
  'loaded.idle': figures,
  'loaded.downloading': figures,
  empty: nothing,
  failed: (state: UsageSnapshot): Sight[] => [
    ...picker(state),
    { text: t.loadFailed },
    { text: messages.auth.networkFailure },
    { role: 'button', name: t.retry },
    { role: 'region', name: t.totalsHeading, absent: true },
    { role: 'button', name: t.downloadCsv, absent: true },
  ],
  upgrade: (): Sight[] => [
    { role: 'heading', level: 1, name: t.title },
    { role: 'heading', name: t.upgradeHeading },
    { text: t.upgradeLead(planWith('analytics').name) },
    { role: 'link', name: t.upgradeAction(planWith('analytics').name) },
    { role: 'button', name: t.presets.last30, absent: true },
    { role: 'button', name: t.downloadCsv, absent: true },
    { role: 'button', name: t.exportAction },
  ],
} satisfies Record<string, (state: UsageSnapshot) => Sight[]>;
