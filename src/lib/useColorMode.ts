import { useSyncExternalStore } from 'react';
import { currentColorMode, subscribeColorMode, type ColorMode } from './colorMode';

/**
 * The mode shown now; null while a prerendered page hydrates, since the HTML was made without
 * knowing the visitor's mode (the page then re-renders with it at once).
 */
export function useColorMode(): ColorMode | null {
  return useSyncExternalStore(subscribeColorMode, currentColorMode, () => null);
}
