import { render, type RenderResult } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from '../../src/app/AppProviders';
import { routes } from '../../src/app/routes';
import { defaultRuntimeConfig, type RuntimeConfig } from '../../src/lib/runtimeConfig';

/** Renders the real route tree at `path`, with the real providers. */
export function renderApp(path: string, config: Partial<RuntimeConfig> = {}): RenderResult {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  return render(
    <AppProviders config={{ ...defaultRuntimeConfig, ...config }}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
}
