import { and, assign, or, setup, stateIn, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { dashboardActors, knownPart, takeKnownPart, type DashboardData, type DashboardPart } from './dashboard.actors';
import { FIRST_DRAW_WAIT_MS } from '../shared/firstDraw';

export interface DashboardContext {
  auth: AuthActorRef;
  /** The last answer of each part; kept while it reloads, so a refresh does not blank the cards. */
  data: { [P in DashboardPart]: DashboardData[P] | null };
}

export type DashboardEvent =
  /** The Refresh button: every part loads again. */
  | { type: 'dashboard.refresh' }
  /** The retry of one part that failed. */
  | { type: `${DashboardPart}.retry` };

/**
 * `loading` is on while any part loads (the Refresh button's busy state); `holding` while the
 * page's first draw waits for the usage and the plan, on which what comes above the cards depends
 * (the get-started card at zero queries, the warning near the limit), for at most FIRST_DRAW_WAIT_MS.
 */
export type DashboardTag = `${DashboardPart}.loading` | `${DashboardPart}.failed` | 'loading' | 'holding';

/** Whether a part has answered, either way. */
const answered = (name: 'usage' | 'subscription') => or([stateIn({ [name]: 'loaded' }), stateIn({ [name]: 'failed' })]);

const dashboardSetup = setup({
  types: {
    context: {} as DashboardContext,
    events: {} as DashboardEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as DashboardTag,
  },
  actors: dashboardActors,
  delays: { firstDraw: FIRST_DRAW_WAIT_MS },
  guards: {
    firstAnswersIn: and([answered('usage'), answered('subscription')]),
    isKnown: (_, { part }: { part: DashboardPart }) => knownPart(part) !== null,
  },
  actions: {
    store: assign(({ context }, { part, value }: { part: DashboardPart; value: unknown }) => ({
      data: { ...context.data, [part]: value },
    })),
    logLoadFailure: (_, { part, error }: { part: DashboardPart; error: unknown }) =>
      console.error(`Could not load the dashboard's ${part}:`, error),
    takeKnown: (_, { part }: { part: DashboardPart }) => takeKnownPart(part),
  },
});

/**
 * One part: loading → loaded | failed (logged, shown as unavailable with a retry). It starts
 * loaded when the page's early call has its answer in already (`knownPart`).
 */
function part(name: DashboardPart) {
  return {
    initial: 'starting' as const,
    states: {
      starting: {
        always: [
          {
            guard: { type: 'isKnown' as const, params: { part: name } },
            target: 'loaded' as const,
            actions: [
              { type: 'store' as const, params: () => ({ part: name, value: knownPart(name) }) },
              { type: 'takeKnown' as const, params: { part: name } },
            ],
          },
          { target: 'loading' as const },
        ],
      },
      loading: {
        tags: [`${name}.loading` as const, 'loading' as const],
        invoke: {
          id: `${name}Load`,
          src: 'load' as const,
          input: ({ context }: { context: DashboardContext }) => ({ auth: context.auth, part: name }),
          onDone: {
            target: 'loaded' as const,
            actions: { type: 'store' as const, params: ({ event }: { event: { output: unknown } }) => ({ part: name, value: event.output }) },
          },
          // What failed to load is no longer known: the cards show it as unavailable, not stale.
          onError: {
            target: 'failed' as const,
            actions: [
              { type: 'logLoadFailure' as const, params: ({ event }: { event: { error: unknown } }) => ({ part: name, error: event.error }) },
              { type: 'store' as const, params: { part: name, value: null } },
            ],
          },
        },
      },
      loaded: {
        on: { 'dashboard.refresh': 'loading' as const },
      },
      failed: {
        tags: [`${name}.failed` as const],
        on: { 'dashboard.refresh': 'loading' as const, [`${name}.retry`]: 'loading' as const },
      },
    },
  };
}

/**
 * The dashboard: usage, subscription and the daily chart load in parallel, each with its own
 * loading, failure and retry; Refresh reloads every part that is not already loading. The first
 * draw holds until the usage and the plan have answered, or FIRST_DRAW_WAIT_MS (`firstDraw`).
 */
export const dashboardMachine = dashboardSetup.createMachine({
  id: 'dashboard',
  context: ({ input }) => ({ auth: input.auth, data: { usage: null, subscription: null, daily: null } }),
  type: 'parallel',
  states: {
    usage: part('usage'),
    subscription: part('subscription'),
    daily: part('daily'),
    firstDraw: {
      initial: 'holding',
      states: {
        holding: {
          tags: ['holding'],
          always: { guard: 'firstAnswersIn', target: 'open' },
          after: { firstDraw: 'open' },
        },
        open: {},
      },
    },
  },
});

export type DashboardMachine = typeof dashboardMachine;
export type DashboardSnapshot = SnapshotFrom<DashboardMachine>;

/**
 * What a part's cards show: `failed` (unavailable, with a retry), `loading` (nothing known yet) or
 * `ready` (the last answer, also while a refresh reloads it).
 */
export function partStatus(snapshot: DashboardSnapshot, part: DashboardPart): 'loading' | 'failed' | 'ready' {
  if (snapshot.hasTag(`${part}.failed`)) return 'failed';
  return snapshot.context.data[part] === null ? 'loading' : 'ready';
}

/** The usage meters need the usage and the limits: they wait for both, and fail with the usage. */
export function metersStatus(snapshot: DashboardSnapshot): 'loading' | 'failed' | 'ready' | 'noLimits' {
  const usage = partStatus(snapshot, 'usage');
  if (usage !== 'ready') return usage;
  const subscription = partStatus(snapshot, 'subscription');
  // A subscription that could not be loaded says nothing about the limits: rather than measure a
  // paying user against Free's, the meters show the counts alone until it loads.
  if (subscription === 'failed') return 'noLimits';
  return subscription === 'loading' ? 'loading' : 'ready';
}
