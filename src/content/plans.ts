import { PLANS, type Plan, type PlanId } from '../../contract/plans';

/**
 * How the plans are sold on the pricing cards (product-spec section 9). The ids, names, prices and
 * limits the server enforces are the contract's (contract/plans.ts); this adds the copy.
 */
export interface PlanCopy {
  description: string;
  features: readonly string[];
  popular: boolean;
}

export type PlanOffer = Plan & PlanCopy;

const COPY: Record<PlanId, PlanCopy> = {
  free: {
    description: 'Try the assistant on your own sheets.',
    features: ['100 AI queries per month', 'Basic formula assistance', 'Data insights', 'Community support'],
    popular: false,
  },
  professional: {
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
  },
  team: {
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
  },
};

export const PLAN_OFFERS: readonly PlanOffer[] = PLANS.map((plan) => ({ ...plan, ...COPY[plan.id] }));
