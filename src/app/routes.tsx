import type { RouteObject } from 'react-router-dom';
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
      { index: true, lazy: page(() => import('../pages/LandingPage')) },
      { path: 'privacy', lazy: page(() => import('../pages/PrivacyPage')) },
      { path: 'terms', lazy: page(() => import('../pages/TermsPage')) },
      { path: 'support', lazy: page(() => import('../pages/SupportPage')) },
      { path: 'login', lazy: page(() => import('../pages/LoginPage')) },
      { path: 'register', lazy: page(() => import('../pages/RegisterPage')) },
      { path: 'forgot-password', lazy: page(() => import('../pages/ForgotPasswordPage')) },
      { path: 'reset-password', lazy: page(() => import('../pages/ResetPasswordPage')) },
      {
        element: <RequireAuth />,
        children: [
          { path: 'dashboard', lazy: page(() => import('../pages/DashboardPage')) },
          { path: 'subscription', lazy: page(() => import('../pages/SubscriptionPage')) },
          { path: 'profile', lazy: page(() => import('../pages/ProfilePage')) },
        ],
      },
      { path: '*', lazy: page(() => import('../pages/NotFoundPage')) },
    ],
  },
];

export const routes = createRoutes();
