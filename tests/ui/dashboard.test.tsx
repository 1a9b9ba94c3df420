import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as messages from '../../src/content/messages';
import { toaster } from '../../src/components/ToastRegion';
import type { DailyUsage, SubscriptionInfo, UsageStats } from '../../machines/shared/api';
import { ada, signedInApi, type Handler, type Reply } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';

const t = messages.dashboard;

const subscriptionOf = (plan: string, monthly: number | undefined, daily: number | undefined, extra: Partial<SubscriptionInfo> = {}) => ({
  status: 200,
  body: { plan, status: 'active', current_period_end: null, cancel_at_period_end: false, scheduled_plan: null, usage_limits: { monthly_queries: monthly, daily_tokens: daily }, ...extra },
});
const usageOf = (usage: UsageStats): Reply => ({ status: 200, body: usage });
const days: DailyUsage[] = Array.from({ length: 30 }, (_, i) => ({
  date: new Date(Date.UTC(2026, 10, 1 + i)).toISOString().slice(0, 10),
  queries: i === 20 ? 12 : i % 3,
  tokens: 10 * i,
}));
const serverError: Reply = { status: 500, body: { error: { code: 'internal', message: 'boom' } } };

let api: ReturnType<typeof signedInApi>;
let log: jest.SpyInstance;

function open(routes: Record<string, Handler> = {}) {
  api = signedInApi({
    'GET /query/usage': usageOf({ monthly_queries: 42, daily_tokens: 300, queries_per_minute: 2, processing_time: 812.6, total_queries: 12345 }),
    'GET /subscription/me': subscriptionOf('free', 100, 1000),
    'GET /query/usage/daily': { status: 200, body: { days } },
    ...routes,
  });
  return renderApp('/dashboard');
}
const region = (name: string) => within(screen.getByRole('region', { name }));
const settled = async () => {
  await screen.findByRole('heading', { level: 1, name: t.title });
  await waitFor(() => expect(screen.getByRole('button', { name: t.refresh })).toBeEnabled());
};
const warningText = (percent: number) => t.warning(String(percent));
const paletteOf = (element: HTMLElement) => getComputedStyle(element).getPropertyValue('--chakra-colors-color-palette-solid');

// The page's lazy modules are transformed by jest on first import, which on a loaded machine takes
// longer than a find waits: load them once before the first test, as a browser has them cached.
beforeAll(() => import('../../src/pages/DashboardPage'), 60_000);

beforeEach(() => {
  localStorage.clear();
  toaster.remove();
  log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  api.restore();
  log.mockRestore();
});

