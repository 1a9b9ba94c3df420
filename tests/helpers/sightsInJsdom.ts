import { screen, waitFor, within } from '@testing-library/react';
import { describeSight, type Sight } from './sights';

type Queries = Pick<typeof screen, 'queryAllByRole' | 'queryAllByText' | 'queryAllByLabelText'>;

function scopeOf(sight: Sight): Queries | null {
  if (!sight.in) return screen;
  const area = screen.queryAllByRole(sight.in.role, sight.in.name === undefined ? {} : { name: sight.in.name })[0];
  return area ? within(area) : null;
}

function matches(sight: Sight): HTMLElement[] {
  const scope = scopeOf(sight);
  if (!scope) return [];
  if ('role' in sight) {
    return scope
      .queryAllByRole(sight.role, { name: sight.name, level: sight.level })
      .filter((el) => sight.disabled === undefined || (el as HTMLButtonElement).disabled === sight.disabled)
      .filter((el) => sight.busy === undefined || el.getAttribute('aria-busy') === String(sight.busy));
  }
  if ('text' in sight) return scope.queryAllByText(sight.text);
  return scope
    .queryAllByLabelText(sight.label)
    .filter((el) => sight.value === undefined || (el as HTMLInputElement).value === sight.value)
    .filter((el) => !sight.focused || el === document.activeElement);
}

function holds(sight: Sight): boolean {
  const found = matches(sight).length;
  if (sight.absent) return found === 0;
  return 'text' in sight && sight.count !== undefined ? found === sight.count : found > 0;
}

/** Waits until the page in jsdom shows every sight at once. */
export async function seesInJsdom(sights: Sight[]): Promise<void> {
  await waitFor(() => {
    const missing = sights.filter((sight) => !holds(sight));
    if (missing.length) throw new Error(`The page does not show:\n  ${missing.map(describeSight).join('\n  ')}`);
  });
}

/** A path's state checks in jsdom: for each state key, wait until the page shows its view. */
export function inJsdom<S>(views: Record<string, (state: S) => Sight[]>): Record<string, (state: unknown) => Promise<void>> {
  return Object.fromEntries(Object.entries(views).map(([key, view]) => [key, (state: unknown) => seesInJsdom(view(state as S))]));
}
