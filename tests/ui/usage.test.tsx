import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as messages from '../../src/content/messages';
import { toaster } from '../../src/components/ToastRegion';
import { presetRange, utcToday } from '../../machines/usage/usage.range';
import { signedInApi, type Handler, type SeenRequest } from '../helpers/fakeApi';
import { renderApp } from '../helpers/renderApp';
import { analyticsFor, LONG_KEY_NAME } from '../model/usage.paths';

const t = messages.usage;
const today = utcToday();

let api: ReturnType<typeof signedInApi>;
let log: jest.SpyInstance;
/** The files the page handed the browser: each download's name, and each file's bytes. */
let saved: string[];
let files: Blob[];

const bytesOf = (blob: Blob) =>
  new Promise<Uint8Array>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.readAsArrayBuffer(blob);
  });

/** The analytics the fake API answers, for the range asked. */
const analytics: Handler = (request: SeenRequest) => ({ status: 200, body: analyticsFor(request.params as { from: string; to: string }) });

function open(path: string, routes: Record<string, Handler> = {}) {
  api = signedInApi({
    'GET /usage/analytics': analytics,
    'GET /subscription/me': { status: 200, body: { plan: 'professional', status: 'active' } },
    ...routes,
  });
  return renderApp(path);
}

beforeEach(() => {
  localStorage.clear();
  toaster.remove();
  log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  saved = [];
  files = [];
  URL.createObjectURL = jest.fn((blob: Blob) => {
    files.push(blob);
    return 'blob:file';
  });
  URL.revokeObjectURL = jest.fn();
  jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
});
afterEach(() => {
  api.restore();
  log.mockRestore();
  jest.restoreAllMocks();
});

