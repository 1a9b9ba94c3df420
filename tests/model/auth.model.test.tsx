import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { authMachine, type AuthEvent } from '../../machines/auth/auth.machine';
import type { SecondFactorInput } from '../../machines/auth/auth.actors';
import * as messages from '../../src/content/messages';
import type { AuthResponse, User } from '../../machines/shared/api';
import { tokenStorage, type TokenPair } from '../../machines/shared/tokenStorage';
import { afterEvent, describeChartPaths } from '../helpers/chartModel';
import { pasteInto, renderApp } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { toaster } from '../../src/components/ToastRegion';
import { authCoverage, authOutcomes, authPaths, authViews, credentials, invokeIdOf, pair, registration, STALE_ACCESS_TOKEN } from './auth.paths';

/**
 * Model-based tests of the auth chart: `xstate/graph` walks the chart and yields the shortest
 * path to every transition (auth.paths.ts); each path is replayed against the real pages in jsdom,
 * with the chart's HTTP actors replaced by a fake API that the path resolves step by step, and
 * what the user sees is checked in every state the path visits. tests/paths replays the same
 * paths in Chromium against the real server.
 */

/** Which fake actor answers each invocation of the chart. */
const SOURCE_OF: Record<string, string> = {
  fetchUser: 'fetchUser',
  retryUser: 'fetchUser',
  loginUser: 'fetchUser',
  startupRefresh: 'refreshTokens',
  refresh: 'refreshTokens',
  login: 'login',
  secondFactor: 'loginSecondFactor',
  passkeySignIn: 'passkeySignIn',
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

const topBar = () => within(screen.getByRole('banner'));

// jsdom has no WebAuthn; the login page offers "Sign in with a passkey" only where the browser has it.
beforeAll(() => {
  Object.defineProperty(globalThis, 'PublicKeyCredential', { value: function PublicKeyCredential() {}, configurable: true });
});
afterAll(() => {
  delete (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
});

const stateChecks = inJsdom(authViews);

describeChartPaths('auth chart, generated paths', 'auth', { coverage: authCoverage, paths: authPaths }, async ({ path, storedToken }) => {
  localStorage.clear();
  toaster.remove();
  if (storedToken) tokenStorage.write({ access_token: 'access-old', refresh_token: 'refresh-old' });
  const api = new FakeApi();
  let authSend: ((event: AuthEvent) => void) | undefined;
  const machine = authMachine.provide({
    actors: {
      fetchUser: api.actor<User, unknown>('fetchUser'),
      login: api.actor<AuthResponse, typeof credentials>('login'),
      loginSecondFactor: api.actor<AuthResponse, SecondFactorInput>('loginSecondFactor'),
      passkeySignIn: api.actor<AuthResponse, unknown>('passkeySignIn'),
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

  const settle = (type: string) => (step: { event: EventObject }) =>
    api.settle(SOURCE_OF[invokeIdOf(type)]!, step.event as { output?: unknown; error?: unknown });
  const events: Record<string, (step: { event: EventObject }) => Promise<void>> = {
    'login.submit': async () => {
      await goTo('/login');
      await pasteInto(browser, await screen.findByLabelText(/^Email/), credentials.email);
      await pasteInto(browser, screen.getByLabelText(/^Password/), credentials.password);
      await browser.click(screen.getByRole('button', { name: messages.login.submit }));
    },
    'passkey.submit': async () => {
      await goTo('/login');
      await browser.click(await screen.findByRole('button', { name: messages.login.passkey }));
    },
    'register.submit': async () => {
      await goTo('/register');
      await pasteInto(browser, await screen.findByLabelText(/^Full Name/), registration.full_name);
      await pasteInto(browser, screen.getByLabelText(/^Username/), registration.username);
      await pasteInto(browser, screen.getByLabelText(/^Email/), registration.email);
      await pasteInto(browser, screen.getByLabelText(/^Password/), registration.password);
      await pasteInto(browser, screen.getByLabelText(/^Confirm Password/), registration.password);
      await browser.click(screen.getByRole('button', { name: messages.register.submit }));
    },
    logout: async () => {
      await browser.click(topBar().getByRole('button', { name: messages.layout.logout }));
    },
    'mfa.submit': async ({ event }) => {
      const step = messages.secondStep;
      const field = await screen.findByLabelText(new RegExp(`^(${step.totpLabel}|${step.recoveryLabel})`));
      await browser.clear(field);
      await pasteInto(browser, field, (event as Extract<AuthEvent, { type: 'mfa.submit' }>).code);
      await browser.click(screen.getByRole('button', { name: step.submit }));
    },
    'mfa.method': async ({ event }) => {
      const step = messages.secondStep;
      const { method } = event as Extract<AuthEvent, { type: 'mfa.method' }>;
      await browser.click(await screen.findByRole('button', { name: method === 'recovery_code' ? step.useRecovery : step.useTotp }));
    },
    'mfa.cancel': async () => {
      await browser.click(await screen.findByRole('button', { name: messages.secondStep.back }));
    },
    'session.expired': async ({ event }) => {
      const { accessToken } = event as Extract<AuthEvent, { type: 'session.expired' }>;
      const used = accessToken === pair.access_token ? tokenStorage.read().accessToken : STALE_ACCESS_TOKEN;
      await act(async () => authSend?.({ type: 'session.expired', accessToken: used }));
    },
    'session.signedOutElsewhere': async () => {
      await act(async () => authSend?.({ type: 'session.signedOutElsewhere' }));
    },
    'session.signedInElsewhere': async () => {
      await act(async () => authSend?.({ type: 'session.signedInElsewhere' }));
    },
    // The delay is over once its transition has taken the page on from the form it was sent from.
    [afterEvent('loginRedirectDelay')]: async () => {
      await waitFor(() => expect(router.state.location.pathname).not.toMatch(/^\/(login|register)$/));
    },
  };
  for (const event of Object.values(authOutcomes)) events[event.type] ??= settle(event.type);

  await path.test({ states: stateChecks, events });
  unmount();
}, 20_000);
