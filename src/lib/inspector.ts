import type { InspectionEvent, Observer } from 'xstate';

type Inspect = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

let inspect: Inspect | undefined;

/**
 * Development builds only: with `?inspect` in the address, every actor the app starts is shown in
 * the Stately inspector (it opens in a new window). Webpack replaces `process.env.NODE_ENV` with a
 * constant, so in production the whole branch, and the inspector's chunk, is left out.
 */
export async function startInspector(): Promise<void> {
  if (process.env.NODE_ENV !== 'production') {
    if (new URLSearchParams(window.location.search).has('inspect')) {
      const { createBrowserInspector } = await import('@statelyai/inspect');
      inspect = createBrowserInspector().inspect;
    }
  }
}

/** Options for each root actor the app creates (child actors are inspected through their root). */
export function actorOptions(): { inspect?: Inspect } {
  return inspect ? { inspect } : {};
}
