import type { Kysely, Transaction } from 'kysely';
import { findPlan, type Plan, type PlanId } from '../../contract/plans';
import type { Subscription } from '../../contract/schemas';
import type { Database, SubscriptionsTable } from '../db/types';

type Db = Kysely<Database> | Transaction<Database>;

/** The columns that decide which plan applies (the session check reads only these). */
export type PlanState = Pick<SubscriptionsTable, 'plan' | 'status' | 'current_period_end' | 'cancel_at_period_end' | 'scheduled_plan'>;

/**
 * The plan whose limits apply at `now`. No row, or a subscription that is not active or has run
 * past a period end it will not renew from, means Free; a scheduled change counts from the
 * period end on, even before the billing module has written it down.
 */
export function planAt(row: PlanState | undefined, now: number): PlanId {
  if (!row || row.status === 'canceled' || row.status === 'incomplete') return 'free';
  const ended = row.current_period_end !== null && row.current_period_end <= now;
  if (ended && row.cancel_at_period_end === 1) return row.scheduled_plan ?? 'free';
  return row.plan;
}

export function findSubscription(db: Db, userId: string): Promise<SubscriptionsTable | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The plan (with its limits) that applies to the user's next request. */
export async function effectivePlan(db: Db, userId: string, now: number): Promise<Plan> {
  return findPlan(planAt(await findSubscription(db, userId), now))!;
}


function limitsOf(plan: Plan): Subscription['usage_limits'] {
  return { monthly_queries: plan.limits.monthlyQueries, daily_tokens: plan.limits.dailyTokens };
}

/**
 * The subscription as the user sees it at `now`. Anything that is not a running paid period
 * (no row, ended, cancelled, never paid, or a change that fell due and is not written down yet)
 * reads as the plan that applies with no period of its own.
 */
export function subscriptionView(row: SubscriptionsTable | undefined, now: number): Subscription {
  const plan = findPlan(planAt(row, now))!;
  if (!row || plan.id !== row.plan || plan.id === 'free') {
    return {
      plan: plan.id,
      status: 'active',
      current_period_end: null,
      cancel_at_period_end: false,
      scheduled_plan: null,
      usage_limits: limitsOf(plan),
    };
  }
  const cancelling = row.cancel_at_period_end === 1;
  return {
    plan: plan.id,
    status: row.status,
    current_period_end: row.current_period_end === null ? null : new Date(row.current_period_end).toISOString(),
    cancel_at_period_end: cancelling,
    scheduled_plan: cancelling ? (row.scheduled_plan ?? 'free') : null,
    usage_limits: limitsOf(plan),
  };
}
