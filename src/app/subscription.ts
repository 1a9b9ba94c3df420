import { useActorRef } from '@xstate/react';
import { createContext, useContext, useState } from 'react';
import { subscriptionMachine, type SubscriptionMachine } from '../../machines/subscription/subscription.machine';
import { showToast } from '../components/Toaster';
import { useAuthRef, useAuthSelector } from './auth';
import { actorOptions } from '../lib/inspector';

/** The subscription chart the pages run; tests hand in one with fake effects. */
export const SubscriptionLogic = createContext<SubscriptionMachine>(subscriptionMachine);

/**
 * Runs the subscription chart for a page (the subscription page, the profile's plan card), with
 * the app's toasts, and the signed-in user's plan as the current plan until the subscription is known.
 */
export function useSubscriptionActor() {
  const machine = useContext(SubscriptionLogic);
  const auth = useAuthRef();
  const accountPlan = useAuthSelector((s) => s.context.user?.subscription_plan ?? 'free');
  const [logic] = useState(() => machine.provide({ actions: { notify: (_, params) => showToast(params) } }));
  return useActorRef(logic, { ...actorOptions(), input: { auth, accountPlan } });
}
