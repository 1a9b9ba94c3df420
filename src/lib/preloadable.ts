import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/** A component in a chunk of its own, which start-up code may load before the first render. */
export interface Preloadable<P> {
  /** For a render before it is loaded: suspends until it is. */
  Lazy: LazyExoticComponent<ComponentType<P>>;
  /** Loads the chunk (once); resolves once the component can render without suspending. */
  preload: () => Promise<ComponentType<P>>;
  /** The component, once loaded: rendered at once, where `Lazy` would still suspend once. */
  loaded: () => ComponentType<P> | undefined;
}

export function preloadable<P>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const preload = () => (loading ??= load().then((module) => (loaded = module.default)));
  const Lazy = lazy(() => preload().then((component) => ({ default: component })));
  return { Lazy, preload, loaded: () => loaded };
}
