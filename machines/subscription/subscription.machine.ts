import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { findPlan, type PlanId } from '../../contract/plans';
import type { SubscriptionInfo } from '../shared/api';
import { planName } from '../../contract/plans';
import { sentence } from '../shared/messages';
import type { NotifyParams } from '../shared/notify';
import { knownSubscription, subscriptionActors, takeKnownSubscription } from './subscription.actors';
import { reportFailure } from '../shared/failures';

/** The tab the checkout opens in: only what the chart does with it. */
export interface CheckoutTab {
  location: { href: string };
  close(): void;
}

export interface SubscriptionContext {
  auth: AuthActorRef;
  /** The last subscription loaded; null before and when the first load failed (the card is then omitted). */
  subscription: SubscriptionInfo | null;
  /** The account's plan (GET /users/me), the current plan until the subscription is known. */
  accountPlan: PlanId;
  /** The plan whose checkout is being created. */
  choosing: PlanId | null;
  /** Opened on the click, before the address is known, so pop-up blockers allow it. */
  checkoutTab: CheckoutTab | null;
  /**
   * The dearer plan whose checkout this page opened: when a reload finds the account on it, the
   * payment went through (whichever provider took it), and the page says so, once.
   */
  awaitedPlan: PlanId | null;
}

export type SubscriptionEvent =
  | { type: 'plan.choose'; plan: PlanId }
  /** The user came back (focus, or the return from checkout): the plan may have changed. */
  | { type: 'subscription.reload' };


// Parameters of actions inside invocations are not always inferred; this names the event shape.
type ErrorEvent = { event: { error: unknown } };
type ChooseEvent = { event: Extract<SubscriptionEvent, { type: 'plan.choose' }> };

/** The current plan (product spec §4): the plan field of the subscription info. */
export function currentPlanOf(context: Pick<SubscriptionContext, 'subscription' | 'accountPlan'>): string {
  return context.subscription?.plan ?? context.accountPlan;
}

/**
 * The current plan as far as the subscription says; null when it could not be loaded. The
 * subscription page claims no plan then: the account's plan may be out of date (that is what
 * the subscription call is for), and a wrong claim would offer a payer an "upgrade" to their plan.
 */
export function knownPlanOf(context: Pick<SubscriptionContext, 'subscription'>): string | null {
  return context.subscription?.plan ?? null;
}

/**
 * The plan the person's own billing is on, which the plan buttons change: a team member's own
 * plan (the team's Team plan is the owner's to bill), anyone else's current plan; null when the
 * subscription could not be loaded.
 */
export function billedPlanOf(context: Pick<SubscriptionContext, 'subscription'>): string | null {
  return context.subscription?.own?.plan ?? knownPlanOf(context);
}

/** Whether the current plan is a team's (the person is a member of a team that pays for Team). */
export function throughTeam(context: Pick<SubscriptionContext, 'subscription'>): boolean {
  return Boolean(context.subscription?.own);
}

const priceOf = (plan: string | null) => (plan ? (findPlan(plan)?.priceUsd ?? 0) : 0);

const subscriptionSetup = setup({
  types: {
    context: {} as SubscriptionContext,
    events: {} as SubscriptionEvent,
    input: {} as { auth: AuthActorRef; accountPlan: PlanId },
    tags: {} as 'loading' | 'reloading' | 'busy',
  },
  actors: subscriptionActors,
  actions: {
    assignSubscription: assign({ subscription: (_, subscription: SubscriptionInfo) => subscription }),
    logLoadFailure: (_, error: unknown) => console.error('Could not load the subscription:', error),
    /** Runs inside the click's event handler (the send is synchronous), which browsers require of pop-ups. */
    openCheckoutTab: assign({
      checkoutTab: () => {
        const tab = window.open('', '_blank');
        // The checkout page must not be able to script this one (window.opener), like rel=noopener.
        if (tab) tab.opener = null;
        return tab;
      },
    }),
    /** A blocked pop-up leaves no tab: the checkout then opens in this one. */
    showCheckout: ({ context }, url: string) => {
      if (context.checkoutTab) context.checkoutTab.location.href = url;
      else window.location.assign(url);
    },
    closeCheckoutTab: ({ context }) => context.checkoutTab?.close(),
    assignChoice: assign({
      choosing: (_, plan: PlanId) => plan,
      // Only a dearer plan is paid for now; a cheaper one is scheduled for the period's end.
      awaitedPlan: ({ context }, plan: PlanId) => (priceOf(plan) > priceOf(billedPlanOf(context)) ? plan : null),
    }),
    forgetCheckout: assign({ checkoutTab: null, choosing: null }),
    forgetAwaitedPlan: assign({ awaitedPlan: null }),
    takeKnown: () => takeKnownSubscription(),
    notify: (_, _params: NotifyParams) => undefined,
  },
  guards: {
    isKnown: () => knownSubscription() !== null,
    /**
     * The current plan's button is disabled: choosing it again is not a change. Unknown, any plan
     * may be chosen (the server refuses the current one). A team member changes their own plan,
     * and not to Team: a Team checkout makes a team, and they are in one.
     */
    isOtherPlan: ({ context }, plan: PlanId) => plan !== billedPlanOf(context) && !(plan === 'team' && throughTeam(context)),
    isAwaitedPlan: ({ context }, subscription: SubscriptionInfo) =>
      context.awaitedPlan !== null && billedPlanOf({ subscription }) === context.awaitedPlan,
  },
});

