import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { LoginInput, RefreshInput, RegisterInput } from '../../machines/auth/auth.actors';
import { authMachine } from '../../machines/auth/auth.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type AuthResponse, type User } from '../../machines/shared/api';
import { tokenStorage, type TokenPair } from '../../machines/shared/tokenStorage';
import { worded } from '../helpers/words';

const user: User = {
  id: 'u1',
  email: 'ada@example.com',
  full_name: 'Ada Lovelace',
  username: 'ada',
  created_at: '2026-11-01T00:00:00.000Z',
  email_verified: true,
  subscription_plan: 'free',
};
const pair = (n: number): TokenPair => ({ access_token: `access-${n}`, refresh_token: `refresh-${n}` });
const unauthorized = () => new ApiRequestError('API Error: Unauthorized', 401, 'invalid_token');

interface Fakes {
  fetchUser?: () => Promise<User>;
  login?: () => Promise<AuthResponse>;
  register?: () => Promise<AuthResponse>;
  refreshTokens?: () => Promise<TokenPair>;
  logout?: () => Promise<void>;
}

function start(fakes: Fakes = {}) {
  const notes: Array<ReturnType<typeof worded>> = [];
  const navigations: string[] = [];
  const calls: string[] = [];
  const track = <T, I = void>(name: string, fn: (() => Promise<T>) | undefined) =>
    fromPromise<T, I>(async () => {
      calls.push(name);
      if (!fn) throw new Error(`unexpected call: ${name}`);
      return fn();
    });
  const actor = createActor(
    authMachine.provide({
      actors: {
        fetchUser: track('fetchUser', fakes.fetchUser),
        login: track<AuthResponse, LoginInput>('login', fakes.login),
        register: track<AuthResponse, RegisterInput>('register', fakes.register),
        refreshTokens: track<TokenPair, RefreshInput>('refreshTokens', fakes.refreshTokens),
        logout: track('logout', fakes.logout),
        storageEvents: fromCallback(() => undefined),
      },
      actions: {
        notify: (_, params) => notes.push(worded(params)),
        navigate: (_, params) => navigations.push(params.to),
      },
      delays: { loginRedirectDelay: 10 },
    }),
  ).start();
  return { actor, notes, navigations, calls };
}

beforeEach(() => localStorage.clear());

