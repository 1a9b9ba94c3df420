import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { LOAD_PATHS } from '../../machines/shared/loadPaths';
import { SESSION_CHECK_ATTRIBUTE } from '../../machines/shared/tokenStorage';
import { APP_READY_ATTRIBUTE } from '../../src/lib/pageScripts';
import { trackCalls, useServerAndBrowser, watchPage } from '../helpers/browser';
import {
  apiClient,
  inviteByMail,
  makeTeam,
  openContext,
  setUpAuthenticator,
  signUp,
  storedTokens,
  uniqueAccount,
  type ApiClient,
  type LiveAccount,
} from '../helpers/browserPaths';

/**
 * A signed-in page does not jump when its data arrives (issue 40): what it paints first, before
 * the session check and its calls have answered, keeps the room the filled page takes. Each
 * signed-in page is loaded afresh by a Team owner whose every page has data (a member and an
 * invitation, queries, an API key, a custom function), on a desktop and on a phone screen, once as
 * the server answers and once with the answers held back (`holdAnswersBack`): the session check
 * until the app has drawn, then the page's own calls one at a time, so that its spinners and
 * placeholders are on screen before its data. The browser's own layout-shift entries, from the
 * navigation until the page is filled and nothing it asked is on its way, must add up to at most
 * 0.02 (Core Web Vitals call 0.1 good; a skeleton the size of its content shifts nothing). The cases of a page are independent (a context each), so they run side
 * by side (`it.concurrent`): most of a case is waiting for the page to be quiet, and one after
 * another they took three minutes.
 */

jest.setTimeout(180_000);

const live = useServerAndBrowser();
let owner: LiveAccount;
/** An account that has not opened its verification link: every signed-in page has the reminder above it. */
let unverified: LiveAccount;
/** A member of a team that requires a second factor, without one: every signed-in page has the way to set one up above it. */
let heldMember: LiveAccount;

/** The invitation mailed to the unverified account, to the Team owner's team: its /invite/{token} address. */
let invitation = '';

/** /link as the add-on opens it, with the code of a real request (RFC 8628 §3.3.1): the address is known once the request is made. */
const ADDON_LINK = '/link from the add-on';
let addonLink = '';

const SCREENS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
} as const;

/** Most of what the browser may count before a person would see a page move (web.dev/articles/cls). */
const MOST_SHIFT = 0.02;

/** How long each API answer is held back in the slow variant: the data then comes well after the first paint. */
const HELD_MS = 500;

