import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { PageSpinner } from '../components/PageSpinner';
import { useAuthSelector } from './auth';

export interface RedirectState {
  from?: { pathname: string; search?: string; hash?: string };
}

/** Where the guard sent the visitor from, to return there after signing in. */
export function redirectTarget(state: unknown): string | undefined {
  const from = (state as RedirectState | null)?.from;
  return from ? `${from.pathname}${from.search ?? ''}${from.hash ?? ''}` : undefined;
}

/** The guard of the signed-in routes: a spinner while loading, /login (remembering the page) when signed out. */
export function RequireAuth() {
  const status = useAuthSelector((s) => (s.hasTag('loading') ? 'loading' : s.hasTag('signedIn') ? 'signedIn' : 'signedOut'));
  const location = useLocation();
  if (status === 'loading') return <PageSpinner />;
  if (status === 'signedOut') return <Navigate to="/login" replace state={{ from: location } satisfies RedirectState} />;
  return <Outlet />;
}
