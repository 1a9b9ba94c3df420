import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { authMachine, type AuthEvent } from '../../machines/auth/auth.machine';
import { messages } from '../../src/content/messages';
import { ApiRequestError, type AuthResponse, type User } from '../../src/lib/api';
import { tokenStorage, type TokenPair } from '../../src/lib/tokenStorage';
import { afterEvent, toTestModelMachine } from '../helpers/chartModel';
import { renderApp } from '../helpers/renderApp';
import { toaster } from '../../src/components/Toaster';

/**
 * Model-based tests of the auth chart: `xstate/graph` walks the chart and yields the shortest
 * path to every transition; each path is replayed against the real pages in jsdom, with the
 * chart's HTTP actors replaced by a fake API that the path resolves step by step, and what the
 * user sees is checked in every state the path visits.
 */

const user: User = {
  id: 'u-1',
  email: 'ada@example.com',
  full_name: 'Ada Lovelace',
  username: 'ada',
  created_at: '2026-11-01T09:00:00.000Z',
  subscription_plan: 'free',
};
const pair: TokenPair = { access_token: 'access-current', refresh_token: 'refresh-current' };
const unauthorized = new ApiRequestError('API Error: Unauthorized', 401, 'invalid_token');
const serverError = new ApiRequestError('API Error: Internal Server Error', 500);
const conflict = new ApiRequestError('API Error: Conflict', 409, 'email_taken');
const network = new ApiRequestError(messages.api.network, 0);
const credentials = { email: 'ada@example.com', password: 'Analytical-Engine-1843' };
const registration = { ...credentials, full_name: 'Ada Lovelace', username: 'ada' };

/** The done and error events of the chart's actors, one per branch the chart tells apart. */
type ActorEvent = { type: string; output?: unknown; error?: unknown };
const actorEvents: ActorEvent[] = [
  { type: 'xstate.done.actor.fetchUser', output: user },
  { type: 'xstate.error.actor.fetchUser', error: unauthorized },
  { type: 'xstate.error.actor.fetchUser', error: serverError },
  { type: 'xstate.done.actor.startupRefresh', output: pair },
  { type: 'xstate.error.actor.startupRefresh', error: unauthorized },
  { type: 'xstate.done.actor.retryUser', output: user },
  { type: 'xstate.error.actor.retryUser', error: serverError },
  { type: 'xstate.done.actor.login', output: { ...pair, user } },
  { type: 'xstate.done.actor.login', output: pair },
  { type: 'xstate.done.actor.login', output: { ...pair, user: { ...user, id: '' } } },
  { type: 'xstate.error.actor.login', error: unauthorized },
  { type: 'xstate.done.actor.loginUser', output: user },
  { type: 'xstate.done.actor.loginUser', output: { ...user, email: '' } },
  { type: 'xstate.error.actor.loginUser', error: serverError },
  { type: 'xstate.done.actor.register', output: { ...pair, user } },
  { type: 'xstate.done.actor.register', output: { ...pair, user: { ...user, id: '' } } },
  { type: 'xstate.error.actor.register', error: conflict },
  { type: 'xstate.done.actor.logout', output: undefined },
  { type: 'xstate.error.actor.logout', error: network },
  { type: 'xstate.done.actor.refresh', output: pair },
  { type: 'xstate.error.actor.refresh', error: unauthorized },
];
const userEvents: AuthEvent[] = [
  { type: 'login.submit', ...credentials },
  { type: 'register.submit', ...registration },
  { type: 'logout' },
  { type: 'session.expired', accessToken: pair.access_token },
  { type: 'session.expired', accessToken: 'access-stale' },
  { type: 'session.signedOutElsewhere' },
  { type: 'session.signedInElsewhere' },
];

/** Which fake actor answers each invocation of the chart. */
const SOURCE_OF: Record<string, string> = {
  fetchUser: 'fetchUser',
  retryUser: 'fetchUser',
  loginUser: 'fetchUser',
  startupRefresh: 'refreshTokens',
  refresh: 'refreshTokens',
  login: 'login',
  register: 'register',
  logout: 'logout',
};

/** A fake API: every call waits until the path says how it ends. */
class FakeApi {
  private pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();