async function withData(api: ApiClient, account: LiveAccount): Promise<void> {
  const token = account.tokens.access_token;
  const ok = async (method: string, path: string, body: unknown) => {
    const res = await api.call(method, path, body, token);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  for (const task of ['formula', 'analyze', 'explain']) await ok('POST', '/query', { task, prompt: 'Sum of column B', data: [['a', 'b'], [1, 2]] });
  await ok('POST', '/api-keys', { name: 'Nightly report', scopes: ['query', 'usage:read'] });
  await ok('POST', '/functions', { name: 'TOTAL_BY_REGION', task: 'analyze', prompt: 'Total {{input}} by region, largest first', description: 'Revenue per region' });
  await ok('POST', '/functions', { name: 'TEAM_TOTALS', task: 'ask', prompt: 'Totals of {{input}} for the team', description: 'The team’s monthly totals', scope: 'team' });
}

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  owner = await signUp(api, 'Katherine Johnson');
  const member = await signUp(api, 'Dorothy Vaughan');
  await makeTeam(api, live.server.dataDir, owner, [member], ['mary.jackson@example.com']);
  await withData(api, owner);
  const authorization = await fetch(`${live.server.baseUrl}/api/v1/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'sheetmind-addon' }).toString(),
  });
  const complete = new URL(((await authorization.json()) as { verification_uri_complete: string }).verification_uri_complete);
  addonLink = `${complete.pathname}${complete.search}`;

  const account = uniqueAccount('Annie Easley', 'Analytical-Engine-1843');
  const registered = await api.register(account, { verified: false });
  unverified = { tokens: registered, id: registered.user.id, email: account.email };
  invitation = new URL((await inviteByMail(api, live.server.dataDir, owner.tokens.access_token, account.email)).link).pathname;
  const admin = await signUp(api, 'Mary Jackson');
  heldMember = await signUp(api, 'Christine Darden');
  await makeTeam(api, live.server.dataDir, admin, [heldMember]);
  await setUpAuthenticator(api, admin.tokens.access_token);
  const required = await api.call('PATCH', '/teams/me/security', { require_two_factor: true }, admin.tokens.access_token);
  if (required.status !== 200) throw new Error(`requiring a second factor answered ${required.status}`);
});

const t = messages;

/**
 * What each page shows once its data is in: something only an answer of the server can fill (a
 * name, a figure), seen by the person. The page is filled when it shows and nothing is on its way.
 */
const FILLED: Record<string, (page: Page) => Promise<void>> = {
  '/dashboard': async (page) => {
    // Its placeholder holds the words too, hidden: only the plan's own shows.
    await page.getByRole('main').getByText(t.plan.active).first().waitFor();
    await page.getByRole('main').getByRole('img', { name: t.dashboard.dailyTitle }).waitFor();
  },
  '/subscription': (page) => page.getByRole('main').getByText(t.plan.active).first().waitFor(),
  '/profile': (page) => page.getByRole('main').getByText('Nightly report').first().waitFor(),
  '/team': (page) => page.getByRole('main').getByText('mary.jackson@example.com').first().waitFor(),
  '/guide': (page) => page.getByRole('main').getByRole('heading', { level: 1 }).waitFor(),
  '/link': (page) => page.getByRole('main').getByRole('heading', { level: 1 }).waitFor(),
  // Opened from the add-on's link: the request looked up, its details shown.
  [ADDON_LINK]: (page) => page.getByRole('main').getByRole('button', { name: t.link.approve }).waitFor(),
  '/usage': (page) => page.getByRole('main').getByRole('table').first().waitFor(),
  '/functions': (page) => page.getByRole('main').getByText('TOTAL_BY_REGION').first().waitFor(),
};

interface Shift {
  value: number;
  at: number;
  sources: string[];
}

/**
 * Installed before the page's own scripts: every layout shift the browser reports (buffered, so
 * none before the observer is missed), but those within half a second of an input, which a person
 * caused and expects. Each moved element is described as it is at that moment (it may be gone later).
 */
function recordShifts(page: Page): Promise<unknown> {
  return page.addInitScript(() => {
    const shifts: Array<{ value: number; at: number; sources: string[] }> = [];
    (window as unknown as { __layoutShifts: typeof shifts }).__layoutShifts = shifts;
    const describe = (node: Node | null | undefined): string => {
      if (!node) return '(gone)';
      if (!(node instanceof Element)) return `text "${(node.textContent ?? '').trim().slice(0, 40)}" in ${describe(node.parentElement)}`;
      const path: string[] = [];
      for (let element: Element | null = node; element && element !== document.body && path.length < 4; element = element.parentElement) {
        const role = element.getAttribute('role');
        const label = element.getAttribute('aria-label') ?? element.getAttribute('aria-labelledby');
        path.unshift(`${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${role ? `[role=${role}]` : ''}${label ? `[${label}]` : ''}`);
      }
      return `${path.join(' > ')} "${(node.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60)}"`;
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: Array<{ node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }> }>) {
        if (entry.hadRecentInput) continue;
        const rect = (r: DOMRectReadOnly) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}×${Math.round(r.height)}`;
        shifts.push({
          value: entry.value,
          at: Math.round(entry.startTime),
          sources: (entry.sources ?? []).map((source) => `${describe(source.node)} moved ${rect(source.previousRect)} → ${rect(source.currentRect)}`),
        });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The API's answers held back, in two steps, however busy the machine (the cases run side by side):
 * - the session check answers `ms` after it was asked, and not before the app has committed its
 *   first render (the guard's spinner);
 * - the page's own calls answer from 0.8 `ms` after the app has drawn that answer (the top bar
 *   takes the page's session-check mark off), one at a time, in the order asked, 0.4 `ms` apart
 *   (at least `ms` after each was asked).
 * So the page the guard lets through shows its spinners and placeholders, and each part's for as
 * long as its answer comes after the others'. Released together, the guard went from its spinner
 * straight to the filled page, and no placeholder was ever measured. The dashboard's usage and plan
 * (its first two calls) are in before its first draw stops waiting for them (FIRST_DRAW_WAIT_MS),
 * its daily chart 0.2 s after them.
 */
async function holdAnswersBack(page: Page, ms: number): Promise<void> {
  const until = async (drawn: () => Promise<boolean>) => {
    for (let waited = 0; waited < 10_000; waited += 50) {
      // A navigation under way has no document to ask yet.
      if (await drawn().catch(() => false)) return;
      await sleep(50);
    }
  };
  // One look at the page for all the answers that wait on the same thing, started by the first.
  let appDrawn: Promise<void> | undefined;
  let sessionDrawn: Promise<number> | undefined;
  let asked = 0;
  await page.route('**/api/v1/**', async (route) => {
    const request = route.request();
    if (request.method() === 'GET' && new URL(request.url()).pathname === `/api/v1${LOAD_PATHS.me}`) {
      await Promise.all([sleep(ms), (appDrawn ??= until(() => page.evaluate((name) => document.documentElement.hasAttribute(name), APP_READY_ATTRIBUTE)))]);
    } else {
      const turn = asked++;
      const askedAt = Date.now();
      const drawnAt = await (sessionDrawn ??= until(() =>
        page.evaluate(
          ([ready, checking]) => document.documentElement.hasAttribute(ready) && !document.documentElement.hasAttribute(checking),
          [APP_READY_ATTRIBUTE, SESSION_CHECK_ATTRIBUTE] as const,
        ),
      ).then(() => Date.now()));
      await sleep(Math.max(askedAt + ms, drawnAt + (0.8 + 0.4 * turn) * ms) - Date.now());
    }
    await route.continue().catch(() => undefined);
  });
}

/** Nothing asked is on its way, for two frames and a little more: the answers are drawn, and so are their shifts. */
async function quiet(page: Page, calls: ReturnType<typeof trackCalls>): Promise<void> {
  let asked = 0;
  const count = () => (asked += 1);
  page.on('request', count);
  try {
    for (;;) {
      const before = asked;
      await calls.settled();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 300)))));
      if (asked === before) return;
    }
  } finally {
    page.off('request', count);
  }
}

