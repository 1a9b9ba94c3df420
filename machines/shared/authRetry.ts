import { waitFor, type ActorRef, type Snapshot } from 'xstate';
import { ApiRequestError } from './api';
import { tokenStorage } from './tokenStorage';

/**
 * What the charts see of the auth chart's actor: the tags they wait on and the one event they send.
 * Written as a shape rather than imported from the auth chart, so that charts depend on this
 * folder only (docs/architecture.md, "Dependency rules").
 */
export type AuthActorRef = ActorRef<Snapshot<unknown> & { hasTag(tag: 'refreshing' | 'signedIn'): boolean }, { type: 'session.expired'; accessToken: string | null }>;

/** Every authenticated call is given the auth actor: a 401 refreshes once and retries once. */
export interface AuthInput {
  auth: AuthActorRef;
}

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
