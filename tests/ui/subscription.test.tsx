import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as messages from '../../src/content/messages';
import { PLAN_OFFERS } from '../../src/content/plans';
import { toaster } from '../../src/components/ToastRegion';
import type { SubscriptionInfo } from '../../machines/shared/api';
import { ada, signedInApi, type Handler } from '../helpers/fakeApi';
import { freeSubscription } from '../helpers/fixtures';
import { renderApp } from '../helpers/renderApp';

const t = messages.subscription;

const professional: SubscriptionInfo = {
  plan: 'professional',
  status: 'active',
  current_period_end: '2026-12-23T10:00:00.000Z',
  cancel_at_period_end: false,
  scheduled_plan: null,
  usage_limits: { monthly_queries: 1000, daily_tokens: 50000 },
};
const december23 = new Date('2026-12-23T10:00:00.000Z').toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

let api: ReturnType<typeof signedInApi>;
function open(routes: Record<string, Handler>, path = '/subscription') {
  api = signedInApi(routes);
  return renderApp(path);
}
const card = () => within(screen.getByRole('region', { name: t.currentTitle }));
const planCard = (name: string) => within(screen.getByRole('article', { name }));

beforeEach(() => {
  localStorage.clear();
  toaster.remove();
});
afterEach(() => api.restore());

