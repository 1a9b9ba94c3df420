/**
 * The one script of the static public pages (/, /privacy, /terms; see PRERENDERED_PAGES), inline
 * in their HTML: the prerendered HTML is the whole page for a signed-out visitor, so instead of
 * React this does the little that needs a script there, once the page is on screen. A visitor
 * with a session gets the app itself, which takes over the HTML as on any other page, so the top
 * bar shows their account.
 */
import { COLOR_MODE_TOGGLE_ATTRIBUTE, markColorModeToggles, subscribeColorMode, toggleColorMode, watchSystemColorMode } from './lib/colorMode';
import { afterFirstPaint, APP_READY_ATTRIBUTE, listedAppScripts, loadScripts } from './lib/pageScripts';
import { ACCESS_TOKEN_KEY, hasStoredSession } from '../machines/shared/tokenStorage';

const appScripts = listedAppScripts();

/**
 * The color-mode button, as the app's top bar does it (TopBar.tsx, ColorModeToggle); until now the
 * color-mode script did (src/colorModeBoot.ts).
 */
function enhanceColorModeToggle(): void {
  const toggle = document.querySelector<HTMLButtonElement>(`[${COLOR_MODE_TOGGLE_ATTRIBUTE}]`);
  if (!toggle) return;
  markColorModeToggles();
  subscribeColorMode(markColorModeToggles);
  toggle.addEventListener('click', toggleColorMode);
  watchSystemColorMode();
}

/** This year by the browser's clock, as the footer shows it once hydrated (Footer.tsx). */
function showThisYear(): void {
  const element = document.querySelector<HTMLElement>('[data-year]');
  const shown = element?.dataset.year;
  const year = String(new Date().getFullYear());
  if (!element || !shown || shown === year) return;
  element.textContent = (element.textContent ?? '').replace(shown, year);
  element.dataset.year = year;
}

afterFirstPaint(() => {
  if (hasStoredSession()) {
    loadScripts(appScripts);
    return;
  }
  enhanceColorModeToggle();
  showThisYear();
  // Signed in in another tab: the app's tabs follow at once, and so does this page.
  window.addEventListener('storage', (event) => {
    if (event.key === ACCESS_TOKEN_KEY && event.newValue) window.location.reload();
  });
  document.documentElement.setAttribute(APP_READY_ATTRIBUTE, '');
});
