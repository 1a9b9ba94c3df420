import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import type { UsageAnalytics } from '../shared/api';
import type { Message } from '../shared/messages';
import type { NotifyParams } from '../shared/notify';
import { failureCode, reportFailure, serverFailure } from '../shared/failures';
import { FIRST_DRAW_WAIT_MS } from '../shared/firstDraw';
import { knownAnalytics, takeKnownAnalytics, usageActors } from './usage.actors';
import { checkRange, FIRST_PRESET, presetRange, type DayRange, type RangeChoice, type RangeErrors, type RangePreset } from './usage.range';

export interface UsageContext {
  auth: AuthActorRef;
  /** The UTC day the ranges are counted from (the page's today; tests fix it). */
  today: string;
  /** Which range the picker shows chosen. */
  choice: RangeChoice;
  /** The days asked for (or being asked for). */
  range: DayRange;
  /** The last answer: kept while a new range loads, so the page does not blank; null after a failure. */
  data: UsageAnalytics | null;
  /** Why the last load failed, as the person is told it (the view words it). */
  failure: Message | null;
  /** What is wrong with the custom range last asked for; empty once a range is accepted. */
  rangeErrors: RangeErrors;
}

export type UsageEvent =
  | { type: 'range.preset'; preset: RangePreset }
  | { type: 'range.custom'; from: string; to: string }
  | { type: 'analytics.retry' }
  | { type: 'csv.download' };

/** `holding`: the first load has not answered yet, for at most FIRST_DRAW_WAIT_MS (the page draws no placeholders below its picker). */
export type UsageTag = 'loading' | 'holding' | 'reloading' | 'downloading';

type ErrorEvent = { event: { error: unknown } };
type CustomEvent = { event: Extract<UsageEvent, { type: 'range.custom' }> };
type PresetEvent = { event: Extract<UsageEvent, { type: 'range.preset' }> };

/** A range without a single query: the page says so rather than draw an empty chart. */
export const isEmptyRange = (data: UsageAnalytics) => data.days.every((day) => day.queries === 0);

const usageSetup = setup({
  types: {
    context: {} as UsageContext,
    events: {} as UsageEvent,
    input: {} as { auth: AuthActorRef; today: string },
    tags: {} as UsageTag,
  },
  actors: usageActors,
  delays: { firstDraw: FIRST_DRAW_WAIT_MS },
  actions: {
    store: assign({ data: (_, data: UsageAnalytics) => data, failure: null }),
    takeKnown: ({ context }) => takeKnownAnalytics(context.range),
    fail: assign({ data: null, failure: (_, error: unknown) => serverFailure(error) }),
    choosePreset: assign(({ context }, preset: RangePreset) => ({ choice: preset, range: presetRange(preset, context.today), rangeErrors: {} })),
    chooseCustom: assign((_, range: DayRange) => ({ choice: 'custom' as const, range, rangeErrors: {} })),
    refuseCustom: assign({ rangeErrors: ({ context }, range: DayRange) => checkRange(range, context.today) }),
    logFailure: (_, error: unknown) => console.error('Could not load the usage analytics:', error),
    notify: (_, _params: NotifyParams) => undefined,
  },
  guards: {
    isKnown: ({ context }) => knownAnalytics(context.range) !== null,
    isKnownEmpty: ({ context }) => {
      const known = knownAnalytics(context.range);
      return known !== null && isEmptyRange(known);
    },
    validRange: ({ context }, range: DayRange) => Object.keys(checkRange(range, context.today)).length === 0,
    noUsage: (_, data: UsageAnalytics) => isEmptyRange(data),
    planRequired: (_, error: unknown) => failureCode(error) === 'plan_required',
  },
});

const customRange = ({ event }: CustomEvent): DayRange => ({ from: event.from, to: event.to });

/**
 * Choosing a range: a preset, or a custom range once it passes the rules (otherwise its errors show
 * under its fields and nothing is asked). `target` is where the new range loads: with the last
 * answer kept (`reloading`) or with none (`loading`).
 */
const rangeChanges = (target: '#usage.loading.shown' | '#usage.reloading') => ({
  'range.preset': { target, reenter: true, actions: { type: 'choosePreset' as const, params: ({ event }: PresetEvent) => event.preset } },
  'range.custom': [
    { guard: { type: 'validRange' as const, params: customRange }, target, reenter: true, actions: { type: 'chooseCustom' as const, params: customRange } },
    { actions: { type: 'refuseCustom' as const, params: customRange } },
  ],
});

