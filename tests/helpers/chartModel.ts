import { createMachine, type AnyStateMachine } from 'xstate';

type Config = Record<string, unknown> & {
  invoke?: unknown;
  after?: Record<string, unknown>;
  on?: Record<string, unknown>;
  states?: Record<string, Config>;
};

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** How an invoked actor ended, as the model's event: `xstate.done.actor.<id>` with its output, or `xstate.error.actor.<id>` with its error. */
export interface ActorOutcome {
  type: string;
  output?: unknown;
  error?: unknown;
}

/** A path's handlers for how the actors `ids` end: `xstate.done.actor.<id>` and `xstate.error.actor.<id>`, each by `handle(id)`. */
export function outcomeHandlers<H>(ids: readonly string[], handle: (id: string) => H): Record<string, H> {
  return Object.fromEntries(ids.flatMap((id) => [`xstate.done.actor.${id}`, `xstate.error.actor.${id}`].map((type) => [type, handle(id)])));
}

/** The event that stands for a delay in a model: `after.<delay name>`. */
export const afterEvent = (delay: string) => `after.${delay}`;

function strip(config: Config): Config {
  const { invoke, after, on = {}, states, ...rest } = config;
  const transitions: Record<string, unknown> = { ...on };
  for (const inv of asArray(invoke as { id: string; onDone?: unknown; onError?: unknown } | undefined)) {
    if (inv.onDone) transitions[`xstate.done.actor.${inv.id}`] = inv.onDone;
    if (inv.onError) transitions[`xstate.error.actor.${inv.id}`] = inv.onError;
  }
  for (const [delay, target] of Object.entries(after ?? {})) transitions[afterEvent(delay)] = target;
  const stripped: Config = { ...rest, on: transitions };
  if (states) stripped.states = Object.fromEntries(Object.entries(states).map(([key, child]) => [key, strip(child)]));
  return stripped;
}

/**
 * The chart as `xstate/graph` can walk it: `createTestModel` refuses invocations and delays, so
 * each invoked actor's completion becomes an ordinary event of the same name
 * (`xstate.done.actor.<id>`, `xstate.error.actor.<id>`) and each delay an `after.<name>` event.
 * States, guards and transitions stay exactly those of the real chart.
 */
export function toTestModelMachine(machine: AnyStateMachine): AnyStateMachine {
  return createMachine(strip(machine.config as Config) as never, machine.implementations as never);
}

interface ChartNode {
  id: string;
  always?: unknown[];
  on: Record<string, unknown>;
  states: Record<string, ChartNode>;
}

function nodesOf(machine: AnyStateMachine): ChartNode[] {
  const walk = (node: ChartNode): ChartNode[] => [node, ...Object.values(node.states).flatMap(walk)];
  return walk(machine.root as unknown as ChartNode);
}

/** What a set of generated paths walks through: a step's state and the event into it. */
interface WalkedPath {
  steps: Array<{ state: { _nodes: Array<{ id: string }> }; event: { type: string } }>;
}

export interface ChartCoverage {
  paths: number;
  states: { visited: number; total: number };
  /** Event types the chart (as a test model) has transitions for. */
  events: { visited: number; total: number };
  /** States a user can rest in (not transient: no `always`) that no path visits. */
  restingStatesMissed: string[];
}

/** How much of the chart the paths cover, by state node and by event type. */
export function chartCoverage(machine: AnyStateMachine, paths: WalkedPath[]): ChartCoverage {
  const nodes = nodesOf(machine);
  const eventTypes = new Set(nodesOf(toTestModelMachine(machine)).flatMap((node) => Object.keys(node.on)));
  const visitedStates = new Set(paths.flatMap((path) => path.steps.flatMap((step) => step.state._nodes.map((node) => node.id))));
  const visitedEvents = new Set(paths.flatMap((path) => path.steps.map((step) => step.event.type)).filter((type) => eventTypes.has(type)));
  return {
    paths: paths.length,
    states: { visited: nodes.filter((node) => visitedStates.has(node.id)).length, total: nodes.length },
    events: { visited: visitedEvents.size, total: eventTypes.size },
    restingStatesMissed: nodes.filter((node) => !node.always?.length && !visitedStates.has(node.id)).map((node) => node.id),
  };
}

export function coverageLine(chart: string, { paths, states, events }: ChartCoverage): string {
  return `${chart} chart: ${paths} generated paths, states visited ${states.visited}/${states.total}, transitions (event types) visited ${events.visited}/${events.total}`;
}

/**
 * A chart's generated paths as tests, the scaffolding every replay shares (tests/model in jsdom,
 * tests/paths in Chromium): a test that the paths visit every state a user can rest in, then one
 * test per path, titled by its description and run by `replay`; the coverage is logged at the end.
 */
export function describeChartPaths<P extends { title: string }>(
  title: string,
  chart: string,
  { coverage, paths }: { coverage: ChartCoverage; paths: readonly P[] },
  replay: (path: P) => Promise<void>,
  timeout?: number,
): void {
  describe(title, () => {
    afterAll(() => console.log(coverageLine(chart, coverage)));

    it('covers every state of the chart', () => {
      // Transient states (only `always` transitions) are passed through, never rested in.
      expect(coverage.restingStatesMissed).toEqual([]);
    });

    it.each(paths.map((path) => [path.title, path] as const))('%s', (_title, path) => replay(path), timeout);
  });
}
