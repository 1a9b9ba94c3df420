import { useEffect, useState } from 'react';

/**
 * Whether this browser can use passkeys (WebAuthn), known after the first render: the prerendered
 * pages are made where there is no browser, so the first render must match them (a mismatch would
 * make React drop what was typed before the app loaded). Asking loads @simplewebauthn/browser, the
 * chunk a ceremony needs next, while the person reads the page.
 */
/** null until known. */
export function usePasskeySupport(): boolean | null {
  const [supported, setSupported] = useState<boolean | null>(null);
  useEffect(() => {
    let current = true;
    import(/* webpackChunkName: "webauthn" */ '@simplewebauthn/browser')
      .then((lib) => current && setSupported(lib.browserSupportsWebAuthn()))
      .catch(() => current && setSupported(false));
    return () => {
      current = false;
    };
  }, []);
  return supported;
}
