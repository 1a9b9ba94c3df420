/**
 * Light or dark: the visitor's choice, kept in local storage, else the system's. The page's colours
 * follow the `dark` / `light` class on <html> (Chakra's color-mode conditions). This module has no
 * React in it: `src/colorModeBoot.ts` runs it as a blocking script before the first paint, so a
 * page never shows in the wrong mode first.
 */
export type ColorMode = 'light' | 'dark';

export const COLOR_MODE_KEY = 'color-mode';
const DARK_QUERY = '(prefers-color-scheme: dark)';

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    // Storage can be disabled (privacy settings): the system's mode then applies.
    return undefined;
  }
}

export function systemColorMode(): ColorMode {
  return globalThis.matchMedia?.(DARK_QUERY).matches ? 'dark' : 'light';
}

/** The stored choice, if there is a valid one. */
function chosenColorMode(): ColorMode | null {
  const value = storage()?.getItem(COLOR_MODE_KEY);
  return value === 'light' || value === 'dark' ? value : null;
}

export function preferredColorMode(): ColorMode {
  return chosenColorMode() ?? systemColorMode();
}

export function applyColorMode(mode: ColorMode): void {
  const root = document.documentElement;
  root.classList.toggle('dark', mode === 'dark');
  root.classList.toggle('light', mode === 'light');
  // Form controls and scroll bars follow too (a CSSOM write, which the CSP allows).
  root.style.colorScheme = mode;
}

/** The mode shown now, as the page's class says. */
export function currentColorMode(): ColorMode {
  return document.documentElement.classList.contains('dark') ? 'dark' : 'light';
}

const listeners = new Set<() => void>();

function show(mode: ColorMode): void {
  applyColorMode(mode);
  listeners.forEach((listener) => listener());
}

/**
 * Shows `mode` and remembers it. Choosing the system's own mode forgets the choice, so the page
 * follows the system again from then on.
 */
export function chooseColorMode(mode: ColorMode): void {
  const store = storage();
  if (mode === systemColorMode()) store?.removeItem(COLOR_MODE_KEY);
  else store?.setItem(COLOR_MODE_KEY, mode);
  show(mode);
}

/** Calls `listener` whenever the shown mode changes; returns the unsubscribe. */
export function subscribeColorMode(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Follows the system's mode while nothing is chosen, and a choice made in another tab. */
export function watchSystemColorMode(): void {
  globalThis.matchMedia?.(DARK_QUERY).addEventListener('change', () => show(preferredColorMode()));
  window.addEventListener('storage', (event) => {
    if (event.key === COLOR_MODE_KEY || event.key === null) show(preferredColorMode());
  });
}
