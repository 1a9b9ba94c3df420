import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { billedPlanOf, subscriptionMachine, throughTeam, type SubscriptionEvent } from '../../machines/subscription/subscription.machine';
import * as messages from '../../src/content/messages';
import { PLAN_OFFERS } from '../../src/content/plans';
import { ApiRequestError, type SubscriptionInfo } from '../../machines/shared/api';
import { formatDate, formatLimit, isActive, limitsOf, scheduledChange } from '../../src/lib/planDisplay';
import { planName } from '../../src/../contract/plans';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { freeSubscription, teamMemberSubscription } from '../helpers/fixtures';
import type { Sight } from '../helpers/sights';

/**
 * The subscription chart as a test model, shared by the jsdom replay
 * (tests/model/subscription.model.test.tsx) and the Chromium replay against the real server
 * (tests/paths/subscription.paths.test.ts): the subscriptions the API may answer, the generated
 * paths and what the page shows in each state.
 */

const t = messages.subscription;
const periodEnd = '2026-12-23T10:00:00.000Z';
/** What the API answers for an account without a paid subscription. */
export const free: SubscriptionInfo = freeSubscription;
/** A paid plan ending at the period's end: the downgrade to Free is scheduled. */
const professionalEnding: SubscriptionInfo = {
  plan: 'professional',
  status: 'active',
  current_period_end: periodEnd,
  cancel_at_period_end: true,
  scheduled_plan: 'free',
  usage_limits: { monthly_queries: 1000, daily_tokens: 50000 },
};
/** Unlimited queries and an unpaid status; no daily limit sent, so the default shows. */
const teamPastDue: SubscriptionInfo = {
  plan: 'team',
  status: 'past_due',
  current_period_end: periodEnd,
  cancel_at_period_end: false,
  scheduled_plan: null,
  usage_limits: { monthly_queries: -1 },
};
/** A team member on their team's Team plan, who also pays for Professional of their own. */
export const teamMember: SubscriptionInfo = teamMemberSubscription;
export const checkoutUrl = 'https://pay.example/checkout/cs_test_1';

export const subscriptionOutcomes: ActorOutcome[] = [
  ...[free, professionalEnding, teamPastDue, teamMember].flatMap((output) => [
    { type: 'xstate.done.actor.loadSubscription', output },
    { type: 'xstate.done.actor.reloadSubscription', output },
  ]),
  { type: 'xstate.error.actor.loadSubscription', error: new ApiRequestError(messages.api.network, 0) },
  { type: 'xstate.error.actor.reloadSubscription', error: new ApiRequestError('API Error: Internal Server Error', 500) },
  { type: 'xstate.done.actor.checkout', output: checkoutUrl },
  { type: 'xstate.error.actor.checkout', error: new ApiRequestError('API Error: Conflict', 409, 'already_on_plan') },
];
const userEvents: SubscriptionEvent[] = [...PLAN_OFFERS.map((plan) => ({ type: 'plan.choose' as const, plan: plan.id })), { type: 'subscription.reload' }];

export type SubscriptionSnapshot = SnapshotFrom<typeof subscriptionMachine>;
const noop = () => undefined;

/** The plan of the signed-in account before the subscription is known. */
const ACCOUNT_PLAN = 'free';

const model = createTestModel(
  toTestModelMachine(
    subscriptionMachine.provide({
      actions: { openCheckoutTab: noop, showCheckout: noop, closeCheckoutTab: noop, logLoadFailure: noop, notify: noop },
    }),
  ),
  {
    input: { auth: null, accountPlan: ACCOUNT_PLAN },
    events: [...subscriptionOutcomes, ...userEvents],
    // A state is what the page shows (the chart's state, the subscription, the plan being bought)
    // and the transition into it (its kind and the state it left), so every transition is walked;
    // the answers' other details would only repeat screens.
    serializeState: (state: SubscriptionSnapshot, event: ActorOutcome | undefined, previous?: SubscriptionSnapshot) =>
      JSON.stringify([state.value, billedPlanOf(state.context), throughTeam(state.context), state.context.choosing, event?.type ?? null, previous?.value ?? null]),
  } as never,
);

export const subscriptionPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));

