import { act, render, waitFor, type RenderResult } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { Suspense, type ReactNode } from 'react';
import { fromPromise } from 'xstate';
import { authMachine as realAuthMachine } from '../../machines/auth/auth.machine';
import { useAuthSelector } from '../../src/app/auth';
import { MemoryRouter, useLocation, useNavigate, useRoutes, type Location, type NavigateFunction, type RouteObject } from 'react-router-dom';
import { AppProviders } from '../../src/app/AppProviders';
import { AuthProvider } from '../../src/app/auth';
import { MembershipProvider } from '../../src/app/membership';
import { PageSpinner } from '../../src/components/PageSpinner';
import { Toaster } from '../../src/components/Toaster';
import type { AuthMachine } from '../../machines/auth/auth.machine';
import { createRoutes } from '../../src/app/routes';
import { defaultRuntimeConfig, type RuntimeConfig } from '../../contract/runtimeConfig';
import type { ActorOutcome } from './chartModel';
import { ada } from './fixtures';

/** What a test reads of the router and does with it: where it is, and going somewhere else. */
export interface TestRouter {
  state: { location: Location };
  navigate: (to: string) => Promise<void>;
}

/** Renders `routes` in a memory router at `path`, handing the test a view of the router. */
function renderRoutes(path: string, routes: RouteObject[], config: RuntimeConfig): RenderResult & { router: TestRouter } {
  const seen: { location?: Location; navigate?: NavigateFunction } = {};
  function Routes() {
    seen.location = useLocation();
    seen.navigate = useNavigate();
    return useRoutes(routes);
  }
  const router: TestRouter = {
    get state() {
      return { location: seen.location! };
    },
    navigate: async (to) => {
      await seen.navigate!(to);
    },
  };
  const result = render(
    <AppProviders config={config}>
      <MemoryRouter initialEntries={[path]}>
        {/* As in the browser when a page is rendered there (src/app/mountApp.tsx): its chunk may be waited for. */}
        <Suspense fallback={<PageSpinner />}>
          <Routes />
        </Suspense>
      </MemoryRouter>
    </AppProviders>,
  );
  return { ...result, router };
}

/** Renders the real route tree at `path`, with the real providers. */
export function renderApp(path: string, config: Partial<RuntimeConfig> = {}, authMachine?: AuthMachine): RenderResult & { router: TestRouter } {
  return renderRoutes(path, createRoutes(authMachine), { ...defaultRuntimeConfig, ...config });
}

/**
 * Renders one page at `path` under the auth provider (running `authMachine`) and the toasts, with
 * the real providers: for tests that hand the page a chart of their own. `entry` is the address
 * the page opens at, when it carries a query.
 */
export function renderPage(path: string, authMachine: AuthMachine, page: ReactNode, entry = path): RenderResult & { router: TestRouter } {
  const element = (
    <AuthProvider machine={authMachine}>
      <MembershipProvider>{page}</MembershipProvider>
      <Toaster />
    </AuthProvider>
  );
  return renderRoutes(entry, [{ path, element }], defaultRuntimeConfig);
}

/**
 * Renders `page` at `path` for a person already signed in (a stored token, answered with `ada`),
 * once the session is known, as the account pages' route guard shows them.
 */
export function renderSignedIn(path: string, page: ReactNode): RenderResult {
  const auth = realAuthMachine.provide({ guards: { hasStoredToken: () => true }, actors: { fetchUser: fromPromise(async () => ada) } });
  function Gate() {
    return useAuthSelector((s) => s.hasTag('signedIn')) ? page : null;
  }
  return renderPage(path, auth, <Gate />);
}

/**
 * The calls of a chart's fake actors, each held until the path being replayed says how it ends
 * (jsdom runners).
 */
export class HeldActorCalls {
  private readonly pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();

  /** A promise actor whose call `name` waits for `settle`; `onStart` sees its input. */
  actor<T, I>(name: string, onStart?: (input: I) => void) {
    return fromPromise<T, I>(({ input }) => {
      onStart?.(input);
      return new Promise<T>((resolve, reject) => this.pending.set(name, { resolve: resolve as (value: unknown) => void, reject }));
    });
  }

  /** Ends the held call `name` as the path's actor event says (its output, or its error). */
  async settle(name: string, event: ActorOutcome): Promise<void> {
    await waitFor(() => expect(this.pending.has(name)).toBe(true));
    const call = this.pending.get(name)!;
    this.pending.delete(name);
    await act(async () => ('error' in event && event.error ? call.reject(event.error) : call.resolve(event.output)));
  }
}

/**
 * Puts `value` into an empty field as one change, as pasting or a password manager does: what a
 * chart's model calls one event. Typing key by key is what tests/ui and tests/e2e do; in every
 * generated path it would only repeat that at many times the cost.
 */
export async function pasteInto(browser: UserEvent, field: HTMLElement, value: string): Promise<void> {
  await browser.clear(field);
  await browser.click(field);
  await browser.paste(value);
}
