import type { Kysely, Transaction } from 'kysely';
import { findPlan, type Plan, type PlanId } from '../../src/content/plans';
import type { Database, SubscriptionsTable } from '../db/types';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The plan whose limits apply at `now`. No row, or a subscription that is not active or has run
 * past a period end it will not renew from, means Free; a scheduled change counts from the
 * period end on, even before the billing module has written it down.
 */
export function planAt(row: SubscriptionsTable | undefined, now: number): PlanId {
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
