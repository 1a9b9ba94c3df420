import { type ReactNode } from 'react';
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
