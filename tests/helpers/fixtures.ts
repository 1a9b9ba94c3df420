import type { SubscriptionInfo, User } from '../../machines/shared/api';

/** The signed-in user of the jsdom tests and chart models. */
export const ada: User = {
  id: 'u-1',
  email: 'ada@example.com',
  full_name: 'Ada Lovelace',
  username: 'ada',
  created_at: '2026-11-01T09:00:00.000Z',
  email_verified: true,
  subscription_plan: 'free',
};

/** What `GET /subscription/me` answers for an account without a paid subscription (decisions.md). */
export const freeSubscription: SubscriptionInfo = {
  plan: 'free',
  status: 'active',
  current_period_end: null,
  cancel_at_period_end: false,
  scheduled_plan: null,
  usage_limits: { monthly_queries: 100, daily_tokens: 1000 },
};

/** What `GET /subscription/me` answers a team member on their team's Team plan who also pays for Professional of their own. */
export const teamMemberSubscription: SubscriptionInfo = {
  plan: 'team',
  status: 'active',
  current_period_end: null,
  cancel_at_period_end: false,
  scheduled_plan: null,
  own: { plan: 'professional', status: 'active', current_period_end: '2026-12-23T10:00:00.000Z', cancel_at_period_end: false, scheduled_plan: null },
  usage_limits: { monthly_queries: -1, daily_tokens: 200000 },
};

/** The server's sentence to a member the team's requirement of two-step sign-in holds back (server/plugins/auth.ts). */
export const HELD_SENTENCE = 'Your team requires two-step sign-in. Set up an authenticator app or a passkey on your profile to continue.';
