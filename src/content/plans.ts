/**
 * The single source for the three plans: the server's limits and the pricing cards both read it.
 * Prices and features are those of product-spec section 9; limits are fixed in decisions.md.
 */
export type PlanId = 'free' | 'professional' | 'team';

/** On the wire, an unlimited allowance is -1. */
export const UNLIMITED = -1;

export interface PlanLimits {
  monthlyQueries: number;
  dailyTokens: number;
}

export interface Plan {
  id: PlanId;
  name: string;
  /** Whole US dollars per month. */
  priceUsd: number;
  period: 'month';
  description: string;
  features: readonly string[];
  popular: boolean;
  limits: PlanLimits;
}

export const PLANS: readonly Plan[] = [
  {
    id: 'free',
    name: 'Free',
    priceUsd: 0,
    period: 'month',
    description: 'Try the assistant on your own sheets.',
    features: ['100 AI queries per month', 'Basic formula assistance', 'Data insights', 'Community support'],
    popular: false,
    limits: { monthlyQueries: 100, dailyTokens: 1_000 },
  },
  {
    id: 'professional',
    name: 'Professional',
    priceUsd: 19,
    period: 'month',
    description: 'For people who live in spreadsheets.',
    features: [
      '1,000 AI queries per month',
      'Advanced formula creation',
      'Priority support',
      'Custom functions',
      'Export capabilities',
      'Advanced analytics',
    ],
    popular: true,
    limits: { monthlyQueries: 1_000, dailyTokens: 50_000 },
  },
  {
    id: 'team',
    name: 'Team',
    priceUsd: 49,
    period: 'month',
    description: 'For teams that share data and workflows.',
    features: [
      'Unlimited AI queries',
      'Team collaboration',
      'Admin dashboard',
      'Priority support',
      'Custom integrations',
      'Advanced security',
      'Usage analytics',
    ],
    popular: false,
    limits: { monthlyQueries: UNLIMITED, dailyTokens: 200_000 },
  },
];

/** Members a Team subscription covers, owner and pending invitations included (decisions.md, Teams). */
export const TEAM_SEAT_LIMIT = 10;

export const PLAN_IDS = PLANS.map((plan) => plan.id);

export function findPlan(id: string): Plan | undefined {
  return PLANS.find((plan) => plan.id === id);
}

/** '$0', '$19', '$49': how a price reads on a card. */
export function formatPrice(plan: Plan): string {
  return `$${plan.priceUsd}`;
}
