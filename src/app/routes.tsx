import { matchRoutes, type RouteObject } from 'react-router-dom';
import type { AuthMachine } from '../../machines/auth/auth.machine';
import { PageSpinner } from '../components/PageSpinner';
import { Toaster } from '../components/Toaster';
import { AuthProvider } from './auth';
import { Layout } from './Layout';
import { RequireAuth } from './RequireAuth';
import { RouteError } from './RouteError';

/** The root of every route: the auth actor, the shared layout and the toasts. */
function Root({ machine }: { machine?: AuthMachine }) {
  return (
    <AuthProvider machine={machine}>
      <Layout />
      <Toaster />
    </AuthProvider>
  );
}

/** Each page is its own chunk, loaded when its route is first visited. */
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({
  Component: (await load()).default,
});

/** The route tree; tests hand in an auth chart with fake effects. */
export const createRoutes = (authMachine?: AuthMachine): RouteObject[] => [
  {
    path: '/',
    element: <Root machine={authMachine} />,
    errorElement: <RouteError />,
    // Shown only on the very first load, while the first page's chunk arrives.
    hydrateFallbackElement: <PageSpinner />,
    children: [
      { index: true, lazy: page(() => import(/* webpackChunkName: "page-landing" */ '../pages/LandingPage')) },
      { path: 'privacy', lazy: page(() => import(/* webpackChunkName: "page-privacy" */ '../pages/PrivacyPage')) },
      { path: 'terms', lazy: page(() => import(/* webpackChunkName: "page-terms" */ '../pages/TermsPage')) },
      { path: 'support', lazy: page(() => import(/* webpackChunkName: "page-support" */ '../pages/SupportPage')) },
      { path: 'login', lazy: page(() => import(/* webpackChunkName: "page-login" */ '../pages/LoginPage')) },
      { path: 'register', lazy: page(() => import(/* webpackChunkName: "page-register" */ '../pages/RegisterPage')) },
      { path: 'forgot-password', lazy: page(() => import(/* webpackChunkName: "page-forgot-password" */ '../pages/ForgotPasswordPage')) },
      { path: 'reset-password', lazy: page(() => import(/* webpackChunkName: "page-reset-password" */ '../pages/ResetPasswordPage')) },
      {
        element: <RequireAuth />,
        children: [
          { path: 'dashboard', lazy: page(() => import(/* webpackChunkName: "page-dashboard" */ '../pages/DashboardPage')) },
          { path: 'subscription', lazy: page(() => import(/* webpackChunkName: "page-subscription" */ '../pages/SubscriptionPage')) },
          { path: 'profile', lazy: page(() => import(/* webpackChunkName: "page-profile" */ '../pages/ProfilePage')) },
        ],
      },
      { path: '*', lazy: page(() => import(/* webpackChunkName: "page-not-found" */ '../pages/NotFoundPage')) },
    ],
  },
];

export const routes = createRoutes();

/**
 * The public pages the build renders to static HTML (`build/prerender.ts`), each with the chunk
 * of its page (the webpackChunkName above), which the HTML loads next to the entry scripts.
 */
export const PRERENDERED_PAGES = [
  { path: '/', chunk: 'page-landing' },
  { path: '/privacy', chunk: 'page-privacy' },
  { path: '/terms', chunk: 'page-terms' },
  { path: '/support', chunk: 'page-support' },
  { path: '/login', chunk: 'page-login' },
  { path: '/register', chunk: 'page-register' },
] as const;

/**
 * Loads the lazy routes that match `pathname` and puts their components in place, so the first
 * render has the page itself: hydrating a prerendered page needs that (a fallback would not
 * match the server's HTML), and a client-rendered page skips the spinner.
 */
export async function resolveLazyRoutes(routeTree: RouteObject[], pathname: string): Promise<void> {
  const lazy = (matchRoutes(routeTree, pathname) ?? []).map(({ route }) => route).filter((route) => typeof route.lazy === 'function');
  await Promise.all(
    lazy.map(async (route) => {
      const loaded = await (route.lazy as () => Promise<Partial<RouteObject>>)();
      Object.assign(route, loaded, { lazy: undefined });
    }),
  );
}
