import type { Kysely, Transaction } from 'kysely';
import { findPlan, type Plan, type PlanId } from '../../contract/plans';
import type { OwnSubscription, Subscription } from '../../contract/schemas';
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

/** A member of a team whose Team subscription applies has Team; anyone else their own plan. */
export function memberPlan(own: PlanId, team: PlanId): PlanId {
  return team === 'team' ? 'team' : own;
}

/** The Team subscription of the user's team (its billing user's), if the user is in one. */
export function findTeamSubscription(db: Db, userId: string): Promise<SubscriptionsTable | undefined> {
  return db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .innerJoin('subscriptions', 'subscriptions.user_id', 'teams.billing_user_id')
    .selectAll('subscriptions')
    .where('team_members.user_id', '=', userId)
    .executeTakeFirst();
}

export function findSubscription(db: Db, userId: string): Promise<SubscriptionsTable | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The plan (with its limits) that applies to the user's next request. */
export async function effectivePlan(db: Db, userId: string, now: number): Promise<Plan> {
  const [own, team] = await Promise.all([findSubscription(db, userId), findTeamSubscription(db, userId)]);
  return findPlan(memberPlan(planAt(own, now), planAt(team, now)))!;
}


/** The plan's limits as the wire shows them: the plans module keys them by their wire names already. */
function limitsOf(plan: Plan): Subscription['usage_limits'] {
  return { ...plan.limits };
}

/** A plan that applies with no period of its own: Free, or a member's Team (the team's period is its owner's). */
function noPeriod(plan: PlanId): OwnSubscription {
  return { plan, status: 'active', current_period_end: null, cancel_at_period_end: false, scheduled_plan: null };
}

/**
 * A subscription's period as the user sees it at `now`. Anything that is not a running paid period
 * of `plan` (no row, ended, cancelled, never paid, or a change that fell due and is not written
 * down yet) reads as the plan with no period of its own.
 */
function periodView(row: SubscriptionsTable | undefined, plan: PlanId, now: number): OwnSubscription {
  if (!row || plan !== row.plan || plan === 'free' || plan !== planAt(row, now)) return noPeriod(plan);
  const cancelling = row.cancel_at_period_end === 1;
  return {
    plan,
    status: row.status,
    current_period_end: row.current_period_end === null ? null : new Date(row.current_period_end).toISOString(),
    cancel_at_period_end: cancelling,
    scheduled_plan: cancelling ? (row.scheduled_plan ?? 'free') : null,
  };
}

/**
 * The subscription as the user sees it at `now`: the plan that applies with its limits. A member's
 * Team is the team's (its period and billing are the owner's), so it reads with no period of its
 * own, and `own` (only then) shows the member's own subscription, which keeps billing.
 */
export function subscriptionView(row: SubscriptionsTable | undefined, now: number, team?: SubscriptionsTable): Subscription {
  const ownPlan = planAt(row, now);
  const plan = findPlan(memberPlan(ownPlan, planAt(team, now)))!;
  const own = periodView(row, ownPlan, now);
  if (plan.id === ownPlan) return { ...own, usage_limits: limitsOf(plan) };
  return { ...noPeriod(plan.id), own, usage_limits: limitsOf(plan) };
}
