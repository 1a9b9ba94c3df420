/**
 * The session tokens, kept in the browser's local storage (product spec, section 3) so every tab
 * shares them. This module is the only code that touches those keys.
 */
import { localStore } from './localStore';

export const ACCESS_TOKEN_KEY = 'access_token';
export const REFRESH_TOKEN_KEY = 'refresh_token';
/**
 * On <html> from the first paint while a stored session is being checked (src/colorModeBoot.ts
 * sets it, the top bar removes it once the auth chart knows): the top bar shows no account
 * controls meanwhile, neither Login and Sign Up nor the signed-in ones.
 */
export const SESSION_CHECK_ATTRIBUTE = 'data-session-check';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** Whether this browser holds a session: what the auth chart checks first, and the page scripts too. */
export function hasStoredSession(): boolean {
  return (localStore()?.getItem(ACCESS_TOKEN_KEY) ?? null) !== null;
}

export const tokenStorage = {
  read(): { accessToken: string | null; refreshToken: string | null } {
    const store = localStore();
    return { accessToken: store?.getItem(ACCESS_TOKEN_KEY) ?? null, refreshToken: store?.getItem(REFRESH_TOKEN_KEY) ?? null };
  },
  write(tokens: TokenPair): void {
    const store = localStore();
    store?.setItem(ACCESS_TOKEN_KEY, tokens.access_token);
    store?.setItem(REFRESH_TOKEN_KEY, tokens.refresh_token);
  },
  clear(): void {
    const store = localStore();
    store?.removeItem(ACCESS_TOKEN_KEY);
    store?.removeItem(REFRESH_TOKEN_KEY);
  },
};
