import { fromCallback, fromPromise } from 'xstate';
import type { SecondFactorMethod } from '../../contract/security';
import { authApi, ApiRequestError, type AuthResponse, type User } from '../shared/api';
import { pairFromAnotherTab, recordExchanged } from '../shared/refreshHandoff';
import { ACCESS_TOKEN_KEY, tokenStorage, type TokenPair } from '../shared/tokenStorage';

export interface LoginInput {
  email: string;
  password: string;
}

export interface RegisterInput extends LoginInput {
  full_name: string;
  username: string;
}

export interface SecondFactorInput {
  mfa_token: string;
  method: SecondFactorMethod;
  code: string;
}

export interface RefreshInput {
  /** The access token a request was refused with; null on start-up. */
  failedAccessToken: string | null;
}

/** Same name in every tab, so one tab at a time refreshes (Web Locks API). */
const REFRESH_LOCK = 'sheetmind.auth.refresh';

function withRefreshLock<T>(work: () => Promise<T>): Promise<T> {
  const locks = globalThis.navigator?.locks;
  return locks ? (locks.request(REFRESH_LOCK, work) as Promise<T>) : work();
}

/**
 * Exchanges the stored refresh token for a new pair, once for all requests and all tabs: inside
 * the lock, if the stored access token is no longer the one that was refused, another request or
 * tab has already refreshed, and its pair is used. The new pair is written inside the lock, and the
 * token it replaced recorded where every tab sees it at once (src/lib/refreshHandoff.ts), so a
 * waiting tab whose local storage has not caught up yet waits for the pair instead of refreshing.
 */
export async function refreshStoredTokens({ failedAccessToken }: RefreshInput, signal?: AbortSignal): Promise<TokenPair> {
  return withRefreshLock(async () => {
    const stored = tokenStorage.read();
    if (stored.accessToken && stored.refreshToken && stored.accessToken !== failedAccessToken) {
      return { access_token: stored.accessToken, refresh_token: stored.refreshToken };
    }
    if (!stored.refreshToken) throw new ApiRequestError('No refresh token', 401, 'missing_token');
    const handedOn = await pairFromAnotherTab(stored.refreshToken);
    if (handedOn) return handedOn;
    const pair = await authApi.refresh(stored.refreshToken, { signal });
    tokenStorage.write(pair);
    await recordExchanged(stored.refreshToken);
    return pair;
  });
}

export const authActors = {
  /** The session check; the team role it answers is remembered for the team page's next first calls (src/firstCalls.ts). */
  fetchUser: fromPromise<User>(async ({ signal }) => {
    const user = await authApi.me({ signal });
    tokenStorage.writeTeamRoleOf(user);
    return user;
  }),
  login: fromPromise<AuthResponse, LoginInput>(({ input, signal }) => authApi.login(input, { signal })),
  /** The second step: a code, or the browser's passkey prompt for the account's own passkeys (its own chunk, loaded then). */
  loginSecondFactor: fromPromise<AuthResponse, SecondFactorInput>(async ({ input, signal }) =>
    input.method === 'webauthn'
      ? (await import(/* webpackChunkName: "webauthn" */ '../shared/passkeyCeremony')).secondStepWithPasskey(input.mfa_token, signal)
      : authApi.loginSecondFactor(input, { signal }),
  ),
  /** Options from the server, the browser's passkey prompt, then the signed answer: the usual auth response. */
  passkeySignIn: fromPromise<AuthResponse>(async ({ signal }) =>
    (await import(/* webpackChunkName: "webauthn" */ '../shared/passkeyCeremony')).signInWithPasskey(signal),
  ),
  register: fromPromise<AuthResponse, RegisterInput>(({ input, signal }) => authApi.register(input, { signal })),
  refreshTokens: fromPromise<TokenPair, RefreshInput>(({ input, signal }) => refreshStoredTokens(input, signal)),
  logout: fromPromise<void>(({ signal }) => authApi.logout({ signal })),
  /** Another tab signing in or out shows up here as a storage event on the access token. */
  storageEvents: fromCallback<{ type: 'noop' }>(({ sendBack }) => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== ACCESS_TOKEN_KEY && event.key !== null) return;
      if (event.newValue === null) sendBack({ type: 'session.signedOutElsewhere' });
      else if (event.oldValue === null) sendBack({ type: 'session.signedInElsewhere' });
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }),
};
