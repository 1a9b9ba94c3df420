import { useSyncExternalStore } from 'react';

const noUpdates = () => () => undefined;

/**
 * `serverValue` in the prerender and while the browser hydrates its HTML, then at once (and in
 * any page rendered in the browser alone) `clientValue()`: for what only the browser can know,
 * without a hydration mismatch.
 */
export function useClientSnapshot<T>(clientValue: () => T, serverValue: T): T {
  return useSyncExternalStore(noUpdates, clientValue, () => serverValue);
}
