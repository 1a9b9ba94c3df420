import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { BrowserRouter, useRoutes } from 'react-router-dom';
import type { RuntimeConfig } from '../lib/runtimeConfig';
import { AppProviders } from './AppProviders';
import { preloadRoutes, routes } from './routes';

function AppRoutes() {
  return useRoutes(routes);
}

/**
 * Starts the SPA in `root`. A prerendered page arrives as HTML (build/prerender.ts) and React
 * takes over its markup; any other page arrives as the empty shell and is rendered here. Either
 * way the current page's chunk is loaded first, so the first render is the page itself.
 *
 * The first render is a transition, which React splits into short tasks that leave the page
 * responsive, instead of one long task.
 */
export async function mountApp(root: HTMLElement, config: RuntimeConfig, nonce?: string): Promise<Root> {
  await preloadRoutes(routes, window.location.pathname);
  const app = (
    <StrictMode>
      <AppProviders config={config} nonce={nonce}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </AppProviders>
    </StrictMode>
  );
  if (root.firstElementChild) {
    let hydrated!: Root;
    startTransition(() => {
      hydrated = hydrateRoot(root, app);
    });
    return hydrated;
  }
  const created = createRoot(root);
  startTransition(() => created.render(app));
  return created;
}