  actor<T, I>(src: string) {
    return fromPromise<T, I>(
      () =>
        new Promise<T>((resolve, reject) => {
          this.pending.set(src, { resolve: resolve as (v: unknown) => void, reject });
        }),
    );
  }

  async settle(src: string, outcome: { output?: unknown; error?: unknown }) {
    await waitFor(() => expect(this.pending.has(src)).toBe(true));
    const call = this.pending.get(src)!;
    this.pending.delete(src);
    await act(async () => {
      if ('error' in outcome && outcome.error !== undefined) call.reject(outcome.error);
      else call.resolve(outcome.output);
    });
  }
}

const noop = () => undefined;

function modelOf(storedToken: boolean) {
  const chart = authMachine.provide({
    guards: {
      hasStoredToken: () => storedToken,
      isCurrentToken: (_, accessToken) => accessToken === pair.access_token,
    },
    actions: { storeTokens: noop, removeTokens: noop, notify: noop, navigate: noop },
  });
  return createTestModel(
    toTestModelMachine(chart),
    {
      events: [...actorEvents, ...userEvents],
      // States differ by value and by the transition into them; the context (user, last failure)
      // would only multiply the same screens.
      serializeState: (state, event, previous) =>
        `${JSON.stringify(state.value)}|${event ? JSON.stringify(event) : ''}|${previous ? JSON.stringify(previous.value) : ''}`,
    },
  );
}

const visible = (text: string | RegExp) => screen.queryAllByText(text).length > 0;
const topBar = () => within(screen.getByRole('banner'));

/** What the user sees in each state of the chart. */
const stateChecks = {
  loading: async () => {
    // Nothing signed-in shows while the session is checked (the guarded page shows a spinner).
    await screen.findByRole('banner');
    expect(topBar().queryByRole('button', { name: messages.layout.logout })).toBeNull();
    expect(topBar().queryByText(messages.layout.welcome(user.full_name))).toBeNull();
  },
  'signedOut.idle': async () => {
    await waitFor(() => expect(topBar().getByRole('link', { name: messages.layout.login })).toBeInTheDocument());
    expect(topBar().getByRole('link', { name: messages.layout.signUp })).toBeInTheDocument();
  },
  'signedOut.signingIn': async () => {
    await waitFor(() => expect(screen.getByRole('button', { name: messages.login.busy })).toBeInTheDocument());
  },
  'signedOut.fetchingLoginUser': async () => {
    await waitFor(() => expect(screen.getByRole('button', { name: messages.login.busy })).toBeInTheDocument());
  },
  'signedOut.registering': async () => {
    await waitFor(() => expect(screen.getByRole('button', { name: messages.register.busy })).toBeInTheDocument());
  },
  'signedIn.welcoming': async () => {
    await waitFor(() => expect(visible(messages.auth.welcomeBack)).toBe(true));
    expect(topBar().getByText(messages.layout.welcome(user.full_name))).toBeInTheDocument();
  },
  'signedIn.active': async () => {
    await waitFor(() => expect(topBar().getByText(messages.layout.welcome(user.full_name))).toBeInTheDocument());
    expect(topBar().getByRole('button', { name: messages.layout.logout })).toBeInTheDocument();
  },
  'signedIn.refreshing': async () => {
    expect(topBar().getByText(messages.layout.welcome(user.full_name))).toBeInTheDocument();
  },
  'signedIn.loggingOut': async () => {
    await waitFor(() => expect(topBar().getByRole('button', { name: messages.layout.logout })).toHaveAttribute('data-loading'));
  },
};

const paths = [
  ...modelOf(false).getShortestPaths().map((path) => ({ path, storedToken: false })),
  ...modelOf(true).getShortestPaths().map((path) => ({ path, storedToken: true })),
];

