import { waitFor, type ActorRefFrom } from 'xstate';
import { ApiRequestError } from '../../src/lib/api';
import { tokenStorage } from '../../src/lib/tokenStorage';
import type { AuthMachine } from './auth.machine';

export type AuthActorRef = ActorRefFrom<AuthMachine>;

/**
 * Runs an authenticated call for another chart's actor; on a 401 it tells the auth chart (which
 * refreshes once for all callers, in `signedIn.refreshing`), waits for the chart to leave that
 * state, then retries once. The refresh itself is the auth chart's: this only waits for it.
 */
export async function withAuthRetry<T>(auth: AuthActorRef, call: () => Promise<T>): Promise<T> {
  const usedToken = tokenStorage.read().accessToken;
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiRequestError) || error.status !== 401) throw error;
    auth.send({ type: 'session.expired', accessToken: usedToken });
    const settled = await waitFor(auth, (snapshot) => !snapshot.hasTag('refreshing'));
    if (!settled.hasTag('signedIn')) throw error;
    return call();
  }
}