describe('dashboard', () => {
  it('shows the greeting, the plan, both meters, the overview, the daily chart and the quick actions', async () => {
    open({
      'GET /subscription/me': subscriptionOf('professional', 1000, 50000, {
        current_period_end: '2026-12-23T10:00:00.000Z',
        cancel_at_period_end: true,
        scheduled_plan: 'free',
      }),
    });
    await settled();
    expect(screen.getByText(t.greeting(ada.full_name))).toBeInTheDocument();
    const plan = region(t.planTitle);
    expect(plan.getByText('PROFESSIONAL')).toBeInTheDocument();
    expect(plan.getByText(messages.plan.active)).toBeInTheDocument();
    expect(plan.getByText(/changes to Free on/)).toBeInTheDocument();

    const monthly = region(t.monthlyQueries);
    expect(monthly.getByText('42')).toBeInTheDocument();
    expect(monthly.getByText(t.ofQueries('1,000'))).toBeInTheDocument();
    // 42 ÷ 1,000 × 100 = 4.2 %, read rounded up.
    expect(monthly.getByRole('progressbar', { name: t.monthlyQueries })).toHaveAttribute('aria-valuenow', '4.2');
    expect(monthly.getByText(t.percentUsed('5'))).toBeInTheDocument();
    const tokens = region(t.dailyTokens);
    expect(tokens.getByText(t.ofTokens('50,000'))).toBeInTheDocument();
    expect(tokens.getByRole('progressbar', { name: t.dailyTokens })).toHaveAttribute('aria-valuenow', '0.6');

    const overview = region(t.overviewTitle);
    expect(overview.getByText(t.queriesPerMinute).nextSibling).toHaveTextContent('2');
    expect(overview.getByText(t.processingTime).nextSibling).toHaveTextContent(t.milliseconds('813'));
    expect(overview.getByText(t.totalQueries).nextSibling).toHaveTextContent('12,345');
    const chart = await overview.findByRole('img', { name: t.dailyTitle });
    const total = days.reduce((sum, day) => sum + day.queries, 0);
    expect(chart).toHaveAccessibleDescription(new RegExp(`^${total} queries in the last 30 days; busiest day Nov 21: 12 queries`));
    expect(chart.querySelectorAll('rect')).toHaveLength(30);

    const actions = region(t.quickActionsTitle);
    expect(actions.getByRole('link', { name: new RegExp(`^${t.openMarketplace}`) })).toHaveAttribute('href', 'https://workspace.google.com/marketplace');
    expect(actions.getByRole('link', { name: new RegExp(`^${t.openSpreadsheet}`) })).toHaveAttribute('href', 'https://sheets.google.com');
    expect(actions.getByRole('link', { name: t.emailSupport })).toHaveAttribute('href', 'mailto:support@sheetmind.example');
    expect(screen.queryByRole('region', { name: t.getStartedTitle })).toBeNull();
    expect(screen.queryByText(/of your monthly queries/)).toBeNull();
  });

  it('loads usage, subscription and daily usage in parallel, with the session’s bearer token', async () => {
    const answers: Array<() => void> = [];
    const held = (reply: Reply): Handler => () => new Promise((resolve) => answers.push(() => resolve(reply)));
    open({
      'GET /query/usage': held(usageOf({ monthly_queries: 5 })),
      'GET /subscription/me': held(subscriptionOf('free', 100, 1000)),
      'GET /query/usage/daily': held({ status: 200, body: { days } }),
    });
    // All three are asked before any answers.
    await waitFor(() => expect(answers).toHaveLength(3));
    expect(screen.getByRole('button', { name: t.refreshing })).toBeDisabled();
    for (const route of ['GET /query/usage', 'GET /subscription/me', 'GET /query/usage/daily']) {
      expect(api.sent(route).map((r) => r.authorization)).toEqual(['Bearer access-1']);
    }
    await act(async () => answers.forEach((answer) => answer()));
    await settled();
  });

  it.each([
    ['professional', 'blue'],
    ['team', 'purple'],
    ['free', 'gray'],
    ['enterprise', 'gray'],
  ])('shows the %s badge in %s', async (plan, colour) => {
    open({ 'GET /subscription/me': subscriptionOf(plan, 1000, 50000) });
    await settled();
    const badge = region(t.planTitle).getByText(plan.toUpperCase());
    expect(paletteOf(badge)).toBe(`var(--chakra-colors-${colour}-solid)`);
  });

  it('says Inactive for any status other than active', async () => {
    open({ 'GET /subscription/me': subscriptionOf('professional', 1000, 50000, { status: 'past_due' }) });
    await settled();
    expect(region(t.planTitle).getByText(messages.plan.inactive)).toBeInTheDocument();
  });

  it.each([
    [80, 100, null],
    [81, 100, 81],
    [801, 1000, 81],
    [100, 100, 100],
  ])('%i of %i queries: warning %p', async (used, limit, shown) => {
    open({
      'GET /query/usage': usageOf({ monthly_queries: used }),
      'GET /subscription/me': subscriptionOf(limit === 100 ? 'free' : 'professional', limit, 1000),
    });
    await settled();
    if (shown === null) {
      expect(screen.queryByText(/of your monthly queries/)).toBeNull();
      expect(screen.queryByRole('link', { name: t.upgradePlan })).toBeNull();
      expect(region(t.monthlyQueries).getByText(t.percentUsed('80'))).toBeInTheDocument();
    } else {
      expect(screen.getByText(warningText(shown))).toBeInTheDocument();
      expect(screen.getByRole('link', { name: t.upgradePlan })).toHaveAttribute('href', '/subscription');
      expect(region(t.monthlyQueries).getByText(t.percentUsed(String(shown)))).toBeInTheDocument();
    }
  });

  it('leads from the warning to the subscription page', async () => {
    open({
      'GET /query/usage': usageOf({ monthly_queries: 95 }),
      'GET /subscription/me': subscriptionOf('free', 100, 1000),
    });
    await settled();
    await userEvent.setup().click(screen.getByRole('link', { name: t.upgradePlan }));
    expect(await screen.findByRole('heading', { level: 1, name: messages.subscription.heading })).toBeInTheDocument();
  });

  it('uses 100 queries and 1,000 tokens when the limits are missing', async () => {
    open({
      'GET /query/usage': usageOf({ monthly_queries: 85, daily_tokens: 250 }),
      'GET /subscription/me': { status: 200, body: { plan: 'free', status: 'active' } },
    });
    await settled();
    expect(region(t.monthlyQueries).getByText(t.ofQueries('100'))).toBeInTheDocument();
    expect(region(t.dailyTokens).getByText(t.ofTokens('1,000'))).toBeInTheDocument();
    expect(region(t.dailyTokens).getByText(t.percentUsed('25'))).toBeInTheDocument();
    expect(screen.getByText(warningText(85))).toBeInTheDocument();
  });

  it.each([
    ['a brand-new account (no query yet) without "Welcome back"', 0, t.greetingNew(ada.full_name)],
    ['someone who has made queries with "Welcome back"', 7, t.greeting(ada.full_name)],
  ])('greets %s', async (_who, total, greeting) => {
    open({ 'GET /query/usage': usageOf({ monthly_queries: 0, daily_tokens: 0, queries_per_minute: 0, processing_time: 0, total_queries: total }) });
    await settled();
    expect(screen.getByText(greeting)).toBeInTheDocument();
    if (total === 0) expect(screen.queryByText(/Welcome back/)).toBeNull();
  });

  it('leaves the greeting line empty while the usage loads, so a returning person is never greeted as new first', async () => {
    let answer: (reply: Reply) => void = () => undefined;
    open({ 'GET /query/usage': () => new Promise<Reply>((resolve) => (answer = resolve)) });
    await screen.findByRole('heading', { level: 1, name: t.title });
    // The line holds its place (no shift when the greeting comes), with nothing shown or read out.
    expect(screen.getByText(t.greetingNew(ada.full_name))).not.toBeVisible();
    expect(screen.queryByText(t.greeting(ada.full_name))).toBeNull();
    act(() => answer(usageOf({ monthly_queries: 3, daily_tokens: 40, queries_per_minute: 0, processing_time: 0, total_queries: 3 })));
    await settled();
    expect(await screen.findByText(t.greeting(ada.full_name))).toBeVisible();
    expect(screen.queryByText(t.greetingNew(ada.full_name))).toBeNull();
  });

  it('greets as new when the usage could not be loaded', async () => {
    open({ 'GET /query/usage': serverError });
    await settled();
    expect(screen.getByText(t.greetingNew(ada.full_name))).toBeVisible();
  });

  it('shows team’s unlimited queries plainly, with no percentage and no warning', async () => {
    open({
      'GET /query/usage': usageOf({ monthly_queries: 25000, daily_tokens: 1000 }),
      'GET /subscription/me': subscriptionOf('team', -1, 200000),
    });
    await settled();
    const monthly = region(t.monthlyQueries);
    expect(monthly.getByText('25,000')).toBeInTheDocument();
    // Said plainly: never "of Unlimited queries".
    expect(monthly.getByText(t.queriesUnlimited)).toBeInTheDocument();
    expect(monthly.queryByText(new RegExp(messages.plan.unlimited))).toBeNull();
    expect(monthly.queryByRole('progressbar')).toBeNull();
    expect(monthly.queryByText(/% used/)).toBeNull();
    expect(screen.queryByText(/of your monthly queries/)).toBeNull();
    expect(region(t.dailyTokens).getByText(t.ofTokens('200,000'))).toBeInTheDocument();
  });

  it.each([
    ['zero', { monthly_queries: 0, total_queries: 0 }, true],
    ['missing', { total_queries: 0 }, true],
    ['one', { monthly_queries: 1 }, false],
  ])('get-started card when the monthly count is %s: %p', async (_case, usage, shown) => {
    open({ 'GET /query/usage': usageOf(usage as UsageStats) });
    await settled();
    const card = screen.queryByRole('region', { name: t.getStartedTitle });
    expect(card !== null).toBe(shown);
    if (!card) return;
    const within$ = within(card);
    expect(within$.getByRole('link', { name: new RegExp(`^${t.installAddOn}`) })).toHaveAttribute('href', 'https://workspace.google.com/marketplace');
    const guide = within$.getByRole('button', { name: t.quickStart });
    expect(guide).toHaveAttribute('aria-expanded', 'false');
    expect(within$.queryByText(t.quickStartSteps[0])).not.toBeVisible();
    await userEvent.setup().click(guide);
    expect(guide).toHaveAttribute('aria-expanded', 'true');
    expect(within$.getByText(t.quickStartSteps[0])).toBeVisible();
  });

  it('shows a failed part as unavailable with a retry, logs it, and keeps the others', async () => {
    let usageFails = true;
    open({ 'GET /query/usage': () => (usageFails ? serverError : usageOf({ monthly_queries: 7 })) });
    await settled();
    expect(log).toHaveBeenCalledWith("Could not load the dashboard's usage:", expect.objectContaining({ status: 500 }));
    expect(region(t.monthlyQueries).getByText(t.usageUnavailable)).toBeInTheDocument();
    expect(region(t.overviewTitle).getByText(t.usageUnavailable)).toBeInTheDocument();
    expect(region(t.planTitle).getByText('FREE')).toBeInTheDocument();
    usageFails = false;
    await userEvent.setup().click(region(t.monthlyQueries).getByRole('button', { name: t.retry }));
    expect(await region(t.monthlyQueries).findByText(t.ofQueries('100'))).toBeInTheDocument();
    expect(api.sent('GET /query/usage')).toHaveLength(2);
    expect(api.sent('GET /subscription/me')).toHaveLength(1);
  });

  it('shows the counts without limits while the subscription cannot be loaded, and retries it alone', async () => {
    let subscriptionFails = true;
    open({
      'GET /query/usage': usageOf({ monthly_queries: 90 }),
      'GET /subscription/me': () => (subscriptionFails ? 'network' : subscriptionOf('professional', 1000, 50000)),
    });
    await settled();
    expect(region(t.planTitle).getByText(t.planUnavailable)).toBeInTheDocument();
    // 90 queries is no warning-worthy 90 % of Free's 100 for a user whose plan is not known.
    expect(region(t.monthlyQueries).getByText('90')).toBeInTheDocument();
    expect(region(t.monthlyQueries).getByText(t.limitsUnavailable)).toBeInTheDocument();
    expect(region(t.monthlyQueries).queryByText(t.ofQueries('100'))).toBeNull();
    expect(screen.queryByText(/of your monthly queries/)).toBeNull();
    subscriptionFails = false;
    await userEvent.setup().click(region(t.planTitle).getByRole('button', { name: t.retry }));
    expect(await region(t.planTitle).findByText('PROFESSIONAL')).toBeInTheDocument();
    expect(region(t.monthlyQueries).getByText(t.ofQueries('1,000'))).toBeInTheDocument();
    expect(screen.queryByText(/of your monthly queries/)).toBeNull();
    expect(api.sent('GET /query/usage')).toHaveLength(1);
  });

  it('shows a failed daily chart as unavailable with a retry', async () => {
    let dailyFails = true;
    open({ 'GET /query/usage/daily': () => (dailyFails ? serverError : { status: 200, body: { days } }) });
    await settled();
    const overview = region(t.overviewTitle);
    expect(overview.getByText(t.dailyUnavailable)).toBeInTheDocument();
    expect(overview.getByText(t.totalQueries)).toBeInTheDocument();
    dailyFails = false;
    await userEvent.setup().click(overview.getByRole('button', { name: t.retry }));
    expect(await overview.findByRole('img', { name: t.dailyTitle })).toBeInTheDocument();
  });

  it('reloads usage, subscription and daily usage on Refresh, keeping the cards meanwhile', async () => {
    let used = 10;
    open({ 'GET /query/usage': () => usageOf({ monthly_queries: used }) });
    await settled();
    expect(region(t.monthlyQueries).getByText('10')).toBeInTheDocument();
    used = 11;
    await userEvent.setup().click(screen.getByRole('button', { name: t.refresh }));
    await waitFor(() => expect(region(t.monthlyQueries).getByText('11')).toBeInTheDocument());
    for (const route of ['GET /query/usage', 'GET /subscription/me', 'GET /query/usage/daily']) expect(api.sent(route)).toHaveLength(2);
  });
});
