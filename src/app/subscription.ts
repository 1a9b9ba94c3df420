import { subscriptionMachine } from '../../machines/subscription/subscription.machine';
import { toastEffect } from '../components/Toaster';
import { useAuthRef, useAuthSelector } from './auth';
import { createChartContext } from '../lib/chart';

/** The subscription chart the pages run; tests hand in one with fake effects. */
export const SubscriptionChart = createChartContext(subscriptionMachine);

/**
 * Runs the subscription chart for a page (the subscription page, the profile's plan card), with
 * the app's toasts, and the signed-in user's plan as the current plan until the subscription is known.
 */
export function useSubscriptionActor() {
  const auth = useAuthRef();
  const accountPlan = useAuthSelector((s) => s.context.user?.subscription_plan ?? 'free');
  return SubscriptionChart.useActor({ input: { auth, accountPlan }, effects: { notify: toastEffect } });
}
