import { useActorRef, useSelector } from '@xstate/react';
import { createContext, createElement, useContext, useDeferredValue, useState, type ReactNode } from 'react';
import type { Actor, AnyActorRef, AnyStateMachine, InputFrom, SnapshotFrom } from 'xstate';
import { actorOptions } from './inspector';

/** The effects a view hands a chart (its toasts, its router): the chart's named actions it provides. */
export type ChartEffects<M extends AnyStateMachine> = NonNullable<Parameters<M['provide']>[0]['actions']>;

export interface RunOptions<M extends AnyStateMachine> {
  /** The chart's input, read once when its actor starts. */
  input?: InputFrom<M>;
  /** The view's implementations of the chart's effects, taken once when its actor starts. */
  effects?: ChartEffects<M>;
}

export interface Chart<M extends AnyStateMachine> {
  /**
   * The chart the views run: the real one unless a test hands in its own with fake actors
   * (`<Chart.Logic.Provider value={machine.provide(…)}>`).
   */
  Logic: React.Context<M>;
  /** Starts the chart's actor for this component (stopped when it unmounts). */
  useActor: (options?: RunOptions<M>) => Actor<M>;
  /** Starts the actor as `useActor` does and shares it with every component below. */
  Provider: (props: RunOptions<M> & { children: ReactNode }) => ReactNode;
  /** The actor shared by the nearest `Provider`. */
  useActorRef: () => Actor<M>;
  /** Reads the shared actor's snapshot; the component renders again when the selection changes. */
  useSelector: <T>(selector: (snapshot: SnapshotFrom<M>) => T, compare?: (a: T, b: T) => boolean) => T;
}

/**
 * The one way a view connects to a chart of machines/: a page or component either runs its own
 * actor (`useActor`) or reads the one a `Provider` above it runs (`useActorRef`, `useSelector`).
 * Either way the chart comes from `Logic` (so tests hand in fakes), the view's effects are
 * provided once, and the actor is shown in the inspector in development builds.
 */
export function createChartContext<M extends AnyStateMachine>(machine: M): Chart<M> {
  const Logic = createContext<M>(machine);
  const Shared = createContext<Actor<M> | null>(null);

  function useActor({ input, effects }: RunOptions<M> = {}): Actor<M> {
    const logic = useContext(Logic);
    const [provided] = useState(() => (effects ? (logic.provide({ actions: effects }) as M) : logic));
    // The options are the chart's own (its input type): TypeScript cannot follow that for any chart M.
    return useActorRef(provided, { ...actorOptions(), input } as never) as Actor<M>;
  }

  function Provider({ children, ...options }: RunOptions<M> & { children: ReactNode }) {
    return createElement(Shared.Provider, { value: useActor(options) }, children);
  }

  function useSharedActor(): Actor<M> {
    const actor = useContext(Shared);
    if (!actor) throw new Error(`The ${machine.id} chart is read outside its Provider.`);
    return actor;
  }

  function useSharedSelector<T>(selector: (snapshot: SnapshotFrom<M>) => T, compare?: (a: T, b: T) => boolean): T {
    return useSelector(useSharedActor(), selector, compare);
  }

  return { Logic, useActor, Provider, useActorRef: useSharedActor, useSelector: useSharedSelector };
}

/** Selects from an actor a view runs itself (`Chart.useActor`): @xstate/react's, imported through here. */
export { useSelector };

/**
 * `useSelector` for what a page draws from its chart's answers (its tables, cards and lists), drawn
 * in a deferred render: a chart's update is a synchronous render, and a whole page redrawn at once
 * when an answer comes is one task of 100 to 500 ms on a slow phone. Deferred, React draws it in
 * slices of a few milliseconds, and what is on screen until then stays. A button's wait may come a
 * frame later (the chart takes no event its state does not expect meanwhile); a field's value as
 * it is typed may not, so forms keep `useSelector`.
 */
export function useDeferredSelector<A extends AnyActorRef, T>(actor: A, selector: (snapshot: A extends { getSnapshot(): infer S } ? S : undefined) => T, compare?: (a: T, b: T) => boolean): T {
  return useDeferredValue(useSelector(actor, selector, compare));
}
