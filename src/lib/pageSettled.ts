/** How long without a new largest contentful paint before the page counts as drawn. */
const QUIET_MS = 500;
/** The longest wait, whatever the page still draws. */
const MAX_WAIT_MS = 5000;

let settled: Promise<void> | undefined;

/**
 * Resolves once the page has drawn what it first shows, for the code that nothing on it needs yet
 * (the toast region, a dialog): loaded before, it shares a phone's network and main thread with the
 * page's own code and data. The page counts as drawn when no larger content has been painted for
 * QUIET_MS, at the person's first key or pointer press (they may be about to need it), or after
 * MAX_WAIT_MS. A hidden tab paints nothing until shown: there it resolves at once, as it does where
 * the browser does not report largest contentful paints (after the first paint instead).
 */
export function pageSettled(): Promise<void> {
  settled ??= new Promise<void>((resolve) => {
    const inputs = ['pointerdown', 'keydown'] as const;
    const reportsPaints = typeof PerformanceObserver !== 'undefined' && PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint');
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const waitQuiet = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    };
    const observer = reportsPaints ? new PerformanceObserver(waitQuiet) : undefined;
    const cap = setTimeout(done, MAX_WAIT_MS);
    function done() {
      clearTimeout(quiet);
      clearTimeout(cap);
      observer?.disconnect();
      for (const type of inputs) window.removeEventListener(type, done, true);
      resolve();
    }
    if (document.visibilityState === 'hidden') return done();
    for (const type of inputs) window.addEventListener(type, done, true);
    if (observer) {
      observer.observe({ type: 'largest-contentful-paint', buffered: true });
      waitQuiet();
    } else {
      // The frame after the next one begins once the next has been painted.
      requestAnimationFrame(() => requestAnimationFrame(waitQuiet));
    }
  });
  return settled;
}
