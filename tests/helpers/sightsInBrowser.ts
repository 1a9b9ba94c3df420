import type { Locator, Page } from 'playwright-core';
import { describeSight, type Sight } from './sights';

/** Strings match whole (as Testing Library does); patterns as written. */
const exactly = (value: string | RegExp | undefined) => (typeof value === 'string' ? { exact: true } : {});

function locate(page: Page, sight: Sight): Locator {
  const scope = sight.in ? page.getByRole(sight.in.role, { name: sight.in.name, ...exactly(sight.in.name) }) : page;
  if ('role' in sight) {
    return scope.getByRole(sight.role, { name: sight.name, ...exactly(sight.name), level: sight.level, disabled: sight.disabled });
  }
  if ('text' in sight) return scope.getByText(sight.text, exactly(sight.text));
  return scope.getByLabel(sight.label, exactly(sight.label));
}

async function holds(page: Page, sight: Sight): Promise<boolean> {
  const wanted = {
    busy: 'busy' in sight && sight.busy !== undefined ? String(sight.busy) : null,
    value: 'value' in sight && sight.value !== undefined ? sight.value : null,
    focused: 'focused' in sight && Boolean(sight.focused),
  };
  // What the user sees: elements hidden by CSS or ARIA do not count.
  const found = await locate(page, sight)
    .filter({ visible: true })
    .evaluateAll(
      (elements, w) =>
        elements.filter(
          (el) =>
            (w.busy === null || el.getAttribute('aria-busy') === w.busy) &&
            (w.value === null || (el as HTMLInputElement).value === w.value) &&
            (!w.focused || el === document.activeElement),
        ).length,
      wanted,
    );
  if (sight.absent) return found === 0;
  return 'text' in sight && sight.count !== undefined ? found === sight.count : found > 0;
}

/**
 * Waits until the page shows every sight at once, checking again on each animation frame; fails
 * after `timeout` ms naming what is missing.
 */
export async function seesInBrowser(page: Page, sights: Sight[], timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    // All at once: each check is a round trip to the browser, and they do not depend on each other.
    // A navigation under way destroys the context a check runs in: that is "not yet".
    const results = await Promise.all(sights.map((sight) => holds(page, sight).catch(() => false)));
    const missing = sights.filter((_, i) => !results[i]);
    if (!missing.length) return;
    if (Date.now() > deadline) throw new Error(`The page does not show:\n  ${missing.map(describeSight).join('\n  ')}`);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve))).catch(() => page.waitForLoadState());
  }
}

/** A path's state checks in Chromium: for each state key, wait until the page shows its view. */
export function inBrowser<S>(page: Page, views: Record<string, (state: S) => Sight[]>): Record<string, (state: unknown) => Promise<void>> {
  return Object.fromEntries(Object.entries(views).map(([key, view]) => [key, (state: unknown) => seesInBrowser(page, view(state as S))]));
}