describe('/usage', () => {
  it('shows the figures of the last 30 days: totals, p50/p95, the chart with a day on keyboard focus, and the tables', async () => {
    open('/usage');
    const range = presetRange('last30', today);
    await screen.findByRole('region', { name: t.totalsHeading });
    expect(api.sent('GET /usage/analytics')[0]!.params).toEqual(range);
    expect(screen.getByRole('button', { name: t.presets.last30 })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText(t.milliseconds('790'))).toBeInTheDocument();
    expect(screen.getByText(t.milliseconds('1,830'))).toBeInTheDocument();

    const chart = await screen.findByRole('img', { name: new RegExp(`^${t.chartTitle('\0', '\0').split('\0')[0]}`) });
    const section = within(screen.getByRole('region', { name: t.chartHeading }));
    expect(section.getByText(t.xAxis)).toBeInTheDocument();
    expect(section.getByText(t.yAxis)).toBeInTheDocument();
    expect(section.getByText(t.chartLegend)).toBeInTheDocument();
    // The days are one tab stop, the last day first; the arrow keys move between them, and the focused day says its values.
    const days = within(chart).getAllByRole('img');
    expect(days).toHaveLength(30);
    expect(days.filter((day) => day.getAttribute('tabindex') === '0')).toEqual([days[29]]);
    const browser = userEvent.setup();
    days[29]!.focus();
    await browser.keyboard('{Home}');
    expect(days[0]).toHaveFocus();
    await browser.keyboard('{ArrowRight}');
    expect(days[1]).toHaveFocus();
    const second = analyticsFor(range).days[1]!;
    expect(days[1]).toHaveAccessibleName(expect.stringContaining(`${second.queries} queries, ${second.tokens} tokens, average 812.5 ms`));
    // The same values show on screen beside the day.
    expect(screen.getAllByText(days[1]!.getAttribute('aria-label')!).length).toBeGreaterThan(0);

    const byTask = screen.getByRole('table', { name: t.byTaskHeading });
    expect(within(byTask).getByText(t.tasks.formula!)).toBeInTheDocument();
    const byCredential = screen.getByRole('table', { name: t.byCredentialHeading });
    expect(within(byCredential).getByText(LONG_KEY_NAME)).toBeInTheDocument();
    expect(within(byCredential).getByText(t.credentialKinds.api_key!)).toBeInTheDocument();
  });

  it('loads a preset range, and checks a custom one before asking for it', async () => {
    open('/usage');
    await screen.findByRole('region', { name: t.totalsHeading });
    const browser = userEvent.setup();
    await browser.click(screen.getByRole('button', { name: t.presets.lastMonth }));
    await waitFor(() => expect(api.sent('GET /usage/analytics').at(-1)!.params).toEqual(presetRange('lastMonth', today)));

    await browser.click(screen.getByRole('button', { name: t.presets.custom }));
    const from = screen.getByLabelText(t.from);
    const to = screen.getByLabelText(t.to);
    await browser.clear(from);
    await browser.type(from, '2026-11-10');
    await browser.clear(to);
    await browser.type(to, '2026-11-01');
    const asked = api.sent('GET /usage/analytics').length;
    await browser.click(screen.getByRole('button', { name: t.showRange }));
    expect(await screen.findByText(t.rangeErrors.fromAfterTo)).toBeInTheDocument();
    expect(from).toHaveAttribute('aria-invalid', 'true');
    // A day after today, and a range too long.
    await browser.clear(from);
    await browser.type(from, '2025-10-01');
    await browser.clear(to);
    await browser.type(to, today);
    await browser.click(screen.getByRole('button', { name: t.showRange }));
    expect(await screen.findByText(/^The range is \d+ days long; it may be at most 366\.$/)).toBeInTheDocument();
    expect(api.sent('GET /usage/analytics')).toHaveLength(asked);

    await browser.clear(from);
    await browser.type(from, presetRange('last90', today).from);
    await browser.click(screen.getByRole('button', { name: t.showRange }));
    await waitFor(() => expect(api.sent('GET /usage/analytics').at(-1)!.params).toEqual({ from: presetRange('last90', today).from, to: today }));
    expect(screen.queryByText(/it may be at most 366/)).not.toBeInTheDocument();
  });

  it('downloads the CSV of the range shown', async () => {
    open('/usage', { 'GET /usage/export.csv': { status: 200, body: 'at,task\r\n' } });
    await screen.findByRole('region', { name: t.totalsHeading });
    await userEvent.setup().click(screen.getByRole('button', { name: t.downloadCsv }));
    const range = presetRange('last30', today);
    await waitFor(() => expect(saved).toEqual([`usage-${range.from}-to-${range.to}.csv`]));
    expect(api.sent('GET /usage/export.csv')[0]!.params).toEqual(range);
    // UTF-8 with its byte order mark, which spreadsheet applications need.
    expect(Array.from(await bytesOf(files[0]!))).toEqual([0xef, 0xbb, 0xbf, ...Array.from('at,task\r\n', (c) => c.charCodeAt(0))]);
  });

  it('offers Professional to a Free account instead of the figures, and still the account export', async () => {
    open('/usage', {
      'GET /usage/analytics': { status: 403, body: { error: { code: 'plan_required', message: 'Usage analytics come with the Professional plan.', required_plan: 'professional' } } },
    });
    expect(await screen.findByRole('heading', { name: t.upgradeHeading })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: t.upgradeAction('Professional') })).toHaveAttribute('href', '/subscription');
    expect(screen.queryByRole('button', { name: t.presets.last30 })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: t.exportAction })).toBeInTheDocument();
  });

  it('says a range has no usage, and a failure with a retry that loads again', async () => {
    let fail = true;
    open('/usage', { 'GET /usage/analytics': (request) => (fail ? { status: 500, body: { error: { code: 'internal_error', message: 'Something went wrong on our side.' } } } : analytics(request)) });
    expect(await screen.findByText(t.loadFailed)).toBeInTheDocument();
    expect(screen.getByText('Something went wrong on our side.')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: t.retry }));
    expect(await screen.findByRole('region', { name: t.totalsHeading })).toBeInTheDocument();
  });

  it('says so when the range has no usage', async () => {
    open('/usage', {
      'GET /usage/analytics': (request) => {
        const empty = analyticsFor(request.params as { from: string; to: string });
        return { status: 200, body: { ...empty, days: empty.days.map((day) => ({ ...day, queries: 0, tokens: 0 })), by_task: [], by_credential: [] } };
      },
    });
    expect(await screen.findByRole('region', { name: t.emptyTitle })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: t.downloadCsv })).not.toBeInTheDocument();
  });
});

describe('Download my data', () => {
  it.each(['/usage', '/profile'])('on %s saves the account export, and names the wait when the hour is not over', async (path) => {
    let calls = 0;
    open(path, {
      'GET /users/me/export': () =>
        ++calls === 1
          ? { status: 200, body: '{"format":"account-export/1"}' }
          : { status: 429, body: { error: { code: 'rate_limited', message: 'Too many account exports.' } }, headers: { 'retry-after': '3540' } },
    });
    const button = await screen.findByRole('button', { name: t.exportAction });
    const browser = userEvent.setup();
    await browser.click(button);
    expect(await screen.findByText(t.exportDone)).toBeInTheDocument();
    expect(saved).toEqual([`account-export-${today}.json`]);
    await browser.click(screen.getByRole('button', { name: t.exportAction }));
    expect(await screen.findByText(t.exportThrottled(3540))).toBeInTheDocument();
    expect(t.exportThrottled(3540)).toContain('59 minutes');
  });
});

describe('links to /usage', () => {
  it('from the dashboard and the top bar', async () => {
    open('/dashboard', {
      'GET /query/usage': { status: 200, body: { monthly_queries: 1 } },
      'GET /query/usage/daily': { status: 200, body: { days: [] } },
    });
    const link = await screen.findByRole('link', { name: messages.dashboard.usageLink });
    expect(link).toHaveAttribute('href', '/usage');
    const nav = within(screen.getByRole('navigation', { name: messages.layout.mainNav }));
    expect(nav.getByRole('link', { name: messages.layout.usage })).toHaveAttribute('href', '/usage');
  });
});