describe('auth chart', () => {
  it('starts signed out with no stored token, without calling the server', () => {
    const { actor, calls } = start();
    expect(actor.getSnapshot().hasTag('signedOut')).toBe(true);
    expect(calls).toEqual([]);
  });

  it('fetches the current user on start when a token is stored', async () => {
    tokenStorage.write(pair(1));
    const { actor } = start({ fetchUser: async () => user });
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    expect(actor.getSnapshot().context.user).toEqual(user);
  });

  it('refreshes once on a 401 at start, retries, and signs in', async () => {
    tokenStorage.write(pair(1));
    let first = true;
    const { actor, calls } = start({
      fetchUser: async () => {
        if (first) {
          first = false;
          throw unauthorized();
        }
        return user;
      },
      refreshTokens: async () => pair(2),
    });
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    expect(calls).toEqual(['fetchUser', 'refreshTokens', 'fetchUser']);
  });

  it('removes both tokens when the start-up fetch fails', async () => {
    tokenStorage.write(pair(1));
    const { actor } = start({ fetchUser: async () => Promise.reject(new ApiRequestError('x', 500)) });
    await waitFor(actor, (s) => s.hasTag('signedOut'));
    expect(tokenStorage.read()).toEqual({ accessToken: null, refreshToken: null });
  });

  it('signs in: stores tokens, welcomes, then navigates to the remembered page', async () => {
    const { actor, notes, navigations } = start({ login: async () => ({ ...pair(3), user }) });
    actor.send({ type: 'login.submit', email: user.email, password: 'pw', redirectTo: '/profile' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await waitFor(actor, (s) => s.matches({ signedIn: 'welcoming' }));
    expect(tokenStorage.read().accessToken).toBe('access-3');
    expect(notes).toEqual([{ type: 'success', title: messages.auth.welcomeBack, description: messages.auth.welcomeBackText }]);
    await waitFor(actor, (s) => s.matches({ signedIn: 'active' }));
    expect(navigations).toEqual(['/profile']);
  });

  it('fetches the user when the login answer has none', async () => {
    const { actor, calls } = start({ login: async () => pair(4), fetchUser: async () => user });
    actor.send({ type: 'login.submit', email: user.email, password: 'pw' });
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    expect(calls).toEqual(['login', 'fetchUser']);
    expect(actor.getSnapshot().context.redirectTo).toBe('/dashboard');
  });

  it("fails with 'Invalid user data received' for a user without id or email", async () => {
    const { actor, notes } = start({ login: async () => ({ ...pair(5), user: { ...user, id: '' } }) });
    actor.send({ type: 'login.submit', email: user.email, password: 'pw' });
    await waitFor(actor, (s) => s.matches({ signedOut: 'idle' }) && s.context.failure !== null);
    expect(notes.at(-1)).toMatchObject({ type: 'error', title: 'Login failed', description: 'Invalid user data received' });
  });

  it.each([
    [new ApiRequestError('API Error: Unauthorized', 401), messages.auth.loginUnauthorized],
    [new ApiRequestError('API Error: Bad Request', 400), messages.auth.loginBadRequest],
    [new ApiRequestError('network', 0), messages.auth.networkFailure],
    [new ApiRequestError('API Error: Internal Server Error', 500), messages.auth.loginOther],
    [new ApiRequestError('API Error: Too Many Requests', 429, 'rate_limited', null, 600), messages.auth.tooManyAttempts(600)],
  ])('explains a failed login (%s)', async (error, description) => {
    const { actor, notes } = start({ login: () => Promise.reject(error) });
    actor.send({ type: 'login.submit', email: user.email, password: 'pw' });
    await waitFor(actor, (s) => s.context.failure !== null);
    expect(notes).toEqual([{ type: 'error', title: 'Login failed', description }]);
  });

  it('registers, stores tokens, says so and goes to the dashboard', async () => {
    const { actor, notes, navigations } = start({ register: async () => ({ ...pair(6), user }) });
    actor.send({ type: 'register.submit', email: user.email, password: 'pw', full_name: 'Ada', username: 'ada' });
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    expect(notes[0]).toMatchObject({ title: 'Account created!' });
    expect(navigations).toEqual(['/dashboard']);
  });

  it('shares one refresh between 401s and ignores a 401 of an older token', async () => {
    tokenStorage.write(pair(1));
    let release!: () => void;
    const { actor, calls } = start({
      fetchUser: async () => user,
      refreshTokens: () =>
        new Promise((resolve) => {
          release = () => {
            tokenStorage.write(pair(2));
            resolve(pair(2));
          };
        }),
    });
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    actor.send({ type: 'session.expired', accessToken: 'access-1' });
    actor.send({ type: 'session.expired', accessToken: 'access-1' });
    expect(actor.getSnapshot().hasTag('refreshing')).toBe(true);
    release();
    await waitFor(actor, (s) => s.matches({ signedIn: 'active' }));
    actor.send({ type: 'session.expired', accessToken: 'access-1' });
    expect(actor.getSnapshot().matches({ signedIn: 'active' })).toBe(true);
    expect(calls.filter((c) => c === 'refreshTokens')).toHaveLength(1);
  });

  it('signs out when the refresh fails', async () => {
    tokenStorage.write(pair(1));
    const { actor, notes } = start({ fetchUser: async () => user, refreshTokens: () => Promise.reject(unauthorized()) });
    await waitFor(actor, (s) => s.hasTag('signedIn'));
    actor.send({ type: 'session.expired', accessToken: 'access-1' });
    await waitFor(actor, (s) => s.hasTag('signedOut'));
    expect(tokenStorage.read().accessToken).toBeNull();
    expect(notes.at(-1)).toMatchObject({ title: messages.auth.sessionEnded });
  });

  it('logs out whatever the server answers', async () => {
    for (const logout of [async () => undefined, () => Promise.reject(new ApiRequestError('network', 0))]) {
      localStorage.clear();
      tokenStorage.write(pair(1));
      const { actor, notes } = start({ fetchUser: async () => user, logout });
      await waitFor(actor, (s) => s.hasTag('signedIn'));
      actor.send({ type: 'logout' });
      await waitFor(actor, (s) => s.hasTag('signedOut'));
      expect(actor.getSnapshot().context.user).toBeNull();
      expect(tokenStorage.read()).toEqual({ accessToken: null, refreshToken: null });
      expect(notes.at(-1)).toMatchObject({ title: 'Logged out' });
    }
  });
});
