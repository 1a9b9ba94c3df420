import { useEffect, useSyncExternalStore } from 'react';
import { pageSettled } from './pageSettled';

const unchanging = () => () => undefined;
/** What @simplewebauthn/browser's `browserSupportsWebAuthn` reads. */
const browserSupports = () => typeof globalThis.PublicKeyCredential === 'function';
const unknownYet = () => null;

/**
 * Whether this browser can use passkeys (WebAuthn). A page hydrated from its prerender first
 * renders it unknown (null), as the prerender did where there is no browser (a mismatch would make
 * React drop what was typed before the app loaded), then known. @simplewebauthn/browser, the chunk a
 * ceremony needs next, is asked for once the page has drawn what it first shows (`pageSettled`),
 * while the person reads the page.
 */
export function usePasskeySupport(): boolean | null {
  useEffect(() => {
    void pageSettled()
      .then(() => import(/* webpackChunkName: "webauthn" */ '@simplewebauthn/browser'))
      .catch(() => undefined);
  }, []);
  return useSyncExternalStore<boolean | null>(unchanging, browserSupports, unknownYet);
}
