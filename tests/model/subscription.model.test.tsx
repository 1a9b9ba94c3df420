import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { fromPromise, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { authMachine } from '../../machines/auth/auth.machine';
import type { CheckoutInput } from '../../machines/subscription/subscription.actors';
import { currentPlanOf, subscriptionMachine, type SubscriptionEvent } from '../../machines/subscription/subscription.machine';
import { AppProviders } from '../../src/app/AppProviders';
import { AuthProvider, useAuthSelector } from '../../src/app/auth';
import { SubscriptionLogic } from '../../src/app/subscription';
import { Toaster, toaster } from '../../src/components/Toaster';
import { messages } from '../../src/content/messages';
import { PLANS } from '../../src/content/plans';
import { ApiRequestError, type SubscriptionInfo } from '../../src/lib/api';
import { formatDate, formatLimit, isActive, limitsOf, planName, scheduledChange } from '../../src/lib/planDisplay';
import { defaultRuntimeConfig } from '../../src/lib/runtimeConfig';
import SubscriptionPage from '../../src/pages/SubscriptionPage';
import { ada } from '../helpers/fakeApi';
import { toTestModelMachine } from '../helpers/chartModel';

/**
 * Model-based tests of the subscription chart: `xstate/graph` yields the shortest path to every
 * transition; each path is replayed on the real subscription page in jsdom, the chart's calls
 * answered by a fake API step by step, and in every state the page must show what the chart holds:
 * the spinner, the current subscription card (or none), the plan cards' badges and buttons, the
 * checkout tab and its toast.
 */

const t = messages.subscription;
const periodEnd = '2026-12-23T10:00:00.000Z';
const free: SubscriptionInfo = {
  plan: 'free',
  status: 'active',
  current_period_end: null,
  cancel_at_period_end: false,
  scheduled_plan: null,
  usage_limits: { monthly_queries: 100, daily_tokens: 1000 },
};
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
const checkoutUrl = 'https://pay.example/checkout/cs_test_1';

type ActorEvent = { type: string; output?: unknown; error?: unknown };
const actorEvents: ActorEvent[] = [
  ...[free, professionalEnding, teamPastDue].flatMap((output) => [
    { type: 'xstate.done.actor.loadSubscription', output },
    { type: 'xstate.done.actor.reloadSubscription', output },
  ]),
  { type: 'xstate.error.actor.loadSubscription', error: new ApiRequestError(messages.api.network, 0) },
  { type: 'xstate.error.actor.reloadSubscription', error: new ApiRequestError('API Error: Internal Server Error', 500) },
  { type: 'xstate.done.actor.checkout', output: checkoutUrl },
  { type: 'xstate.error.actor.checkout', error: new ApiRequestError('API Error: Conflict', 409, 'already_on_plan') },
];
const userEvents: SubscriptionEvent[] = [...PLANS.map((plan) => ({ type: 'plan.choose' as const, plan: plan.id })), { type: 'subscription.reload' }];

type Snapshot = SnapshotFrom<typeof subscriptionMachine>;
const noop = () => undefined;

const model = createTestModel(
  toTestModelMachine(
    subscriptionMachine.provide({
      actions: { openCheckoutTab: noop, showCheckout: noop, closeCheckoutTab: noop, logLoadFailure: noop, notify: noop },
    }),
  ),
  {
    input: { auth: null, accountPlan: ada.subscription_plan },
    events: [...actorEvents, ...userEvents],
    // A state is what the page shows (the chart's state, the subscription, the plan being bought)
    // and the transition into it (its kind and the state it left), so every transition is walked;
    // the answers' other details would only repeat screens.
    serializeState: (state: Snapshot, event: ActorEvent | undefined, previous?: Snapshot) =>
      JSON.stringify([state.value, state.context.subscription?.plan ?? null, state.context.choosing, event?.type ?? null, previous?.value ?? null]),
  } as never,
);
const paths = model.getShortestPaths();

/** What the page must show in every state where the subscription is loaded. */
function showsLoaded(state: Snapshot) {
  const { subscription } = state.context;
  expect(screen.getByRole('heading', { level: 1, name: t.heading })).toBeInTheDocument();
  const card = screen.queryByRole('region', { name: t.currentTitle });
  expect(card !== null).toBe(subscription !== null);
  if (card && subscription) {
    const rows = within(card);
    const limits = limitsOf(subscription);
    expect(rows.getByText(planName(subscription.plan))).toBeInTheDocument();
    expect(rows.getByText(isActive(subscription.status) ? messages.plan.active : messages.plan.inactive)).toBeInTheDocument();
    expect(rows.queryByText(t.nextBilling) !== null).toBe(Boolean(subscription.current_period_end));
    if (subscription.current_period_end) expect(rows.getByText(formatDate(subscription.current_period_end))).toBeInTheDocument();
    expect(rows.getByText(formatLimit(limits.monthlyQueries, messages.plan.unlimited))).toBeInTheDocument();
    expect(rows.getByText(formatLimit(limits.dailyTokens, messages.plan.unlimited))).toBeInTheDocument();
    const change = scheduledChange(subscription);
    expect(rows.queryByText(/changes to/) !== null).toBe(change !== null);
    if (change) expect(rows.getByText(messages.plan.scheduledChange(change.plan, change.date))).toBeInTheDocument();
    expect(card).toHaveAttribute('aria-busy', String(state.hasTag('reloading')));
  }
  const current = currentPlanOf(state.context);
  for (const plan of PLANS) {
    const article = within(screen.getByRole('article', { name: plan.name }));
    expect(article.queryByText(t.currentPlan, { selector: '.chakra-badge' }) !== null).toBe(plan.id === current);
    const button = article.getByRole('button');
    if (plan.id === state.context.choosing) {
      expect(button).toHaveAccessibleName(t.checkoutBusy);
    } else {
      const label = plan.id === current ? t.currentPlan : plan.id === 'free' ? t.downgrade : t.upgradeTo(plan.name);
      expect(button).toHaveAccessibleName(label);
    }
    expect(button).toHaveProperty('disabled', plan.id === current || state.hasTag('busy'));
  }
}

describe('subscription chart, generated paths', () => {
  afterAll(() => console.log(`subscription chart: ${paths.length} generated paths`));

  it('covers every state of the chart', () => {
    const nodes = [...(subscriptionMachine as unknown as { idMap: Map<string, unknown> }).idMap.keys()];
    const visited = new Set(paths.flatMap((path) => path.steps.flatMap((step) => step.state._nodes.map((n: { id: string }) => n.id))));
    expect(nodes.filter((id) => !visited.has(id))).toEqual([]);
  });

  it.each(paths.map((path) => [path.description, path] as const))(
    '%s',
    async (_title, path) => {
      localStorage.clear();
      toaster.remove();
      const pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
      const waitFor$ = <T, I>(name: string, onStart?: (input: I) => void) =>
        fromPromise<T, I>(({ input }) => {
          onStart?.(input);
          return new Promise<T>((resolve, reject) => pending.set(name, { resolve: resolve as (v: unknown) => void, reject }));
        });
      const checkouts: CheckoutInput['plan'][] = [];
      const machine = subscriptionMachine.provide({
        actors: {
          loadSubscription: waitFor$('loadSubscription'),
          checkout: waitFor$<string, CheckoutInput>('checkout', (input) => checkouts.push(input.plan)),
        },
        actions: { logLoadFailure: noop },
      });
      const tab = { location: { href: '' }, close: jest.fn(), opener: {} as unknown };
      const open = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
      const auth = authMachine.provide({ guards: { hasStoredToken: () => true }, actors: { fetchUser: fromPromise(async () => ada) } });
      function Gate() {
        return useAuthSelector((s) => s.hasTag('signedIn')) ? <SubscriptionPage /> : null;
      }
      const router = createMemoryRouter(
        [
          {
            path: '/subscription',
            element: (
              <AuthProvider machine={auth}>
                <SubscriptionLogic.Provider value={machine}>
                  <Gate />
                </SubscriptionLogic.Provider>
                <Toaster />
              </AuthProvider>
            ),
          },
        ],
        { initialEntries: ['/subscription'] },
      );
      const { unmount } = render(
        <AppProviders config={defaultRuntimeConfig}>
          <RouterProvider router={router} />
        </AppProviders>,
      );
      const browser = userEvent.setup();
      const settle = (name: string) => async ({ event }: { event: ActorEvent }) => {
        await waitFor(() => expect(pending.has(name)).toBe(true));
        const call = pending.get(name)!;
        pending.delete(name);
        await act(async () => ('error' in event && event.error ? call.reject(event.error) : call.resolve(event.output)));
      };

      try {
        await path.test({
          states: {
            loading: async () => {
              await screen.findByRole('status');
              expect(screen.getByLabelText(messages.loading)).toBeInTheDocument();
              expect(screen.queryByRole('heading', { level: 1 })).toBeNull();
            },
            'loaded.idle': async (state) => {
              await waitFor(() => showsLoaded(state as Snapshot));
            },
            'loaded.reloading': async (state) => {
              await waitFor(() => showsLoaded(state as Snapshot));
            },
            'loaded.checkingOut': async (state) => {
              await waitFor(() => showsLoaded(state as Snapshot));
              // The tab opened on the click itself, before any answer, with nothing in it yet.
              expect(open).toHaveBeenLastCalledWith('', '_blank');
              expect(tab.opener).toBeNull();
              expect(tab.location.href).toBe('');
              expect(checkouts.at(-1)).toBe((state as Snapshot).context.choosing);
            },
          },
          events: {
            'xstate.done.actor.loadSubscription': settle('loadSubscription'),
            'xstate.error.actor.loadSubscription': settle('loadSubscription'),
            'xstate.done.actor.reloadSubscription': settle('loadSubscription'),
            'xstate.error.actor.reloadSubscription': settle('loadSubscription'),
            'xstate.done.actor.checkout': async (step) => {
              await settle('checkout')(step as { event: ActorEvent });
              expect(tab.location.href).toBe(checkoutUrl);
              expect(tab.close).not.toHaveBeenCalled();
              tab.location.href = '';
            },
            'xstate.error.actor.checkout': async (step) => {
              await settle('checkout')(step as { event: ActorEvent });
              await screen.findByText(t.checkoutFailedText);
              expect(screen.getByText(t.checkoutFailed)).toBeInTheDocument();
              expect(tab.close).toHaveBeenCalledTimes(1);
              expect(tab.location.href).toBe('');
              tab.close.mockClear();
            },
            'plan.choose': async ({ event, state }) => {
              const { plan } = event as Extract<SubscriptionEvent, { type: 'plan.choose' }>;
              const opened = open.mock.calls.length;
              await browser.click(within(screen.getByRole('article', { name: PLANS.find((p) => p.id === plan)!.name })).getByRole('button'));
              // The current plan's button is disabled: clicking it opens nothing.
              const started = (state as Snapshot).hasTag('busy');
              expect(open.mock.calls.length).toBe(opened + (started ? 1 : 0));
            },
            'subscription.reload': async () => {
              await act(async () => window.dispatchEvent(new Event('focus')));
            },
          },
        });
      } finally {
        unmount();
        open.mockRestore();
      }
    },
    20_000,
  );
});
