import { startTransition, StrictMode, Suspense } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { BrowserRouter, useRoutes } from 'react-router-dom';
import { PageSpinner } from '../components/PageSpinner';
import { nextTask } from '../lib/nextTask';
import type { RuntimeConfig } from '../../contract/runtimeConfig';
import { AppProviders } from './AppProviders';
import { preloadBanners } from './Layout';
import { fixKnownAnswers, knownAnswer } from '../../machines/shared/earlyCalls';
import { LOAD_PATHS } from '../../machines/shared/loadPaths';
import { loadApiClient, type User } from '../../machines/shared/api';
import { pageSettled } from '../lib/pageSettled';
import { preloadRoutes, routes } from './routes';

function AppRoutes() {
  return useRoutes(routes);
}

/**
 * Starts the SPA in `root`. A prerendered page arrives as HTML (build/prerender.ts) and React
 * takes over its markup; any other page arrives as the empty shell and is rendered here. Either
 * way the current page's chunk is loaded first, so the first render is the page itself; so are
 * the banners above it, when the session check the page sent early has answered already (the
 * auth chart then starts signed in, machines/shared/earlyCalls.ts).
 */
export async function mountApp(root: HTMLElement, config: RuntimeConfig, nonce?: string): Promise<Root> {
  fixKnownAnswers();
  // A page drawn from its early calls' answers needs the HTTP client only for what comes next (a
  // person's first action, a refresh): it loads once the page is drawn, not beside the page's own code.
  // Should it fail to load (offline), the first call tries again.
  pageSettled().then(loadApiClient).catch(() => undefined);
  await Promise.all([preloadRoutes(routes, window.location.pathname), preloadBanners(knownAnswer<User>(LOAD_PATHS.me))]);
  await nextTask();
  const app = (routeTree: React.ReactNode) => (
    <StrictMode>
      <AppProviders config={config} nonce={nonce}>
        <BrowserRouter>{routeTree}</BrowserRouter>
      </AppProviders>
    </StrictMode>
  );
  if (root.firstElementChild) {
    // As a transition, React hydrates in slices of a few milliseconds and lets the browser paint
    // and take input between them; otherwise the whole page is one long task on a slow phone.
    let hydrated: Root | undefined;
    startTransition(() => {
      hydrated = hydrateRoot(root, app(<AppRoutes />));
    });
    return hydrated!;
  }
  const created = createRoot(root);
  // A spinner in case a page ever has to be waited for (the one above is already loaded). Rendered
  // as a transition too, for the same reason: the signed-in pages arrive as the empty shell, and
  // their first render, Chakra's styles and all, would otherwise be one task of up to a second on a
  // slow phone (Lighthouse at 4x CPU).
  startTransition(() => {
    created.render(
      app(
        <Suspense fallback={<PageSpinner />}>
          <AppRoutes />
        </Suspense>,
      ),
    );
  });
  return created;
}
