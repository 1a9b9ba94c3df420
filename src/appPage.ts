/**
 * The inline script of the prerendered pages that hydrate (/login, /register, /support): loads the
 * app's scripts once the page is on screen, so none of them holds back its first paint.
 */
import { afterFirstPaint, listedAppScripts, loadScripts, pageTakenOver } from './lib/pageScripts';

const appScripts = listedAppScripts();
afterFirstPaint(() => loadScripts(appScripts));

// A form sent before the app has taken over would go to the server as a plain GET, its fields (a
// password too) in the address: held back until then (src/app/AppProviders.tsx marks <html>), and
// then sent by the app (src/lib/useEarlyInput.ts). Nor does React get it while it hydrates: it
// would see the fields' values from before the app read them.
document.addEventListener(
  'submit',
  (event) => {
    if (pageTakenOver()) return;
    event.preventDefault();
    event.stopPropagation();
    window.heldSubmit = event.target as HTMLFormElement;
  },
  true,
);
// Enter in a field of a form whose submit button is disabled (the support form, signed out) sends
// nothing the browser would hold, yet the app answers it (with why nothing was sent): kept too, and
// kept from React, which may already listen while it hydrates: it would answer this Enter now and
// again when the held one is sent (two "Authentication required" toasts for one Enter).
document.addEventListener(
  'keydown',
  (event) => {
    const field = event.target as HTMLInputElement;
    if (event.key !== 'Enter' || field.tagName !== 'INPUT' || !field.form || pageTakenOver()) return;
    event.stopPropagation();
    window.heldSubmit = field.form;
  },
  true,
);
