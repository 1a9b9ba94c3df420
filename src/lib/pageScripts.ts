/**
 * What the inline script of a prerendered page does with the app's scripts (src/staticPage.ts,
 * src/appPage.ts): the build lists them, in order, in the script element's `data-app`.
 */

/**
 * The attribute of <html> that says the page's script has taken over: the app (set in
 * src/app/AppProviders.tsx), or on a static page for a signed-out visitor src/staticPage.ts.
 */
export const APP_READY_ATTRIBUTE = 'data-app-ready';

/** Whether the page's script or the app has taken over the page (see APP_READY_ATTRIBUTE). */
export function pageTakenOver(): boolean {
  return document.documentElement.hasAttribute(APP_READY_ATTRIBUTE);
}

declare global {
  interface Window {
    /**
     * A form sent before the app took over the page: held back by src/appPage.ts, and sent again
     * by the app once it has the fields' values (src/lib/useEarlyInput.ts).
     */
    heldSubmit?: HTMLFormElement;
  }
}

/** The app's scripts for this page as the build listed them; read while the inline script runs. */
export function listedAppScripts(): string[] {
  return (document.currentScript as HTMLScriptElement | null)?.dataset.app?.split(' ') ?? [];
}

export function loadScripts(sources: string[]): void {
  for (const src of sources) {
    const script = document.createElement('script');
    script.src = src;
    // Inserted scripts run as soon as each arrives unless told to keep their order.
    script.async = false;
    document.head.append(script);
  }
}

/**
 * Runs `callback` in a task after the page's first contentful paint: the prerendered page is on
 * screen before any of its script is evaluated, however fast the scripts arrive (a deferred script
 * that arrives in time runs before the first paint and holds it back). A hidden tab paints nothing
 * until it is shown, so there the callback runs at once.
 */
export function afterFirstPaint(callback: () => void): void {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    setTimeout(callback, 0);
  };
  if (document.visibilityState === 'hidden') return start();
  if (!PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    // The frame after the next one begins once the next has been painted.
    requestAnimationFrame(() => requestAnimationFrame(start));
    return;
  }
  new PerformanceObserver((entries, observer) => {
    if (entries.getEntriesByName('first-contentful-paint').length === 0) return;
    observer.disconnect();
    start();
  }).observe({ type: 'paint', buffered: true });
}