/** How a load ends: the figures (or the empty range), the Professional offer, or a failure with a retry. */
const loadOutcome = (id: string) => ({
  id,
  src: 'loadAnalytics' as const,
  input: ({ context }: { context: UsageContext }) => ({ auth: context.auth, range: context.range }),
  onDone: [
    { guard: { type: 'noUsage' as const, params: ({ event }: { event: { output: UsageAnalytics } }) => event.output }, target: '#usage.empty', actions: { type: 'store' as const, params: ({ event }: { event: { output: UsageAnalytics } }) => event.output } },
    { target: '#usage.loaded', actions: { type: 'store' as const, params: ({ event }: { event: { output: UsageAnalytics } }) => event.output } },
  ],
  onError: [
    { guard: { type: 'planRequired' as const, params: ({ event }: ErrorEvent) => event.error }, target: '#usage.upgrade' },
    {
      target: '#usage.failed',
      actions: [
        { type: 'logFailure' as const, params: ({ event }: ErrorEvent) => event.error },
        { type: 'fail' as const, params: ({ event }: ErrorEvent) => event.error },
      ],
    },
  ],
});

/**
 * The /usage page: `loading` → `loaded` (the chart, the tables, the CSV) | `empty` (no query in the
 * range) | `failed` (with a retry) | `upgrade` (the plan does not include analytics: what
 * Professional adds, never a broken page). A new range loads in `reloading`, the last answer kept
 * on screen meanwhile. The first load holds the figures' placeholders back (`loading.holding`)
 * until it answers or FIRST_DRAW_WAIT_MS have passed: the offer is far shorter than they are.
 * When the page's early call has the figures in already (`knownAnalytics`), the chart starts with
 * them (`starting`), loaded or empty as their answer would have made it.
 */
export const usageMachine = usageSetup.createMachine({
  id: 'usage',
  context: ({ input }) => ({
    auth: input.auth,
    today: input.today,
    choice: FIRST_PRESET,
    range: presetRange(FIRST_PRESET, input.today),
    data: null,
    failure: null,
    rangeErrors: {},
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'isKnownEmpty', target: 'empty', actions: [{ type: 'store', params: ({ context }) => knownAnalytics(context.range)! }, 'takeKnown'] },
        { guard: 'isKnown', target: 'loaded', actions: [{ type: 'store', params: ({ context }) => knownAnalytics(context.range)! }, 'takeKnown'] },
        { target: 'loading' },
      ],
    },
    loading: {
      tags: ['loading'],
      on: rangeChanges('#usage.loading.shown'),
      invoke: loadOutcome('loadAnalytics'),
      // The first load: whether the figures or the Professional offer come decides the whole page.
      initial: 'holding',
      states: {
        holding: { tags: ['holding'], after: { firstDraw: 'shown' } },
        shown: {},
      },
    },
    reloading: {
      tags: ['reloading'],
      on: rangeChanges('#usage.reloading'),
      invoke: loadOutcome('reloadAnalytics'),
    },
    loaded: {
      on: rangeChanges('#usage.reloading'),
      initial: 'idle',
      states: {
        idle: { on: { 'csv.download': 'downloading' } },
        downloading: {
          tags: ['downloading'],
          invoke: {
            id: 'downloadCsv',
            src: 'downloadCsv',
            input: ({ context }) => ({ auth: context.auth, range: context.range }),
            onDone: 'idle',
            onError: {
              target: 'idle',
              actions: reportFailure(({ event }: ErrorEvent) => ({ title: 'usage.downloadFailed', description: serverFailure(event.error) })),
            },
          },
        },
      },
    },
    empty: { on: rangeChanges('#usage.reloading') },
    failed: {
      on: { ...rangeChanges('#usage.loading.shown'), 'analytics.retry': '#usage.loading.shown' },
    },
    upgrade: {},
  },
});

export type UsageMachine = typeof usageMachine;
export type UsageSnapshot = SnapshotFrom<UsageMachine>;

/** What the page shows: each state by name, the load of a new range over the last answer. */
export function usageStatus(snapshot: UsageSnapshot): 'loading' | 'loaded' | 'empty' | 'failed' | 'upgrade' {
  if (snapshot.matches('upgrade')) return 'upgrade';
  if (snapshot.matches('failed')) return 'failed';
  if (snapshot.matches('loading')) return 'loading';
  if (snapshot.matches('empty')) return 'empty';
  if (snapshot.matches('reloading')) return snapshot.context.data && !isEmptyRange(snapshot.context.data) ? 'loaded' : 'empty';
  return 'loaded';
}
