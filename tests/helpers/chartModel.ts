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
