import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { RefreshInput } from '../../machines/auth/auth.actors';
import { authMachine } from '../../machines/auth/auth.machine';
import { withAuthRetry } from '../../machines/shared/authRetry';
import { ApiRequestError, type User } from '../../machines/shared/api';
import { tokenStorage, type TokenPair } from '../../machines/shared/tokenStorage';

const user = { id: 'u1', email: 'a@example.com', full_name: 'A', username: 'a', created_at: '', subscription_plan: 'free' } as User;

function signedInActor(refresh: () => Promise<TokenPair>) {
  tokenStorage.write({ access_token: 'old', refresh_token: 'r-old' });
  let refreshes = 0;
  const actor = createActor(
    authMachine.provide({
      actors: {
        fetchUser: fromPromise(async () => user),
        refreshTokens: fromPromise<TokenPair, RefreshInput>(async () => {
          refreshes += 1;
          const next = await refresh();
          tokenStorage.write(next);
          return next;
        }),
        storageEvents: fromCallback(() => undefined),
      },
    }),
  ).start();
  return { actor, refreshes: () => refreshes };
}

/** A fake endpoint: 401 for the old token, the answer for any other. */
const endpoint = (answer: string) => async () => {
  if (tokenStorage.read().accessToken === 'old') throw new ApiRequestError('API Error: Unauthorized', 401);
  return answer;
};

beforeEach(() => localStorage.clear());

describe('withAuthRetry', () => {
  it('refreshes once for several refused requests and retries each once', async () => {
    let release!: () => void;
    const { actor, refreshes } = signedInActor(
      () => new Promise((resolve) => (release = () => resolve({ access_token: 'new', refresh_token: 'r-new' }))),
    );
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    const calls = Promise.all(['a', 'b', 'c'].map((answer) => withAuthRetry(actor, endpoint(answer))));
    await waitFor(actor, (s) => s.hasTag('refreshing'));
    release();
    await expect(calls).resolves.toEqual(['a', 'b', 'c']);
    expect(refreshes()).toBe(1);
  });

  it('gives up with the original 401 when the refresh fails, and the user is signed out', async () => {
    const { actor } = signedInActor(() => Promise.reject(new ApiRequestError('API Error: Unauthorized', 401)));
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    await expect(withAuthRetry(actor, endpoint('a'))).rejects.toMatchObject({ status: 401 });
    expect(actor.getSnapshot().hasTag('signedOut')).toBe(true);
  });

  it('retries only once: a second 401 is passed on', async () => {
    const { actor } = signedInActor(async () => ({ access_token: 'new', refresh_token: 'r-new' }));
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    let attempts = 0;
    const alwaysRefused = async () => {
      attempts += 1;
      throw new ApiRequestError('API Error: Unauthorized', 401);
    };
    await expect(withAuthRetry(actor, alwaysRefused)).rejects.toMatchObject({ status: 401 });
    expect(attempts).toBe(2);
  });
});
