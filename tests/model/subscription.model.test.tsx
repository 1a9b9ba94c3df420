import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CheckoutInput } from '../../machines/subscription/subscription.actors';
import { subscriptionMachine, type SubscriptionEvent } from '../../machines/subscription/subscription.machine';
import { SubscriptionChart } from '../../src/app/subscription';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import { PLANS } from '../../contract/plans';
import SubscriptionPage from '../../src/pages/SubscriptionPage';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { inJsdom, seesInJsdom } from '../helpers/sightsInJsdom';
import { checkoutUrl, subscriptionCoverage, subscriptionPaths, subscriptionViews, type SubscriptionSnapshot } from './subscription.paths';

/**
 * Model-based tests of the subscription chart: `xstate/graph` yields the shortest path to every
 * transition (subscription.paths.ts); each path is replayed on the real subscription page in jsdom, the chart's calls
 * answered by a fake API step by step, and in every state the page must show what the chart holds:
 * the spinner, the current subscription card (or none), the plan cards' badges and buttons, the
 * checkout tab and its toast. tests/paths replays the same paths in Chromium.
 */

const t = messages.subscription;
const noop = () => undefined;

describeChartPaths('subscription chart, generated paths', 'subscription', { coverage: subscriptionCoverage, paths: subscriptionPaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const checkouts: CheckoutInput['plan'][] = [];
  const machine = subscriptionMachine.provide({
    actors: {
      loadSubscription: calls.actor('loadSubscription'),
      checkout: calls.actor<string, CheckoutInput>('checkout', (input) => checkouts.push(input.plan)),
    },
    actions: { logLoadFailure: noop },
  });
  const tab = { location: { href: '' }, close: jest.fn(), opener: {} as unknown };
  const open = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
  const { unmount } = renderSignedIn(
    '/subscription',
    <SubscriptionChart.Logic.Provider value={machine}>
      <SubscriptionPage />
    </SubscriptionChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const settle = (name: string) => ({ event }: { event: ActorOutcome }) => calls.settle(name, event);

  try {
    await path.test({
      states: {
        ...inJsdom(subscriptionViews),
        'loaded.checkingOut': async (state) => {
          await seesInJsdom(subscriptionViews['loaded.checkingOut'](state as SubscriptionSnapshot));
          // The tab opened on the click itself, before any answer, with nothing in it yet.
          expect(open).toHaveBeenLastCalledWith('', '_blank');
          expect(tab.opener).toBeNull();
          expect(tab.location.href).toBe('');
          expect(checkouts.at(-1)).toBe((state as SubscriptionSnapshot).context.choosing);
        },
      },
      events: {
        'xstate.done.actor.loadSubscription': settle('loadSubscription'),
        'xstate.error.actor.loadSubscription': settle('loadSubscription'),
        'xstate.done.actor.reloadSubscription': settle('loadSubscription'),
        'xstate.error.actor.reloadSubscription': settle('loadSubscription'),
        'xstate.done.actor.checkout': async (step) => {
          await settle('checkout')(step as { event: ActorOutcome });
          expect(tab.location.href).toBe(checkoutUrl);
          expect(tab.close).not.toHaveBeenCalled();
          tab.location.href = '';
        },
        'xstate.error.actor.checkout': async (step) => {
          await settle('checkout')(step as { event: ActorOutcome });
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
          const started = (state as SubscriptionSnapshot).hasTag('busy');
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
}, 20_000);