describe('auth chart, generated paths', () => {
  afterAll(() => {
    const states = new Set<string>();
    const transitions = new Set<string>();
    for (const { path } of paths) {
      for (const step of path.steps) {
        step.state._nodes.forEach((node: { id: string }) => states.add(node.id));
        transitions.add(step.event.type);
      }
    }
    console.log(`auth chart: ${paths.length} generated paths, ${states.size} state nodes and ${transitions.size} event types visited`);
  });

  it('covers every state of the chart', () => {
    // Transient states (only `always` transitions) are passed through, never rested in.
    const nodes = [...(authMachine as unknown as { idMap: Map<string, { always?: unknown[] }> }).idMap.entries()];
    const ids = nodes.filter(([, node]) => !node.always?.length).map(([id]) => id);
    const visited = new Set(paths.flatMap(({ path }) => path.steps.flatMap((step) => step.state._nodes.map((n: { id: string }) => n.id))));
    expect(ids.filter((id) => !visited.has(id))).toEqual([]);
  });

  it.each(paths.map(({ path, storedToken }) => [`${storedToken ? '[stored token] ' : ''}${path.description}`, path, storedToken] as const))(
    '%s',
    async (_title, path, storedToken) => {
      localStorage.clear();
      toaster.remove();
      if (storedToken) tokenStorage.write({ access_token: 'access-old', refresh_token: 'refresh-old' });
      const api = new FakeApi();
      let authSend: ((event: AuthEvent) => void) | undefined;
      const machine = authMachine.provide({
        actors: {
          fetchUser: api.actor<User, unknown>('fetchUser'),
          login: api.actor<AuthResponse, typeof credentials>('login'),
          register: api.actor<AuthResponse, typeof registration>('register'),
          refreshTokens: api.actor<TokenPair, { failedAccessToken: string | null }>('refreshTokens'),
          logout: api.actor<void, unknown>('logout'),
          // The model sends the "elsewhere" events itself; this stands in for the storage listener.
          storageEvents: fromCallback(({ sendBack }) => {
            authSend = sendBack as (event: AuthEvent) => void;
          }),
        },
        guards: { isCurrentToken: (_, accessToken) => accessToken === tokenStorage.read().accessToken },
        delays: { loginRedirectDelay: 20 },
      });
      const browser = userEvent.setup();
      const { router, unmount } = renderApp('/dashboard', {}, machine);
      const goTo = async (to: string) => {
        if (router.state.location.pathname !== to) await act(() => router.navigate(to));
      };

      const settle = (type: string) => (step: { event: EventObject }) => {
        const id = type.replace(/^xstate\.(done|error)\.actor\./, '');
        return api.settle(SOURCE_OF[id]!, step.event as { output?: unknown; error?: unknown });
      };
      const events: Record<string, (step: { event: EventObject }) => Promise<void>> = {
        'login.submit': async () => {
          await goTo('/login');
          await browser.type(await screen.findByLabelText(/^Email/), credentials.email);
          await browser.type(screen.getByLabelText(/^Password/), credentials.password);
          await browser.click(screen.getByRole('button', { name: messages.login.submit }));
        },
        'register.submit': async () => {
          await goTo('/register');
          await browser.type(await screen.findByLabelText(/^Full Name/), registration.full_name);
          await browser.type(screen.getByLabelText(/^Username/), registration.username);
          await browser.type(screen.getByLabelText(/^Email/), registration.email);
          await browser.type(screen.getByLabelText(/^Password/), registration.password);
          await browser.type(screen.getByLabelText(/^Confirm Password/), registration.password);
          await browser.click(screen.getByRole('button', { name: messages.register.submit }));
        },
        logout: async () => {
          await browser.click(topBar().getByRole('button', { name: messages.layout.logout }));
        },
        'session.expired': async ({ event }) => {
          const { accessToken } = event as Extract<AuthEvent, { type: 'session.expired' }>;
          const used = accessToken === pair.access_token ? tokenStorage.read().accessToken : 'access-stale';
          await act(async () => authSend?.({ type: 'session.expired', accessToken: used }));
        },
        'session.signedOutElsewhere': async () => {
          await act(async () => authSend?.({ type: 'session.signedOutElsewhere' }));
        },
        'session.signedInElsewhere': async () => {
          await act(async () => authSend?.({ type: 'session.signedInElsewhere' }));
        },
        [afterEvent('loginRedirectDelay')]: async () => {
          await act(() => new Promise((resolve) => setTimeout(resolve, 40)));
        },
      };
      for (const event of actorEvents) events[event.type] ??= settle(event.type);

      await path.test({ states: stateChecks, events });
      unmount();
    },
    20_000,
  );
});