describe('subscription page', () => {
  it('shows a spinner, then the heading, the current subscription and the three plan cards', async () => {
    let answer!: () => void;
    open({
      'GET /subscription/me': () => new Promise((resolve) => (answer = () => resolve({ status: 200, body: professional }))),
    });
    expect(await screen.findByLabelText(messages.loading)).toBeInTheDocument();
    await waitFor(() => expect(api.sent('GET /subscription/me')).toHaveLength(1));
    await act(async () => answer());
    expect(await screen.findByRole('heading', { level: 1, name: t.heading })).toBeInTheDocument();
    expect(card().getByText('Professional')).toBeInTheDocument();
    expect(card().getByText(messages.plan.active)).toBeInTheDocument();
    expect(card().getByText(t.nextBilling)).toBeInTheDocument();
    expect(card().getByText(december23)).toBeInTheDocument();
    expect(card().getByText('1,000')).toBeInTheDocument();
    expect(card().getByText('50,000')).toBeInTheDocument();
    expect(api.sent('GET /subscription/me')[0]!.authorization).toBe('Bearer access-1');

    expect(screen.getAllByRole('article')).toHaveLength(3);
    for (const plan of PLAN_OFFERS) {
      const cardOf = planCard(plan.name);
      expect(cardOf.getByText(`$${plan.priceUsd}`)).toBeInTheDocument();
      plan.features.forEach((feature) => expect(cardOf.getByText(feature)).toBeInTheDocument());
      expect(cardOf.queryByText(messages.landing.mostPopular) !== null).toBe(plan.id === 'professional');
    }
    // Current plan: the badge and a disabled button; Downgrade for free; Upgrade to … for the others.
    expect(planCard('Professional').getByRole('button', { name: t.currentPlan })).toBeDisabled();
    expect(planCard('Professional').getAllByText(t.currentPlan)).toHaveLength(2);
    expect(planCard('Free').getByRole('button', { name: t.downgrade })).toBeEnabled();
    expect(planCard('Team').getByRole('button', { name: t.upgradeTo('Team') })).toBeEnabled();
    expect(planCard('Free').queryByText(t.currentPlan)).toBeNull();
  });

  it('shows no next billing date without a period end, and the default limits when they are missing', async () => {
    open({ 'GET /subscription/me': { status: 200, body: { plan: 'free', status: 'canceled' } } });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    expect(card().queryByText(t.nextBilling)).toBeNull();
    expect(card().getByText(messages.plan.inactive)).toBeInTheDocument();
    expect(card().getByText('100')).toBeInTheDocument();
    expect(card().getByText('1,000')).toBeInTheDocument();
    expect(planCard('Professional').getByRole('button', { name: t.upgradeTo('Professional') })).toBeEnabled();
  });

  it('shows team’s unlimited queries as "Unlimited"', async () => {
    open({
      'GET /subscription/me': { status: 200, body: { ...professional, plan: 'team', usage_limits: { monthly_queries: -1, daily_tokens: 200000 } } },
    });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    expect(card().getByText(messages.plan.unlimited)).toBeInTheDocument();
    expect(card().getByText('200,000')).toBeInTheDocument();
    expect(planCard('Team').getByRole('button', { name: t.currentPlan })).toBeDisabled();
  });

  it('says when a plan with a scheduled downgrade ends and what follows, not when it is next billed', async () => {
    open({ 'GET /subscription/me': { status: 200, body: { ...professional, cancel_at_period_end: true, scheduled_plan: 'free' } } });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    expect(card().queryByText(t.nextBilling)).toBeNull();
    expect(card().getByText(t.planEnds)).toBeInTheDocument();
    expect(card().getByText(`Professional ends on ${december23}; then Free`)).toBeInTheDocument();
  });

  it('omits the card when loading fails, logs the failure, and claims no plan as current', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    // A paying account: its plan as the session knows it must not be taken for the current one.
    api = signedInApi({ 'GET /subscription/me': { status: 500, body: { error: { code: 'internal', message: 'boom' } } } }, { ...ada, subscription_plan: 'professional' });
    renderApp('/subscription');
    await screen.findByRole('heading', { level: 1, name: t.heading });
    expect(screen.queryByRole('region', { name: t.currentTitle })).toBeNull();
    expect(log).toHaveBeenCalledWith('Could not load the subscription:', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText(t.currentPlan)).toBeNull();
    for (const plan of PLAN_OFFERS) {
      expect(planCard(plan.name).getByRole('button', { name: t.choose(plan.name) })).toBeEnabled();
    }
    expect(screen.queryByRole('button', { name: /^(Upgrade|Downgrade)/ })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    log.mockRestore();
  });

  it('opens the tab on the click and sends it to the checkout address when it arrives', async () => {
    let answer!: () => void;
    open({
      'GET /subscription/me': { status: 200, body: freeSubscription },
      'POST /subscription/checkout': () =>
        new Promise((resolve) => (answer = () => resolve({ status: 200, body: { checkout_url: 'https://pay.example/cs_1' } }))),
    });
    const tab = { location: { href: '' }, close: jest.fn(), opener: window as unknown };
    const windowOpen = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: t.upgradeTo('Professional') }));
    // Opened synchronously in the click, before the server answered: pop-up blockers allow it.
    expect(windowOpen).toHaveBeenCalledWith('', '_blank');
    expect(tab.opener).toBeNull();
    expect(await screen.findByRole('button', { name: t.checkoutBusy })).toBeDisabled();
    expect(planCard('Team').getByRole('button')).toBeDisabled();
    expect(api.sent('POST /subscription/checkout').map((r) => r.body)).toEqual([{ plan: 'professional' }]);
    await act(async () => answer());
    await waitFor(() => expect(tab.location.href).toBe('https://pay.example/cs_1'));
    expect(tab.close).not.toHaveBeenCalled();
    expect(planCard('Professional').getByRole('button', { name: t.upgradeTo('Professional') })).toBeEnabled();
    windowOpen.mockRestore();
  });

  it.each([
    ['a refusal', { status: 409, body: { error: { code: 'already_on_plan', message: 'Already on this plan' } } } as Handler],
    ['no connection', 'network' as Handler],
    ['an address that is not a web address', { status: 200, body: { checkout_url: 'javascript:alert(1)' } } as Handler],
  ])('closes the tab and shows the destructive toast on %s', async (_case, checkout) => {
    open({ 'GET /subscription/me': { status: 200, body: freeSubscription }, 'POST /subscription/checkout': checkout });
    const tab = { location: { href: '' }, close: jest.fn(), opener: null };
    const windowOpen = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
    await userEvent.setup().click(await screen.findByRole('button', { name: t.upgradeTo('Team') }));
    expect(await screen.findByText(t.checkoutFailedText)).toBeInTheDocument();
    expect(screen.getByText(t.checkoutFailed)).toBeInTheDocument();
    expect(tab.close).toHaveBeenCalledTimes(1);
    expect(tab.location.href).toBe('');
    windowOpen.mockRestore();
  });

  it('reloads the subscription when the window regains focus', async () => {
    let body: SubscriptionInfo = freeSubscription;
    open({ 'GET /subscription/me': () => ({ status: 200, body }) });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    body = professional;
    await act(async () => window.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(card().getByText('Professional')).toBeInTheDocument());
    expect(planCard('Professional').getByRole('button', { name: t.currentPlan })).toBeDisabled();
    expect(api.sent('GET /subscription/me')).toHaveLength(2);
  });

  it('says once that the payment succeeded when the account is on the plan it paid for after the return to the page', async () => {
    let body: SubscriptionInfo = freeSubscription;
    open({
      'GET /subscription/me': () => ({ status: 200, body }),
      'POST /subscription/checkout': { status: 200, body: { checkout_url: 'https://pay.example/cs_1' } },
    });
    const tab = { location: { href: '' }, close: jest.fn(), opener: null };
    const windowOpen = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
    await userEvent.setup().click(await screen.findByRole('button', { name: t.upgradeTo('Professional') }));
    await waitFor(() => expect(tab.location.href).toBe('https://pay.example/cs_1'));
    // Back before paying: nothing changed, nothing said.
    await act(async () => window.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(api.sent('GET /subscription/me')).toHaveLength(2));
    expect(screen.queryByText(t.paymentSucceeded)).toBeNull();
    // Paid in the other tab, then back.
    body = professional;
    await act(async () => window.dispatchEvent(new Event('focus')));
    expect(await screen.findByText(t.paymentSucceeded)).toBeInTheDocument();
    expect(screen.getByText(t.paymentSucceededText('Professional'))).toBeInTheDocument();
    expect(planCard('Professional').getByRole('button', { name: t.currentPlan })).toBeDisabled();
    toaster.remove();
    await act(async () => window.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(api.sent('GET /subscription/me')).toHaveLength(4));
    expect(screen.queryByText(t.paymentSucceeded)).toBeNull();
    windowOpen.mockRestore();
  });

  it('says nothing of a payment when the plan changes without a checkout from the page', async () => {
    let body: SubscriptionInfo = freeSubscription;
    open({ 'GET /subscription/me': () => ({ status: 200, body }) });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    body = professional;
    await act(async () => window.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(card().getByText('Professional')).toBeInTheDocument());
    expect(screen.queryByText(t.paymentSucceeded)).toBeNull();
  });

  it('reloads the subscription on the return from a paid checkout', async () => {
    let body: SubscriptionInfo = freeSubscription;
    const { router } = open({ 'GET /subscription/me': () => ({ status: 200, body }) });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    body = professional;
    await act(() => router.navigate('/subscription?checkout=success'));
    await waitFor(() => expect(card().getByText('Professional')).toBeInTheDocument());
    expect(api.sent('GET /subscription/me')).toHaveLength(2);
  });

  it('refreshes an expired session once and retries the load', async () => {
    api = signedInApi({
      'GET /subscription/me': (request) =>
        request.authorization === 'Bearer access-2'
          ? { status: 200, body: professional }
          : { status: 401, body: { error: { code: 'invalid_token', message: 'expired' } } },
      'POST /auth/refresh': { status: 200, body: { access_token: 'access-2', refresh_token: 'refresh-2' } },
    });
    // The session starts valid (GET /users/me answers), then the access token expires.
    renderApp('/subscription');
    expect(within(await screen.findByRole('region', { name: t.currentTitle })).getByText('Professional')).toBeInTheDocument();
    expect(api.sent('POST /auth/refresh')).toHaveLength(1);
    expect(api.sent('GET /subscription/me').map((r) => r.authorization)).toEqual(['Bearer access-1', 'Bearer access-2']);
  });

  it('answers the FAQ of the spec', async () => {
    open({ 'GET /subscription/me': { status: 200, body: freeSubscription } });
    await screen.findByRole('heading', { level: 1, name: t.heading });
    const faq = within(screen.getByRole('region', { name: t.faqTitle }));
    for (const item of t.faq) {
      expect(faq.getByRole('heading', { name: item.q })).toBeInTheDocument();
      expect(faq.getByText(item.a)).toBeInTheDocument();
    }
    const text = faq.getAllByRole('heading').map((h) => h.parentElement?.textContent ?? '').join(' ');
    expect(text).toMatch(/next billing cycle/);
    expect(text).toMatch(/do not roll over/);
    expect(text).toMatch(/start on the Free plan with 100 queries per month/);
    expect(text).toMatch(/account settings.*contact support/);
  });

  it('is reached from the top bar and needs a signed-in user', async () => {
    open({ 'GET /subscription/me': { status: 200, body: freeSubscription } }, '/profile');
    const topBar = within(await screen.findByRole('banner'));
    await userEvent.setup().click(await topBar.findByRole('link', { name: messages.layout.subscription }));
    expect(await screen.findByRole('heading', { level: 1, name: t.heading })).toBeInTheDocument();
  });
});

describe('subscription page, signed out', () => {
  it('redirects to /login', async () => {
    api = signedInApi({});
    localStorage.clear();
    const { router } = renderApp('/subscription');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });
});
