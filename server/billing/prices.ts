import type { PlanId } from '../../contract/plans';

export type PaidPlanId = Exclude<PlanId, 'free'>;

/**
 * The two-way map between the paid plans and the provider's price ids. A payment names a price;
 * the plan it buys is looked up here, on the server, never taken from the client.
 */
export interface PriceBook {
  priceOf(plan: PaidPlanId): string;
  planOf(priceId: string): PaidPlanId | null;
}

/** The price ids the test-mode provider puts on its subscriptions. */
export const TEST_MODE_PRICES: Record<PaidPlanId, string> = {
  professional: 'price_test_professional',
  team: 'price_test_team',
};

export function priceBook(prices: Record<PaidPlanId, string>): PriceBook {
  const plans = new Map(Object.entries(prices).map(([plan, price]) => [price, plan as PaidPlanId]));
  return {
    priceOf: (plan) => prices[plan],
    planOf: (priceId) => plans.get(priceId) ?? null,
  };
}
