import { useDeferredValue } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { PageSpinner } from '../components/PageSpinner';
import { useSessionStatus } from './auth';

export interface RedirectState {
  from?: { pathname: string; search?: string; hash?: string };
  /** The address to fill in on the sign-in or register form (an invitation's). */
  email?: string;
}

/** Where the guard sent the visitor from, to return there after signing in. */
export function redirectTarget(state: unknown): string | undefined {
  const from = (state as RedirectState | null)?.from;
  return from ? `${from.pathname}${from.search ?? ''}${from.hash ?? ''}` : undefined;
}

/** The address the page that sent the visitor asks the form to fill in; empty when none. */
export function prefilledEmail(state: unknown): string {
  const email = (state as RedirectState | null)?.email;
  return typeof email === 'string' ? email : '';
}

/** The guard of the signed-in routes: a spinner while loading, /login (remembering the page) when signed out. */
export function RequireAuth() {
  const status = useSessionStatus();
  // The page itself is drawn in a deferred render, which React does in slices of a few
  // milliseconds: drawn at once, a whole signed-in page is one task of up to half a second on a
  // slow phone when the session check answers. The spinner stays until it is there.
  const shown = useDeferredValue(status);
  const location = useLocation();
  if (status === 'signedOut') return <Navigate to="/login" replace state={{ from: location } satisfies RedirectState} />;
  if (status === 'loading' || shown !== 'signedIn') return <PageSpinner />;
  return <Outlet />;
}
