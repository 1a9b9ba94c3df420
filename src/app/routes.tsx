import { useState, type ComponentType } from 'react';
import { matchRoutes, type RouteObject } from 'react-router-dom';
import type { AuthMachine } from '../../machines/auth/auth.machine';
import { Toaster } from '../components/Toaster';
import { AuthProvider } from './auth';
import { Layout } from './Layout';
import { MembershipProvider } from './membership';
import { RequireAuth } from './RequireAuth';
import { RouteErrorBoundary } from './RouteError';
import { preloadable } from '../lib/preloadable';

/** The root of every route: the auth and membership actors, the shared layout and the toasts. */
function Root({ machine }: { machine?: AuthMachine }) {
  return (
    <RouteErrorBoundary>
      <AuthProvider machine={machine}>
        <MembershipProvider>
          <Layout />
        </MembershipProvider>
        <Toaster />
      </AuthProvider>
    </RouteErrorBoundary>
  );
}

interface PageHandle {
  /** Loads the page's chunk; resolves once the page can render without suspending. */
  preload: () => Promise<unknown>;
}

/**
 * Each page is its own chunk, loaded when its route is first rendered (the router renders
 * navigations in a transition, so the current page stays on screen until the next one is in).
 * `preload` lets the start-up code and the prerender load the first page before rendering, so
 * the first render never waits (and a prerendered page needs no Suspense boundary, which would
 * make React hydrate its content in a later pass).
 */
function page(load: () => Promise<{ default: ComponentType }>): Pick<RouteObject, 'element' | 'handle'> {
  const chunk = preloadable(load);
  function LazyPage() {
    // A loaded page renders at once (hydration needs that); the choice is kept, so the page never remounts.
    const [Page] = useState(() => chunk.loaded() ?? chunk.Lazy);
    return <Page />;
  }
  return { element: <LazyPage />, handle: { preload: chunk.preload } satisfies PageHandle };
}

/** The route tree (rendered with `useRoutes`); tests hand in an auth chart with fake effects. */
export const createRoutes = (authMachine?: AuthMachine): RouteObject[] => [
  {
    path: '/',
    element: <Root machine={authMachine} />,
    children: [
      { index: true, ...page(() => import(/* webpackChunkName: "page-landing" */ '../pages/LandingPage')) },
      { path: 'privacy', ...page(() => import(/* webpackChunkName: "page-privacy" */ '../pages/PrivacyPage')) },
      { path: 'terms', ...page(() => import(/* webpackChunkName: "page-terms" */ '../pages/TermsPage')) },
      { path: 'support', ...page(() => import(/* webpackChunkName: "page-support" */ '../pages/SupportPage')) },
      { path: 'login', ...page(() => import(/* webpackChunkName: "page-login" */ '../pages/LoginPage')) },
      { path: 'register', ...page(() => import(/* webpackChunkName: "page-register" */ '../pages/RegisterPage')) },
      { path: 'forgot-password', ...page(() => import(/* webpackChunkName: "page-forgot-password" */ '../pages/ForgotPasswordPage')) },
      { path: 'reset-password', ...page(() => import(/* webpackChunkName: "page-reset-password" */ '../pages/ResetPasswordPage')) },
      // Public: the mailed link works signed in or out (a signed-in app's banner then goes).
      { path: 'verify-email', ...page(() => import(/* webpackChunkName: "page-verify-email" */ '../pages/VerifyEmailPage')) },
      { path: 'invite/:token', ...page(() => import(/* webpackChunkName: "page-invite" */ '../pages/InvitePage')) },
      // Not behind the guard: signed out, the page itself asks to sign in and keeps the code for after.
      { path: 'link', ...page(() => import(/* webpackChunkName: "page-link" */ '../pages/LinkPage')) },
      {
        element: <RequireAuth />,
        children: [
          { path: 'dashboard', ...page(() => import(/* webpackChunkName: "page-dashboard" */ '../pages/DashboardPage')) },
          { path: 'usage', ...page(() => import(/* webpackChunkName: "page-usage" */ '../pages/UsagePage')) },
          { path: 'subscription', ...page(() => import(/* webpackChunkName: "page-subscription" */ '../pages/SubscriptionPage')) },
          { path: 'profile', ...page(() => import(/* webpackChunkName: "page-profile" */ '../pages/ProfilePage')) },
          { path: 'team', ...page(() => import(/* webpackChunkName: "page-team" */ '../pages/TeamPage')) },
          { path: 'guide', ...page(() => import(/* webpackChunkName: "page-guide" */ '../pages/GuidePage')) },
          { path: 'functions', ...page(() => import(/* webpackChunkName: "page-functions" */ '../pages/FunctionsPage')) },
        ],
      },
      { path: '*', ...page(() => import(/* webpackChunkName: "page-not-found" */ '../pages/NotFoundPage')) },
    ],
  },
];

export const routes = createRoutes();

/**
 * The public pages the build renders to static HTML (`build/prerender.ts`), each with the chunk
 * of its page (the webpackChunkName above). The static ones hold nothing a signed-out visitor
 * needs React for: their HTML loads only `src/staticPage.ts`, which loads the app for a signed-in
 * visitor; the others load the app and hydrate.
 */
export const PRERENDERED_PAGES = [
  { path: '/', chunk: 'page-landing', static: true },
  { path: '/privacy', chunk: 'page-privacy', static: true },
  { path: '/terms', chunk: 'page-terms', static: true },
  { path: '/support', chunk: 'page-support', static: false },
  { path: '/login', chunk: 'page-login', static: false },
  { path: '/register', chunk: 'page-register', static: false },
] as const;

/**
 * Loads the chunks of the pages that match `pathname`, so the first render has the page itself:
 * hydrating a prerendered page needs that (a fallback would not match the server's HTML), and a
 * page rendered in the browser skips the spinner.
 */
export async function preloadRoutes(routeTree: RouteObject[], pathname: string): Promise<void> {
  const matches = matchRoutes(routeTree, pathname) ?? [];
  await Promise.all(matches.map(({ route }) => (route.handle as PageHandle | undefined)?.preload()));
}
