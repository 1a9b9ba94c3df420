import { render, type RenderResult } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from '../../src/app/AppProviders';
import type { AuthMachine } from '../../machines/auth/auth.machine';
import { createRoutes } from '../../src/app/routes';
import { defaultRuntimeConfig, type RuntimeConfig } from '../../src/lib/runtimeConfig';

/** Renders the real route tree at `path`, with the real providers. */
export function renderApp(
  path: string,
  config: Partial<RuntimeConfig> = {},
  authMachine?: AuthMachine,
): RenderResult & { router: ReturnType<typeof createMemoryRouter> } {
  const router = createMemoryRouter(createRoutes(authMachine), { initialEntries: [path] });
  const result = render(
    <AppProviders config={{ ...defaultRuntimeConfig, ...config }}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, router };
}
