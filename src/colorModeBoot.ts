import { applyColorMode, COLOR_MODE_TOGGLE_ATTRIBUTE, markColorModeToggles, preferredColorMode, toggleColorMode } from './lib/colorMode';
import { pageTakenOver } from './lib/pageScripts';
import { hasStoredSession, SESSION_CHECK_ATTRIBUTE } from '../machines/shared/tokenStorage';

// Run at the top of <head>, before the first paint, which so has the right mode: the build inlines
// it there, and the server gives it the response's script nonce (the CSP allows no other inline
// script).
applyColorMode(preferredColorMode());

// A prerendered page shows the signed-out top bar: hidden from the first paint when a session is
// stored, until the app knows whose it is (src/app/TopBar.tsx).
if (hasStoredSession()) document.documentElement.setAttribute(SESSION_CHECK_ATTRIBUTE, '');

// A prerendered page's color-mode button is on screen before the page's script or the app takes
// the page over, which waits for the first paint (src/lib/pageScripts.ts). Until then, this script
// gives the button its pressed state as the parser adds it (a mutation observer runs before any
// other task, so nothing sees the button without it) and answers its clicks: none is lost.
const observer = new MutationObserver(() => {
  if (markColorModeToggles()) observer.disconnect();
});
observer.observe(document, { childList: true, subtree: true });
document.addEventListener(
  'click',
  (event) => {
    if (pageTakenOver() || !(event.target as Element).closest?.(`[${COLOR_MODE_TOGGLE_ATTRIBUTE}]`)) return;
    // Kept from React too, which may already listen while it hydrates: it would switch back.
    event.stopPropagation();
    toggleColorMode();
    markColorModeToggles();
  },
  true,
);