export const subscriptionCoverage = chartCoverage(subscriptionMachine, subscriptionPaths.map(({ path }) => path));

/** The label of a plan card's button (product spec §2; neither direction while the plan is unknown; a member's Team is their team's). */
function planButton(state: SubscriptionSnapshot, planId: string, planLabel: string): string {
  if (planId === state.context.choosing) return t.checkoutBusy;
  const billed = billedPlanOf(state.context);
  if (billed === null) return t.choose(planLabel);
  if (planId === 'team' && throughTeam(state.context)) return t.throughTeam;
  if (planId === billed) return throughTeam(state.context) ? t.ownPlan : t.currentPlan;
  return planId === 'free' ? t.downgrade : t.upgradeTo(planLabel);
}

/** Plan, status and the period's end of a subscription, as its card shows them. */
function periodSights(subscription: SubscriptionInfo, card: { role: 'region'; name: string }): Sight[] {
  const change = scheduledChange(subscription);
  const shown = (when: boolean) => (when ? {} : { absent: true as const });
  return [
    { text: planName(subscription.plan), in: card },
    { text: isActive(subscription.status) ? messages.plan.active : messages.plan.inactive, in: card },
    // Once a downgrade is scheduled, nothing more is billed: the card says when the plan ends instead.
    { text: t.nextBilling, in: card, ...shown(Boolean(subscription.current_period_end) && !change) },
    ...(subscription.current_period_end && !change ? [{ text: formatDate(subscription.current_period_end), in: card }] : []),
    change ? { text: t.planEndsOn(planName(subscription.plan), change.date, change.plan), in: card } : { text: t.planEnds, in: card, absent: true },
  ];
}

/** What the page shows once the subscription is loaded (or failed to load). */
function loaded(state: SubscriptionSnapshot): Sight[] {
  const { subscription } = state.context;
  const card = { role: 'region', name: t.currentTitle } as const;
  const sights: Sight[] = [{ role: 'heading', level: 1, name: t.heading }];
  const own = { role: 'region', name: t.ownTitle } as const;
  if (!subscription) {
    sights.push({ role: 'region', name: t.currentTitle, absent: true }, { ...own, absent: true });
  } else {
    const limits = limitsOf(subscription);
    sights.push(
      { role: 'region', name: t.currentTitle, busy: state.hasTag('reloading') },
      ...periodSights(subscription, card),
      { text: formatLimit(limits.monthlyQueries, messages.plan.unlimited), in: card },
      { text: formatLimit(limits.dailyTokens, messages.plan.unlimited), in: card },
      // A member's Team is paid by the team; their own subscription has a card of its own.
      { text: t.paidByTeam, in: card, ...(subscription.own ? {} : { absent: true as const }) },
      ...(subscription.own
        ? [{ ...own, busy: state.hasTag('reloading') }, { text: t.ownText(planName(subscription.own.plan)), in: own }, ...periodSights(subscription.own, own)]
        : [{ ...own, absent: true as const }]),
    );
  }
  const billed = billedPlanOf(state.context);
  const member = throughTeam(state.context);
  for (const plan of PLAN_OFFERS) {
    const article = { role: 'article', name: plan.name } as const;
    const teams = member && plan.id === 'team';
    sights.push(
      // The current plan says so twice: the badge beside its name and its (disabled) button; a
      // member's own plan as theirs, and Team is their team's.
      { text: t.currentPlan, in: article, count: plan.id === billed && !member ? 2 : 0 },
      { text: t.ownPlan, in: article, count: plan.id === billed && member ? 2 : 0 },
      { text: t.teamPlan, in: article, count: teams ? 1 : 0 },
      { role: 'button', name: planButton(state, plan.id, plan.name), in: article, disabled: plan.id === billed || teams || state.hasTag('busy') },
    );
  }
  return sights;
}

/** What the page shows in each state of the chart. */
export const subscriptionViews = {
  loading: (): Sight[] => [{ role: 'status' }, { label: messages.loading }, { role: 'heading', level: 1, absent: true }],
  'loaded.idle': loaded,
  'loaded.reloading': loaded,
  'loaded.checkingOut': loaded,
} satisfies Record<string, (state: SubscriptionSnapshot) => Sight[]>;
