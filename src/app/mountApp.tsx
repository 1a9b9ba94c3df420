import { StrictMode } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import type { RuntimeConfig } from '../lib/runtimeConfig';
import { AppProviders } from './AppProviders';
import { resolveLazyRoutes, routes } from './routes';

/**
 * Starts the SPA in `root`. A public page arrives prerendered (build/prerender.ts) and React takes
 * over its HTML; any other page arrives as the empty shell and is rendered here. Either way the
 * current page's chunk is loaded first, so the first render is the page itself.
 */
export async function mountApp(root: HTMLElement, config: RuntimeConfig, nonce?: string): Promise<Root> {
  await resolveLazyRoutes(routes, window.location.pathname);
  const app = (
    <StrictMode>
      <AppProviders config={config} nonce={nonce}>
        <RouterProvider router={createBrowserRouter(routes)} />
      </AppProviders>
    </StrictMode>
  );
  if (root.firstElementChild) return hydrateRoot(root, app);
  const created = createRoot(root);
  created.render(app);
  return created;
}
