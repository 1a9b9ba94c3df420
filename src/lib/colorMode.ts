/**
 * Light or dark: the visitor's choice, kept in local storage, else the system's. The page's colours
 * follow the `dark` / `light` class on <html> (Chakra's color-mode conditions). This module has no
 * React in it: `src/colorModeBoot.ts` runs it as a blocking script before the first paint, so a
 * page never shows in the wrong mode first.
 */
import { localStore } from '../../machines/shared/localStore';

export type ColorMode = 'light' | 'dark';

export const COLOR_MODE_KEY = 'color-mode';
const DARK_QUERY = '(prefers-color-scheme: dark)';

export function systemColorMode(): ColorMode {
  return globalThis.matchMedia?.(DARK_QUERY).matches ? 'dark' : 'light';
}

/** The stored choice, if there is a valid one. */
function chosenColorMode(): ColorMode | null {
  const value = localStore()?.getItem(COLOR_MODE_KEY);
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

/**
 * The color-mode button's attribute, on the button the top bar renders (src/app/TopBar.tsx), which
 * the scripts of a prerendered page find it by (src/colorModeBoot.ts, src/staticPage.ts).
 */
export const COLOR_MODE_TOGGLE_ATTRIBUTE = 'data-color-mode-toggle';

/**
 * Dispatched on the document when the shown mode changes. An event rather than a list of
 * listeners: the color-mode script, a static page's script and the app are separate bundles, each
 * with its own copy of this module, and a change one of them makes reaches the others.
 */
const CHANGE_EVENT = 'sheetmind:color-mode';

function show(mode: ColorMode): void {
  applyColorMode(mode);
  document.dispatchEvent(new Event(CHANGE_EVENT));
}

/**
 * Shows `mode` and remembers it. Choosing the system's own mode forgets the choice, so the page
 * follows the system again from then on.
 */
export function chooseColorMode(mode: ColorMode): void {
  const store = localStore();
  if (mode === systemColorMode()) store?.removeItem(COLOR_MODE_KEY);
  else store?.setItem(COLOR_MODE_KEY, mode);
  show(mode);
}

/** What the color-mode button does: the other mode. */
export function toggleColorMode(): void {
  chooseColorMode(currentColorMode() === 'dark' ? 'light' : 'dark');
}

/** Calls `listener` whenever the shown mode changes; returns the unsubscribe. */
export function subscribeColorMode(listener: () => void): () => void {
  document.addEventListener(CHANGE_EVENT, listener);
  return () => document.removeEventListener(CHANGE_EVENT, listener);
}

/**
 * Gives every color-mode button on the page its pressed state, for a button that React does not
 * render (yet); returns whether there was one.
 */
export function markColorModeToggles(): boolean {
  const toggles = document.querySelectorAll(`[${COLOR_MODE_TOGGLE_ATTRIBUTE}]`);
  const pressed = String(currentColorMode() === 'dark');
  toggles.forEach((toggle) => toggle.setAttribute('aria-pressed', pressed));
  return toggles.length > 0;
}

/** Follows the system's mode while nothing is chosen, and a choice made in another tab. */
export function watchSystemColorMode(): void {
  globalThis.matchMedia?.(DARK_QUERY).addEventListener('change', () => show(preferredColorMode()));
  window.addEventListener('storage', (event) => {
    if (event.key === COLOR_MODE_KEY || event.key === null) show(preferredColorMode());
  });
}