/** The layout shifts recorded so far: 'within' and none listed, or their sum and each. */
async function shiftsOf(page: Page): Promise<{ total: number | 'within'; shifts: Shift[] }> {
  const shifts = await page.evaluate(() => (window as unknown as { __layoutShifts: Shift[] }).__layoutShifts);
  const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
  return total <= MOST_SHIFT ? { total: 'within', shifts: [] } : { total, shifts };
}

/** Each of `keys` on both screens, with the API's answers on time and held back. */
function onEveryScreen<K extends string>(keys: readonly K[]): Array<{ key: K; screen: keyof typeof SCREENS; held: boolean }> {
  return keys.flatMap((key) =>
    (['desktop', 'phone'] as const).flatMap((screen) => [
      { key, screen, held: false },
      { key, screen, held: true },
    ]),
  );
}

/**
 * A page loaded afresh with `tokens` stored, as the case asks (screen, answers held back), its
 * layout shifts recorded from the start and its API calls tracked; the caller closes the context.
 */
async function load(tokens: LiveAccount['tokens'], url: string, { screen, held }: { screen: keyof typeof SCREENS; held: boolean }) {
  const { context, page } = await openContext(live.browser, storedTokens(tokens));
  try {
    await page.setViewportSize(SCREENS[screen]);
    const watch = await watchPage(page);
    await recordShifts(page);
    if (held) await holdAnswersBack(page, HELD_MS);
    const calls = trackCalls(page);
    await page.goto(`${live.server.baseUrl}${url}`);
    return { context, page, watch, calls };
  } catch (error) {
    await context.close();
    throw error;
  }
}

const cases = onEveryScreen(Object.keys(FILLED)).map(({ key, ...rest }) => ({ path: key, ...rest }));

