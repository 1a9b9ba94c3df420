import { createActorContext } from '@xstate/react';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import type { ActorRefFrom } from 'xstate';
import { authMachine, type AuthMachine } from '../../machines/auth/auth.machine';
import { ApiRequestError } from '../lib/api';
import { actorOptions } from '../lib/inspector';
import { tokenStorage } from '../lib/tokenStorage';
import { showToast } from '../components/Toaster';

export const AuthContext = createActorContext(authMachine);
export type AuthActorRef = ActorRefFrom<AuthMachine>;

interface Props {
  children: ReactNode;
  /** Tests hand in a chart with fake effects; the app uses the real one. */
  machine?: AuthMachine;
}

/** Creates the auth actor for the app, with the toaster and the router as its effects. */
export function AuthProvider({ children, machine = authMachine }: Props) {
  const navigate = useNavigate();
  const [logic] = useState(() =>
    machine.provide({
      actions: {
        notify: (_, params) => showToast(params),
        navigate: (_, { to }) => {
          void navigate(to, { replace: true });
        },
      },
    }),
  );
  return <AuthContext.Provider logic={logic} options={actorOptions()}>{children}</AuthContext.Provider>;
}

export const useAuthRef = () => AuthContext.useActorRef();
export const useAuthSelector = AuthContext.useSelector;

/**
 * Runs an authenticated call; on a 401 it tells the auth chart (which refreshes once for all
 * callers, in `signedIn.refreshing`), waits for the chart to settle, then retries once.
 */
export async function withAuthRetry<T>(auth: AuthActorRef, call: () => Promise<T>): Promise<T> {
  const usedToken = tokenStorage.read().accessToken;
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiRequestError) || error.status !== 401) throw error;
    auth.send({ type: 'session.expired', accessToken: usedToken });
    const settled = await new Promise<boolean>((resolve) => {
      const check = () => {
        const snapshot = auth.getSnapshot();
        if (snapshot.hasTag('refreshing')) return false;
        resolve(snapshot.hasTag('signedIn'));
        return true;
      };
      if (check()) return;
      const subscription = auth.subscribe(() => {
        if (check()) subscription.unsubscribe();
      });
    });
    if (!settled) throw error;
    return call();
  }
}

export function useWithAuthRetry() {
  const auth = useAuthRef();
  return <T,>(call: () => Promise<T>) => withAuthRetry(auth, call);
}
