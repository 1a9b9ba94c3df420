import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from './app/AppProviders';
import { routes } from './app/routes';
import { startInspector } from './lib/inspector';
import { readCspNonce, readRuntimeConfig } from './lib/runtimeConfig';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element.');

void startInspector().then(() =>
  createRoot(container).render(
    <StrictMode>
      <AppProviders config={readRuntimeConfig()} nonce={readCspNonce()}>
        <RouterProvider router={createBrowserRouter(routes)} />
      </AppProviders>
    </StrictMode>,
  ),
);