describe('a signed-in page as its data arrives', () => {
  it.concurrent.each(cases)('$path on a $screen screen (answers held back: $held) does not shift', async ({ path, screen, held }) => {
    const { context, page, watch, calls } = await load(owner.tokens, path === ADDON_LINK ? addonLink : path, { screen, held });
    try {
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('banner').getByText(t.layout.welcome('Katherine Johnson')).first().waitFor({ state: 'attached' });
      await FILLED[path]!(page);
      await quiet(page, calls);
      // On failure the shifts name what moved, from where to where.
      expect({ path, screen, held, ...(await shiftsOf(page)) }).toEqual({ path, screen, held, total: 'within', shifts: [] });
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/**
 * What an account other than the owner has above a page: the banners above every signed-in page
 * (the unverified address' reminder, a held member's way to a second factor) are chunks of their
 * own, loaded once the session check has said one is needed; a new account's dashboard has the
 * get-started card above its cards once its usage says zero queries, and its /usage the offer of
 * Professional in place of the figures once the analytics call is refused. None may be drawn
 * after the page and push it down, nor pull up what is under it.
 */
const ACCOUNTS = {
  'an unverified address': {
    account: () => unverified,
    path: '/profile',
    shown: (page: Page) => [page.getByText(t.verifyEmail.bannerText(unverified.email))],
  },
  'a held member': {
    account: () => heldMember,
    path: '/profile',
    shown: (page: Page) => [page.getByText(t.security.requiredText)],
    // Her calls beyond the profile are refused, as the team's requirement says.
    refused: true,
  },
  'a new account': {
    account: () => unverified,
    path: '/dashboard',
    shown: (page: Page) => [
      page.getByText(t.verifyEmail.bannerText(unverified.email)),
      page.getByRole('heading', { name: t.dashboard.getStartedTitle }),
      page.getByRole('main').getByText(t.plan.active).first(),
    ],
  },
  // Free: the analytics call is refused, and the page offers Professional in place of the figures.
  'a new account on /usage': {
    account: () => unverified,
    path: '/usage',
    shown: (page: Page) => [page.getByRole('heading', { name: t.usage.upgradeHeading }), page.getByRole('button', { name: t.usage.exportAction })],
    refused: true,
  },
  'an unverified address on /link': {
    account: () => unverified,
    path: '/link',
    shown: (page: Page) => [page.getByText(t.verifyEmail.bannerText(unverified.email))],
  },
  // Opened from the invitation's mail, signed in as its address: the way to accept it, under the reminder.
  'an unverified address on /invite': {
    account: () => unverified,
    get path() {
      return invitation;
    },
    shown: (page: Page) => [page.getByText(t.verifyEmail.bannerText(unverified.email)), page.getByRole('button', { name: t.invitation.accept })],
  },
} as const;

const accountCases = onEveryScreen(Object.keys(ACCOUNTS) as Array<keyof typeof ACCOUNTS>).map(({ key, ...rest }) => ({ who: key, ...rest }));

describe('a signed-in page with something above it that only some accounts have', () => {
  it.concurrent.each(accountCases)('for $who on a $screen screen (answers held back: $held) does not shift', async ({ who, screen, held }) => {
    const { account, path, shown } = ACCOUNTS[who];
    const { context, page, watch, calls } = await load(account().tokens, path, { screen, held });
    try {
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      for (const part of shown(page)) await part.waitFor();
      await quiet(page, calls);
      expect({ who, screen, held, ...(await shiftsOf(page)) }).toEqual({ who, screen, held, total: 'within', shifts: [] });
      // The browser reports each refused call (403) of an account that expects them.
      const refused = 'refused' in ACCOUNTS[who];
      expect(watch.consoleErrors.filter((error) => !(refused && /403|Forbidden/.test(error)))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the sign-in page as the app takes over', () => {
  it.each(['desktop', 'phone'] as const)('does not shift on a %s screen when the passkey button shows', async (screen) => {
    const { context, page } = await openContext(live.browser);
    try {
      await page.setViewportSize(SCREENS[screen]);
      const watch = await watchPage(page);
      await recordShifts(page);
      const calls = trackCalls(page);
      await page.goto(`${live.server.baseUrl}/login`);
      // The button shows once the app knows the browser can use passkeys, after the page was painted.
      await page.getByRole('button', { name: messages.login.passkey }).waitFor();
      await quiet(page, calls);
      expect({ screen, ...(await shiftsOf(page)) }).toEqual({ screen, total: 'within', shifts: [] });
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
