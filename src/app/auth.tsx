import { createActorContext } from '@xstate/react';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { authMachine, type AuthMachine } from '../../machines/auth/auth.machine';
import { actorOptions } from '../lib/inspector';
import { showToast } from '../components/Toaster';

export const AuthContext = createActorContext(authMachine);

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
