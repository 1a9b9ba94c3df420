/**
 * The three plans as the server enforces and bills them: ids, names, prices and limits. Prices
 * are those of product-spec section 9; limits are fixed in decisions.md. How the plans are sold
 * (descriptions, feature lists) is copy, in src/content/plans.ts.
 */
export const PLAN_IDS = ['free', 'professional', 'team'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** On the wire, an unlimited allowance is -1. */
export const UNLIMITED = -1;

/** A plan's allowances, keyed by their names on the wire (`usage_limits` of `GET /subscription`). */
export interface PlanLimits {
  monthly_queries: number;
  daily_tokens: number;
}

/** What a plan offers beyond its limits, checked on the server in one place (server/plugins/planFeatures.ts). */
export const PLAN_FEATURES = ['analytics', 'exports', 'custom_functions'] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export interface Plan {
  id: PlanId;
  name: string;
  /** Whole US dollars per month. */
  priceUsd: number;
  period: 'month';
  limits: PlanLimits;
  /** The features the server lets the plan use (the cards' words for them are copy: src/content/plans.ts). */
  includes: readonly PlanFeature[];
}

export const PLANS: readonly Plan[] = [
  { id: 'free', name: 'Free', priceUsd: 0, period: 'month', limits: { monthly_queries: 100, daily_tokens: 1_000 }, includes: [] },
  { id: 'professional', name: 'Professional', priceUsd: 19, period: 'month', limits: { monthly_queries: 1_000, daily_tokens: 50_000 }, includes: PLAN_FEATURES },
  { id: 'team', name: 'Team', priceUsd: 49, period: 'month', limits: { monthly_queries: UNLIMITED, daily_tokens: 200_000 }, includes: PLAN_FEATURES },
];

/** Custom functions a person may keep (Professional, Team), and a team may share (decisions.md). */
export const PERSONAL_FUNCTION_LIMIT = 25;
export const TEAM_FUNCTION_LIMIT = 100;

/** Members a Team subscription covers, owner and pending invitations included (decisions.md, Teams). */
export const TEAM_SEAT_LIMIT = 10;

export function findPlan(id: string): Plan | undefined {
  return PLANS.find((plan) => plan.id === id);
}

/** The plan's name; an unknown id reads as itself. */
export function planName(plan: string): string {
  return findPlan(plan)?.name ?? plan;
}

/** The cheapest plan that includes `feature` (plans are listed cheapest first). */
export function planWith(feature: PlanFeature): Plan {
  return PLANS.find((plan) => plan.includes.includes(feature))!;
}

/** '$0', '$19', '$49': how a price reads on a card and on the test-mode checkout page. */
export function formatPrice(plan: Pick<Plan, 'priceUsd'>): string {
  return `$${plan.priceUsd}`;
}
