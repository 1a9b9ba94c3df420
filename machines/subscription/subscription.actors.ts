import { fromCallback, fromPromise } from 'xstate';
import { type AuthInput, withAuthRetry } from '../shared/authRetry';
import { accountApi, type SubscriptionInfo } from '../shared/api';
import type { PlanId } from '../../contract/plans';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';

export interface CheckoutInput extends AuthInput {
  plan: PlanId;
}

/** The checkout address, refused unless it is an http(s) URL: it becomes a tab's location. */
export function checkoutAddress(url: unknown): string {
  const address = typeof url === 'string' ? new URL(url) : null;
  if (!address || (address.protocol !== 'https:' && address.protocol !== 'http:')) throw new Error('The checkout address is not a web address');
  return address.href;
}

/** The subscription as the page's early call already answered it (machines/shared/earlyCalls.ts), or null: the chart then loads it. */
export const knownSubscription = (): SubscriptionInfo | null => knownAnswer<SubscriptionInfo>(LOAD_PATHS.subscription) ?? null;

/** Spends the early answer the chart started from. */
export const takeKnownSubscription = (): void => takeKnownAnswer(LOAD_PATHS.subscription);

export const subscriptionActors = {
  loadSubscription: fromPromise<SubscriptionInfo, AuthInput>(({ input, signal }) =>
    withAuthRetry(input.auth, () => accountApi.subscription({ signal })),
  ),
  checkout: fromPromise<string, CheckoutInput>(async ({ input, signal }) => {
    const { checkout_url } = await withAuthRetry(input.auth, () => accountApi.checkout(input.plan, { signal }));
    return checkoutAddress(checkout_url);
  }),
  /**
   * The user coming back to this tab (from the checkout tab, or the billing page) may have
   * changed the plan: focus and becoming visible both mean "back".
   */
  returnEvents: fromCallback<{ type: 'noop' }>(({ sendBack }) => {
    const back = () => sendBack({ type: 'subscription.reload' });
    const visible = () => document.visibilityState === 'visible' && back();
    window.addEventListener('focus', back);
    document.addEventListener('visibilitychange', visible);
    return () => {
      window.removeEventListener('focus', back);
      document.removeEventListener('visibilitychange', visible);
    };
  }),
};