const choosePlan = {
  guard: { type: 'isOtherPlan', params: ({ event }: ChooseEvent) => event.plan },
  target: 'checkingOut',
  actions: ['openCheckoutTab', { type: 'assignChoice', params: ({ event }: ChooseEvent) => event.plan }],
} as const;

/**
 * The subscription page: loading → loaded (a load failure is logged and loading ends), or loaded
 * at once when the page's early call has its answer in already (`knownSubscription`). Choosing a
 * plan is the `checkingOut` state: the tab opens on the click, gets the checkout address when it
 * arrives, and closes again if checkout fails. Coming back to the page reloads the subscription
 * without hiding it.
 */
export const subscriptionMachine = subscriptionSetup.createMachine({
  id: 'subscription',
  context: ({ input }) => ({
    auth: input.auth,
    subscription: null,
    accountPlan: input.accountPlan,
    choosing: null,
    checkoutTab: null,
    awaitedPlan: null,
  }),
  invoke: { id: 'returnEvents', src: 'returnEvents' },
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'isKnown', target: 'loaded', actions: [{ type: 'assignSubscription', params: () => knownSubscription()! }, 'takeKnown'] },
        { target: 'loading' },
      ],
    },
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadSubscription',
        src: 'loadSubscription',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'loaded', actions: { type: 'assignSubscription', params: ({ event }) => event.output } },
        onError: { target: 'loaded', actions: { type: 'logLoadFailure', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    loaded: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'plan.choose': choosePlan, 'subscription.reload': 'reloading' },
        },
        reloading: {
          tags: ['reloading'],
          on: { 'plan.choose': choosePlan },
          invoke: {
            id: 'reloadSubscription',
            src: 'loadSubscription',
            input: ({ context }) => ({ auth: context.auth }),
            onDone: [
              {
                guard: { type: 'isAwaitedPlan', params: ({ event }) => event.output },
                target: 'idle',
                actions: [
                  { type: 'assignSubscription', params: ({ event }) => event.output },
                  'forgetAwaitedPlan',
                  {
                    type: 'notify',
                    params: ({ event }) => ({ type: 'success', title: 'subscription.paymentSucceeded', description: sentence('subscription.paymentSucceededText', planName(event.output.plan)) }),
                  },
                ],
              },
              { target: 'idle', actions: { type: 'assignSubscription', params: ({ event }) => event.output } },
            ],
            // The last subscription loaded stays shown: it is still the best known answer.
            onError: { target: 'idle', actions: { type: 'logLoadFailure', params: ({ event }: ErrorEvent) => event.error } },
          },
        },
        checkingOut: {
          // One checkout at a time: no plan.choose here, a second click would open a second tab.
          tags: ['busy'],
          invoke: {
            id: 'checkout',
            src: 'checkout',
            input: ({ context }) => ({ auth: context.auth, plan: context.choosing as PlanId }),
            onDone: {
              target: 'idle',
              actions: [{ type: 'showCheckout', params: ({ event }) => event.output }, 'forgetCheckout'],
            },
            onError: {
              target: 'idle',
              actions: [
                'closeCheckoutTab',
                'forgetCheckout',
                'forgetAwaitedPlan',
                reportFailure({ title: 'subscription.checkoutFailed', description: 'subscription.checkoutFailedText' }),
              ],
            },
          },
        },
      },
    },
  },
});

export type SubscriptionMachine = typeof subscriptionMachine;
export type SubscriptionSnapshot = SnapshotFrom<SubscriptionMachine>;
