import type { RouteObject } from 'react-router-dom';
import { PageSpinner } from '../components/PageSpinner';
import { Layout } from './Layout';
import { RouteError } from './RouteError';

/** Each page is its own chunk, loaded when its route is first visited. */
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({
  Component: (await load()).default,
});

export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    // Shown only on the very first load, while the first page's chunk arrives.
    hydrateFallbackElement: <PageSpinner />,
    children: [
      { index: true, lazy: page(() => import('../pages/LandingPage')) },
      { path: 'privacy', lazy: page(() => import('../pages/PrivacyPage')) },
      { path: 'terms', lazy: page(() => import('../pages/TermsPage')) },
      { path: 'support', lazy: page(() => import('../pages/SupportPage')) },
      { path: '*', lazy: page(() => import('../pages/NotFoundPage')) },
    ],
  },
];
