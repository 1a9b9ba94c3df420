import type { Page } from 'playwright-core';
import type { EventObject } from 'xstate';
import type { SubscriptionEvent } from '../../machines/subscription/subscription.machine';
import * as messages from '../../src/content/messages';
import { PLANS, type PlanId } from '../../contract/plans';
import type { SubscriptionInfo } from '../../machines/shared/api';
import type { TokenPair } from '../../machines/shared/tokenStorage';
import {
  answerChanged,
  answerError,
  answerFromServer,
  apiClient,
  cutOff,
  inviteInto,
  HeldCalls,
  nextFrame,
  openTab,
  signUp,
  storedTokens,
  uniqueAccount,
  type CallPattern,
  useServerAndPathsBrowser,
} from '../helpers/browserPaths';
import { describeChartPaths } from '../helpers/chartModel';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import { free, teamMember, subscriptionCoverage, subscriptionPaths, subscriptionViews, type SubscriptionSnapshot } from '../model/subscription.paths';

/**
 * The subscription chart's generated paths (tests/model/subscription.paths.ts) replayed in Chromium
 * on the real subscription page against the real server, one test per path. Each path signs in an
 * account that really is on the plan the path first loads (paid through the test-mode checkout),
 * so choosing another plan gets a real checkout or billing-management address from the server,
 * opened in a real new tab. The subscription answers are the server's own, with the details an
 * account cannot be put in at will (a scheduled downgrade, an unpaid status, a plan changed
 * elsewhere) taken from the model; a lost connection, a 500 and a 409 are made up.
 */

jest.setTimeout(60_000);

const live = useServerAndPathsBrowser();
const t = messages.subscription;

const CALLS = {
  subscription: { method: 'GET', path: '/subscription/me' },
  checkout: { method: 'POST', path: '/subscription/checkout' },
} satisfies Record<string, CallPattern>;

/** One signed-in account per plan, on that plan for real. */
const accounts = {} as Record<PlanId, TokenPair>;
/** A member of the Team account's team who pays for Professional of their own. */
let member: TokenPair;

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  for (const { id } of PLANS) {
    const account = uniqueAccount('Ada Lovelace', 'Analytical-Engine-1843');
    const tokens = await api.register(account);
    if (id !== 'free') await api.subscribe(tokens.access_token, id);
    accounts[id] = tokens;
  }
  const joining = await signUp(api, 'Grace Hopper');
  await api.subscribe(joining.tokens.access_token, 'professional');
  await inviteInto(api, live.server.dataDir, accounts.team.access_token, joining);
  member = joining.tokens;
});

/**
 * The account a path signs in: the one on the plan its first load answers, or the team member.
 * When that load fails the page knows no plan and lets any be chosen: then an account that is not
 * on the plan the path chooses first, so the server answers the checkout as the path says (a
 * Free account choosing Free would get 409 already_on_plan).
 */
function accountFor(path: (typeof subscriptionPaths)[number]['path']): TokenPair {
  const loaded = (path.steps[1]?.event as { output?: SubscriptionInfo } | undefined)?.output;
  if (loaded?.own) return member;
  if (loaded) return accounts[loaded.plan as PlanId];
  const chosen = path.steps.map(({ event }) => event).find((event): event is Extract<SubscriptionEvent, { type: 'plan.choose' }> => event.type === 'plan.choose');
  return chosen?.plan === 'free' ? accounts.professional : accounts.free;
}

describeChartPaths('subscription chart, generated paths, in Chromium against the real server', 'subscription', { coverage: subscriptionCoverage, paths: subscriptionPaths }, async ({ path }) => {
  const { baseUrl } = live.server;
  const account = accountFor(path);
  const { page, close } = await openTab(live.browser, storedTokens(account));
  try {
    const held = await HeldCalls.on(page, CALLS);
    const tabs: Page[] = [];
    page.on('popup', (tab) => tabs.push(tab));

    const answerSubscription = async ({ event }: { event: EventObject }) => {
      const { output } = event as EventObject & { output: SubscriptionInfo };
      const real = await answerChanged<SubscriptionInfo>(await held.take('subscription'), (body) => ({ ...body, ...output }));
      // The model's Free subscription is exactly what the server answers for a new account.
      if (output === free) expect(real).toEqual(free);
      // And its team member's is what the server answers for one: Team through the team, their own Professional beside it.
      if (output === teamMember && account === member) expect(real).toMatchObject({ plan: 'team', current_period_end: null, own: { plan: 'professional', status: 'active', cancel_at_period_end: false } });
    };

    await page.goto(`${baseUrl}/subscription`);
    await path.test({
      states: {
        ...inBrowser(page, subscriptionViews),
        'loaded.checkingOut': async (state) => {
          const snapshot = state as SubscriptionSnapshot;
          await seesInBrowser(page, subscriptionViews['loaded.checkingOut'](snapshot));
          // The tab opened on the click itself, before any answer, with nothing in it yet, and
          // cannot reach back into this page.
          const tab = tabs.at(-1)!;
          expect(tab.url()).toBe('about:blank');
          expect(await tab.evaluate(() => window.opener)).toBeNull();
          expect((await held.peek('checkout')).request().postDataJSON()).toEqual({ plan: snapshot.context.choosing });
        },
      },
      events: {
        'xstate.done.actor.loadSubscription': answerSubscription,
        'xstate.done.actor.reloadSubscription': answerSubscription,
        'xstate.error.actor.loadSubscription': async () => cutOff(await held.take('subscription')),
        'xstate.error.actor.reloadSubscription': async () =>
          answerError(await held.take('subscription'), 500, 'internal_error', 'Something went wrong on our side.'),
        'xstate.done.actor.checkout': async () => {
          const answer = await answerFromServer(await held.take('checkout'));
          // The server's own answer is a checkout (or billing-management) address, as the model says.
          expect(answer).toEqual({ checkout_url: expect.stringMatching(/^http/) });
          const { checkout_url } = answer as { checkout_url: string };
          const tab = tabs.at(-1)!;
          await tab.waitForURL(checkout_url);
          expect(tab.isClosed()).toBe(false);
        },
        'xstate.error.actor.checkout': async () => {
          await answerError(await held.take('checkout'), 409, 'already_on_plan', 'You are already on this plan.');
          const tab = tabs.at(-1)!;
          if (!tab.isClosed()) await tab.waitForEvent('close');
          await seesInBrowser(page, [{ text: t.checkoutFailed }, { text: t.checkoutFailedText }]);
        },
        'plan.choose': async ({ event, state }) => {
          const { plan } = event as Extract<SubscriptionEvent, { type: 'plan.choose' }>;
          const button = page.getByRole('article', { name: PLANS.find((p) => p.id === plan)!.name, exact: true }).getByRole('button');
          if ((state as SubscriptionSnapshot).hasTag('busy')) {
            const opened = page.waitForEvent('popup');
            await button.click();
            await opened;
          } else {
            // The current plan's button is disabled: a click on it opens nothing.
            const before = tabs.length;
            expect(await button.isDisabled()).toBe(true);
            await button.click({ force: true });
            await nextFrame(page);
            expect(tabs.length).toBe(before);
          }
        },
        // Coming back to the tab; Playwright keeps every page focused, so the event is sent here.
        'subscription.reload': async () => {
          await page.evaluate(() => window.dispatchEvent(new Event('focus')));
        },
      },
    });
  } finally {
    await close();
  }
});
