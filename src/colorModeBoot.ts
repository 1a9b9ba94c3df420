import { applyColorMode, preferredColorMode } from './lib/colorMode';
import { SESSION_CHECK_ATTRIBUTE, tokenStorage } from './lib/tokenStorage';

// Run at the top of <head>, before the first paint, which so has the right mode: the build inlines
// it there, and the server gives it the response's script nonce (the CSP allows no other inline
// script).
applyColorMode(preferredColorMode());

// A prerendered page shows the signed-out top bar: hidden from the first paint when a session is
// stored, until the app knows whose it is (src/app/TopBar.tsx).
if (tokenStorage.hasAccessToken()) document.documentElement.setAttribute(SESSION_CHECK_ATTRIBUTE, '');
