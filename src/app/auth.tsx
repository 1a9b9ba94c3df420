import { useDeferredValue, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { authMachine, type AuthMachine } from '../../machines/auth/auth.machine';
import { createChartContext } from '../lib/chart';
import { toastEffect } from '../components/Toaster';

/** The auth chart, one actor for the whole app. */
export const AuthChart = createChartContext(authMachine);

interface Props {
  children: ReactNode;
  /** Tests hand in a chart with fake effects; the app uses the real one. */
  machine?: AuthMachine;
}

/** Runs the auth actor for the app, with the toaster and the router as its effects. */
export function AuthProvider({ children, machine = authMachine }: Props) {
  return (
    <AuthChart.Logic.Provider value={machine}>
      <AuthActor>{children}</AuthActor>
    </AuthChart.Logic.Provider>
  );
}

function AuthActor({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const effects = {
    notify: toastEffect,
    navigate: (_: unknown, { to }: { to: string }) => void navigate(to, { replace: true }),
  };
  return <AuthChart.Provider effects={effects}>{children}</AuthChart.Provider>;
}

export const useAuthRef = AuthChart.useActorRef;
export const useAuthSelector = AuthChart.useSelector;

/** Where the session check stands: still checking, signed in or signed out. */
export type SessionStatus = 'loading' | 'signedIn' | 'signedOut';

/**
 * The session check's status, for the pages that draw according to it (the guard of the signed-in
 * routes, /link, /invite). A page drawn when it answers draws from its deferred value
 * (`useDrawnSessionStatus`, below; the guard defers its own): the render in which the answer is
 * drawn is then the one that brings the banners above every page (src/app/Layout.tsx), and page
 * and banner come together.
 */
export function useSessionStatus(): SessionStatus {
  return useAuthSelector((s) => (s.hasTag('loading') ? 'loading' : s.hasTag('signedIn') ? 'signedIn' : 'signedOut'));
}

/** The session check's status as a page drawn on its answer reads it (/link, /invite): deferred, so that it comes with the banners. */
export function useDrawnSessionStatus(): SessionStatus {
  return useDeferredValue(useSessionStatus());
}
