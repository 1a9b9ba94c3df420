/**
 * `npm run screenshots`: every page and every state a visitor can reach, at 1280×900 and 390×844,
 * in light and dark mode, against the real server and the production build (run `npm run build`
 * first). The pictures go to screenshots/ (not committed): one PNG per state, size and mode, and
 * per state a sheet of its four pictures side by side (screenshots/sheets/) for looking them over.
 * Not part of `npm test`: nothing is asserted here, the pictures are for a person to look at.
 *
 * `npm run screenshots -- dashboard toast` takes only the states whose name contains one of the words.
 * Over 300 lines: most of it is the list of states, each with what it answers and does on the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { fillSupportForm, launchBrowser, payInNewTab } from '../helpers/browser';
import { HELD_SENTENCE, teamMemberSubscription } from '../helpers/fixtures';
import { newVerificationLink } from '../helpers/browserPaths';
import { newLoopbackAddress, outboxOf, postJsonFrom, startServer } from '../helpers/server';
import { APP_READY_ATTRIBUTE } from '../../src/lib/pageScripts';
import { presetRange, utcToday } from '../../machines/usage/usage.range';
import type { CustomFunction, UsageAnalytics } from '../../machines/shared/api';

const OUT = path.resolve(__dirname, '../../screenshots');
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

type Tokens = { access_token: string; refresh_token: string };
interface Account {
  email: string;
  password: string;
  full_name: string;
  username: string;
  tokens: Tokens;
}

interface State {
  name: string;
  path: string;
  /** Signed in (tokens stored before the page loads) with the shared account. */
  signedIn?: boolean;
  /** What to do on the page before the picture: fill forms, click, hold or fail calls. */
  act?: (page: Page, account: Account) => Promise<void>;
  /** Calls answered (or held, or failed) by the browser instead of the server, set before loading. */
  routes?: (page: Page, account: Account) => Promise<void>;
  /** The whole page rather than the screen (pages; not toasts, which sit on the screen). */
  fullPage?: boolean;
  /** Calls are held for ever: the picture is taken at once, before the page's own timeouts end the wait. */
  holds?: boolean;
}

const never = () => new Promise<never>(() => undefined);
const fail = (status: number) => ({ status, json: { error: { code: 'internal', message: 'Something went wrong' } } });
const usage = { monthly_queries: 85, daily_tokens: 420, queries_per_minute: 2, processing_time: 1.4, total_queries: 310 };
const days = (count: (i: number) => number) =>
  Array.from({ length: 30 }, (_, i) => ({ date: new Date(Date.UTC(2026, 10, i + 1)).toISOString().slice(0, 10), queries: count(i), tokens: count(i) * 31 }));
const periodEnd = new Date(Date.UTC(2026, 11, 24)).toISOString();

/** What /link shows of the add-on's request (RFC 8628 §5.4: which client, when, from where). */
const grant = {
  user_code: 'BCDF-GHJK',
  client_id: 'sheetmind-addon',
  client_name: 'SheetMind add-on',
  scopes: ['query', 'usage:read'],
  requested_at: '2026-11-23T10:00:00.000Z',
  ip: '203.0.113.7',
  user_agent: 'Google-Apps-Script; (+https://script.google.com/home/usersettings)',
  expires_at: '2026-11-23T10:15:00.000Z',
};
const sessions = [
  { id: 's1', kind: 'web', client: null, created_at: '2026-11-20T09:00:00.000Z', last_used_at: '2026-11-23T10:00:00.000Z', ip: '198.51.100.4', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', current: true },
  { id: 's2', kind: 'addon', client: 'SheetMind add-on', created_at: '2026-11-22T15:00:00.000Z', last_used_at: '2026-11-23T09:12:00.000Z', ip: '203.0.113.7', user_agent: 'Google-Apps-Script', current: false },
  { id: 's3', kind: 'web', client: null, created_at: '2026-11-02T18:30:00.000Z', last_used_at: null, ip: '2001:db8:85a3::8a2e:370:7334', user_agent: null, current: false },
];
const apiKeys = [
  { id: 'k1', name: 'Nightly report', prefix: 'sm_live_Ab3d', last4: 'x9Qz', scopes: ['query'], created_at: '2026-11-21T08:00:00.000Z', expires_at: null, last_used_at: '2026-11-23T02:00:00.000Z' },
  { id: 'k2', name: 'Łukasz’s dashboard sync for the quarterly revenue workbook', prefix: 'sm_live_Q7rT', last4: 'm2Lp', scopes: ['query', 'usage:read'], created_at: '2026-10-01T08:00:00.000Z', expires_at: '2026-12-30T08:00:00.000Z', last_used_at: null },
];
const passkeys = [
  { id: 'cred-1', name: 'Chrome on Linux', created_at: '2026-11-20T09:00:00.000Z', last_used_at: '2026-11-25T08:30:00.000Z' },
  { id: 'cred-2', name: 'Łukasz’s YubiKey 5C NFC for the finance team laptop, second drawer', created_at: '2026-11-22T18:00:00.000Z', last_used_at: null },
];
const newKey = { ...apiKeys[0]!, id: 'k0', name: 'Weekly export', prefix: 'sm_live_Wk7p', last4: 'KuYo', scopes: ['query', 'usage:read'], key: 'sm_live_Wk7pR2mN8qL4vT6yH1cJ5bX3zF9dG0sAeKuYo', expires_at: '2027-02-21T08:00:00.000Z', last_used_at: null };

type Reply = { status?: number; headers?: Record<string, string>; json: unknown };

async function answer(page: Page, pattern: string, reply: 'hold' | 'abort' | Reply) {
  await page.route(pattern, async (route) => {
    if (reply === 'hold') return never();
    if (reply === 'abort') return route.abort('internetdisconnected');
    return route.fulfill(reply);
  });
}

/** /link opened from the add-on's link, its look-up answered with `lookup`; then Approve or Deny clicked and answered, when `decide` says. */
function linkState(name: string, lookup: Reply, decide?: 'approve' | 'deny'): State {
  return {
    name,
    path: '/link?code=BCDF-GHJK',
    signedIn: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/oauth/device/lookup', lookup);
      if (decide) await answer(page, `**/api/v1/oauth/device/${decide}`, { json: grant });
    },
    act: decide && ((page) => page.getByRole('button', { name: messages.link[decide] }).click()),
  };
}

async function signInThroughForm(page: Page, account: Account, password = account.password) {
  await page.getByLabel(messages.login.email).fill(account.email);
  await page.getByLabel(messages.login.password).fill(password);
  await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
}

/** Signs the open page in as `account` (stored tokens, then a reload): for a state that changes its account. */
async function signInAs(page: Page, account: Account) {
  await page.evaluate((pair) => {
    localStorage.setItem('access_token', pair.access_token);
    localStorage.setItem('refresh_token', pair.refresh_token);
  }, account.tokens);
  await page.reload();
}

/** The shared account's user id, for the team row that is the viewer's. */
const accountId = (account: Account) => (account.tokens as Tokens & { user: { id: string } }).user.id;

const toastShown = (page: Page, title: string) => page.locator('[data-scope=toast][data-part=root]').filter({ hasText: title }).first().waitFor();

/**
 * The team calls answered as for a team of Ada (owner), Grace (admin) and Łukasz (member), or Ada
 * alone; the viewer (the shared account, `viewerId`) is the one of them whose role is `role`. A
 * member sees only names and their own row.
 */
async function teamRoutes(
  page: Page,
  options: { role: 'owner' | 'admin' | 'member'; alone?: boolean; ownPaidPlan?: string; viewerId?: string; requireTwoFactor?: boolean; sessionMaxAgeHours?: number | null },
) {
  const { role, alone = false, ownPaidPlan = null, viewerId, requireTwoFactor = false, sessionMaxAgeHours = null } = options;
  const idOf = (who: 'owner' | 'admin' | 'member', fallback: string) => (role === who && viewerId ? viewerId : fallback);
  const [ada, grace, lukasz] = [idOf('owner', 'ada'), idOf('admin', 'grace'), idOf('member', 'lukasz')];
  const own = (id: string) => role !== 'member' || id === lukasz;
  // Ada has an authenticator app, Grace a passkey, Łukasz neither.
  const secondFactor = (id: string) => (id === ada ? 'authenticator_app' : id === grace ? 'passkey' : 'none');
  const member = (id: string, full_name: string, memberRole: string, queries: number, cap: number | null) => ({
    user_id: id,
    full_name,
    role: memberRole,
    joined_at: '2026-11-02T09:00:00.000Z',
    ...(own(id)
      ? { email: `${id === ada ? 'ada' : id === grace ? 'grace' : 'lukasz'}@example.com`, last_active_at: '2026-11-23T15:00:00.000Z', month_queries: queries, day_tokens: queries * 12, monthly_query_cap: cap, second_factor: secondFactor(id) }
      : { email: null, last_active_at: null, month_queries: null, day_tokens: null, monthly_query_cap: null, second_factor: null }),
  });
  const members = alone
    ? [member(ada, 'Ada Lovelace', 'owner', 0, null)]
    : [member(ada, 'Ada Lovelace', 'owner', 41, null), member(grace, 'Grace Hopper', 'admin', 17, null), member(lukasz, 'Łukasz Świątek, "Luke"', 'member', 9, 10)];
  await answer(page, '**/api/v1/teams/me', {
    json: {
      role,
      own_paid_plan: ownPaidPlan,
      team: { id: 't', name: 'Ada Lovelace’s team', created_at: '2026-11-01T09:00:00.000Z', seat_limit: 10, seats_used: alone ? 1 : 4, plan_status: 'active', default_monthly_query_cap: null, require_two_factor: requireTwoFactor, session_max_age_hours: sessionMaxAgeHours },
    },
  });
  await answer(page, '**/api/v1/teams/me/members', { json: { members } });
  if (role === 'member') return;
  await answer(page, '**/api/v1/teams/me/invitations', { json: { invitations: alone ? [] : [{ id: 'i1', email: 'alan@example.com', role: 'member', expires_at: '2026-11-30T09:00:00.000Z' }] } });
  await answer(page, '**/api/v1/teams/me/usage?*', {
    json: alone
      ? { month: '2026-11', days: [], by_task: [], members: [] }
      : {
          month: '2026-11',
          days: days((i) => (i * 5) % 11).map((day) => ({ ...day, user_id: 'ada' })),
          by_task: [{ task: 'formula', queries: 40, tokens: 1600 }, { task: 'analyze', queries: 27, tokens: 2210 }],
          members: [{ user_id: 'ada', full_name: 'Ada Lovelace', email: 'ada@example.com', queries: 41, tokens: 2400 }, { user_id: 'lukasz', full_name: 'Łukasz Świątek, "Luke"', email: 'lukasz@example.com', queries: 9, tokens: 410 }],
        },
  });
  const created = { id: 'e1', at: '2026-11-01T09:00:00.000Z', actor: { user_id: 'ada', name: 'Ada Lovelace' }, action: 'team.created', target: { user_id: null, name: 'Ada Lovelace’s team', detail: null }, ip: null };
  await answer(page, '**/api/v1/teams/me/audit-log', {
    json: {
      next: null,
      events: alone
        ? [created]
        : [
            { id: 'e3', at: '2026-11-23T10:00:00.000Z', actor: { user_id: 'ada', name: 'Ada Lovelace' }, action: 'member.cap_changed', target: { user_id: 'lukasz', name: 'Łukasz Świątek, "Luke"', detail: 'no cap → 10' }, ip: '203.0.113.7' },
            { id: 'e2', at: '2026-11-02T09:00:00.000Z', actor: { user_id: 'grace', name: 'Grace Hopper' }, action: 'member.joined', target: { user_id: 'grace', name: 'Grace Hopper', detail: 'admin' }, ip: '198.51.100.4' },
            created,
          ],
    },
  });
}

/** An invitation from Ada to `email`. */
const invitationRoutes = (page: Page, email: string) =>
  answer(page, '**/api/v1/invitations/a-token', { json: { team_name: 'Ada Lovelace’s team', inviter_name: 'Ada Lovelace', email, role: 'member', expires_at: '2026-11-30T09:00:00.000Z' } });

/** What /usage is answered with for the last 30 days to today (the page's default range): `count` queries a day. */
function analytics(count: (i: number) => number = (i) => 3 + ((i * 7) % 13)): UsageAnalytics {
  const range = presetRange('last30', utcToday());
  const start = Date.parse(`${range.from}T00:00:00Z`);
  const daily = Array.from({ length: 30 }, (_, i) => ({
    date: new Date(start + i * 86_400_000).toISOString().slice(0, 10),
    queries: count(i),
    tokens: count(i) * 412,
    avg_processing_ms: count(i) ? 700 + ((i * 53) % 400) : 0,
  }));
  const queries = daily.reduce((sum, day) => sum + day.queries, 0);
  const empty = queries === 0;
  return {
    ...range,
    days: daily,
    by_task: empty ? [] : [{ task: 'formula', queries: Math.round(queries * 0.5), tokens: Math.round(queries * 0.5) * 380 }, { task: 'analyze', queries: Math.round(queries * 0.3), tokens: Math.round(queries * 0.3) * 520 }, { task: 'explain', queries: queries - Math.round(queries * 0.5) - Math.round(queries * 0.3), tokens: 9100 }],
    by_credential: empty
      ? []
      : [
          { kind: 'web', id: 's1', name: 'Web app', queries: Math.round(queries * 0.45), tokens: Math.round(queries * 0.45) * 400 },
          { kind: 'addon', id: 's2', name: 'SheetMind add-on', queries: queries - Math.round(queries * 0.45) - Math.round(queries * 0.15), tokens: 52_300 },
          { kind: 'api_key', id: 'k2', name: apiKeys[1]!.name, queries: Math.round(queries * 0.15), tokens: 16_400 },
        ],
    p50_processing_ms: empty ? 0 : 812,
    p95_processing_ms: empty ? 0 : 2_430,
  };
}

/** A UTC day `count` days after today. */
const inDays = (count: number) => new Date(Date.parse(`${utcToday()}T00:00:00Z`) + count * 86_400_000).toISOString().slice(0, 10);

/**
 * The real `GET /users/me`, but with the viewer in a team as `role` (or in none): what /functions and
 * the top bar go by; `held` when the team's requirement of a second factor holds the viewer back.
 */
const teamRoleIs = (page: Page, role: 'owner' | 'admin' | 'member' | null, { held = false } = {}) =>
  page.route('**/api/v1/users/me', async (route) => {
    const response = await route.fetch();
    return route.fulfill({ response, json: { ...((await response.json()) as object), team_role: role, ...(held ? { two_factor_required: true } : {}) } });
  });

const longFunctionName = 'QUARTERLY_REVENUE_BY_REGION_V2';
const fnDates = { created_at: '2026-11-20T09:00:00.000Z', updated_at: '2026-11-23T09:00:00.000Z' };
const customFunctions: CustomFunction[] = [
  { id: 'f1', name: 'TOTAL_BY_REGION', task: 'analyze', prompt: 'Total {{input}} by region, largest first', description: 'Revenue per region', scope: 'personal', ...fnDates },
  {
    id: 'f2',
    name: longFunctionName,
    task: 'formula',
    prompt: 'Write one formula that sums the revenue of {{input}} per region and quarter, for a sheet where the months are in column B and the regions in column A.',
    description: 'For the quarterly revenue workbook: one formula per region and quarter, checked on the sample before it is saved to the cell, so Łukasz’s dashboard keeps working.',
    scope: 'personal',
    ...fnDates,
  },
  { id: 'f3', name: 'TEAM_TOTALS', task: 'ask', prompt: 'Totals of {{input}} for the team', description: 'The team’s monthly totals', scope: 'team', ...fnDates },
  { id: 'f4', name: 'CLEAN_PHONE_NUMBERS', task: 'explain', prompt: 'Explain how to clean the phone numbers in {{input}}', description: '', scope: 'team', ...fnDates },
];

/** /functions answered with `list` (personal ones only without a team), the viewer in a team as `role`. */
async function functionsRoutes(page: Page, role: 'owner' | 'admin' | 'member' | null, list = customFunctions.filter((fn) => role !== null || fn.scope === 'personal')) {
  await teamRoleIs(page, role);
  await answer(page, '**/api/v1/functions', { json: { functions: list } });
}

/** An admin's /functions, where saving a new function is refused with `code`. */
async function refusedSave(page: Page, status: number, code: string, message: string): Promise<void> {
  await functionsRoutes(page, 'admin');
  await page.route('**/api/v1/functions', (route) =>
    route.request().method() === 'POST' ? route.fulfill({ status, json: { error: { code, message } } }) : route.fallback(),
  );
}

/** The editor of a new function, opened. */
async function newFunctionEditor(page: Page) {
  await page.getByRole('button', { name: messages.functions.newFunction }).click();
  return page.getByRole('region', { name: messages.functions.editor.newTitle });
}

/**
 * A function's run answered by the page's own fetch with these server-sent events; the stream
 * stays open after them (a `done` event ends the answer). As text: tsx would wrap a function's
 * arrows in a helper the page does not have.
 */
const streamedRun = (events: Array<{ event: 'delta' | 'done'; data: unknown }>) => {
  const body = events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  return `const sent = window.fetch.bind(window);
    window.fetch = function (input, init) {
      if (!/\\/api\\/v1\\/functions\\/[^/]+\\/run$/.test(String(input instanceof Request ? input.url : input))) return sent(input, init);
      const body = new ReadableStream({ start: function (stream) { stream.enqueue(new TextEncoder().encode(${JSON.stringify(body)})); } });
      return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    };`;
};

/** Scrolled to the middle of the screen: scrolled only "if needed", what is just in view stays cut at the phone screen's foot. */
const toMiddle = (target: Locator) => target.evaluate((element) => element.scrollIntoView({ block: 'center' }));

/** The signed-in pages, pictured as they first paint and once filled. */
const FIRST_PAINT_PAGES = [
  { name: 'dashboard', path: '/dashboard' },
  { name: 'subscription', path: '/subscription' },
  { name: 'profile', path: '/profile' },
  { name: 'team', path: '/team' },
  { name: 'guide', path: '/guide' },
  { name: 'link', path: '/link?code=BCDF-GHJK' },
  { name: 'usage', path: '/usage' },
  { name: 'functions', path: '/functions' },
];

/** Every page's calls answered as for the owner of a Team with data: usage, keys, sessions, passkeys, the team, analytics, functions, the add-on's request. */
async function teamOwnerData(page: Page, account: Account) {
  await teamRoleIs(page, 'owner');
  await answer(page, '**/api/v1/subscription/me', {
    json: { plan: 'team', status: 'active', current_period_end: periodEnd, cancel_at_period_end: false, scheduled_plan: null, usage_limits: { monthly_queries: -1, daily_tokens: 200_000 } },
  });
  await answer(page, '**/api/v1/query/usage', { json: usage });
  await answer(page, '**/api/v1/query/usage/daily', { json: { days: days((i) => (i * 7) % 13) } });
  await answer(page, '**/api/v1/sessions', { json: { sessions } });
  await answer(page, '**/api/v1/api-keys', { json: { api_keys: apiKeys } });
  await answer(page, '**/api/v1/webauthn/credentials', { json: { credentials: passkeys } });
  await teamRoutes(page, { role: 'owner', viewerId: accountId(account) });
  await answer(page, '**/api/v1/usage/analytics?*', { json: analytics() });
  await answer(page, '**/api/v1/functions', { json: { functions: customFunctions } });
  await answer(page, '**/api/v1/oauth/device/lookup', { json: grant });
}

/** Every state; pages get the usage the server does not record yet, so their cards have numbers. */
const STATES: State[] = [
  ...['/', '/privacy', '/terms', '/support', '/login', '/register', '/forgot-password', '/reset-password?token=abc', '/no-such-page'].map(
    (pagePath): State => ({ name: `page${pagePath.replace(/[/?=]+/g, '-').replace(/-$/, '') || '-landing'}`, path: pagePath, fullPage: true }),
  ),
  ...['/dashboard', '/subscription', '/profile', '/support'].map(
    (pagePath): State => ({
      name: `signed-in${pagePath.replace(/\//g, '-')}`,
      path: pagePath,
      signedIn: true,
      fullPage: true,
      routes: async (page) => {
        await answer(page, '**/api/v1/query/usage', { json: usage });
        await answer(page, '**/api/v1/query/usage/daily', { json: { days: days((i) => (i * 7) % 13) } });
      },
    }),
  ),

  // The top bar.
  {
    name: 'topbar-session-check',
    holds: true,
    path: '/dashboard',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/users/me', 'hold'),
  },
  {
    name: 'topbar-phone-menu-open',
    path: '/dashboard',
    signedIn: true,
    act: async (page) => {
      const menu = page.getByRole('button', { name: messages.layout.menu });
      if (await menu.isVisible()) await menu.click();
    },
  },

  // Verified email: the banner of signed-in pages, its resend, and the mailed link's page.
  { name: 'verify-email-banner', path: '/dashboard', signedIn: true, routes: unverified },
  {
    name: 'verify-email-banner-sent',
    path: '/dashboard',
    signedIn: true,
    routes: async (page) => {
      await unverified(page);
      await answer(page, '**/api/v1/auth/verify-email/resend', { status: 202, json: { message: 'We sent a new link.' } });
    },
    act: async (page) => {
      await page.getByRole('button', { name: messages.verifyEmail.resend }).click();
      await page.getByText(messages.verifyEmail.sent).waitFor();
    },
  },
  {
    name: 'verify-email-success',
    path: '/verify-email?token=a-token',
    signedIn: true,
    routes: async (page) => {
      await unverified(page);
      await answer(page, '**/api/v1/auth/verify-email', { json: { email_verified: true } });
    },
    act: (page) => page.getByText(messages.verifyEmail.verifiedTitle).waitFor(),
  },
  // Signed out, a link the server does not know: its own words.
  { name: 'verify-email-failed', path: '/verify-email?token=no-such-token', act: (page) => page.getByText(messages.verifyEmail.failedTitle).waitFor() },

  // Form errors.
  { name: 'form-login-empty', path: '/login', act: (page) => page.getByRole('button', { name: messages.login.submit, exact: true }).click() },
  { name: 'form-register-empty', path: '/register', act: (page) => page.getByRole('button', { name: messages.register.submit }).click() },
  { name: 'form-support-empty', path: '/support', signedIn: true, act: (page) => page.getByRole('button', { name: messages.support.submit }).click() },
  { name: 'form-forgot-empty', path: '/forgot-password', act: (page) => page.getByRole('button', { name: messages.forgotPassword.submit }).click() },
  {
    name: 'form-reset-mismatch',
    path: '/reset-password?token=abc',
    act: async (page) => {
      await page.getByRole('textbox', { name: messages.resetPassword.newPassword, exact: true }).fill('Fresh-start-2026');
      await page.getByLabel(messages.resetPassword.confirmPassword).fill('Fresh-start-2027');
      await page.getByRole('button', { name: messages.resetPassword.submit }).click();
    },
  },
  {
    name: 'form-profile-password-empty',
    path: '/profile',
    signedIn: true,
    act: (page) => page.getByRole('button', { name: messages.profile.updatePassword }).click(),
  },

  {
    name: 'form-register-mismatch',
    path: '/register',
    act: async (page) => {
      await page.getByRole('textbox', { name: messages.register.password, exact: true }).fill('Fresh-start-2026');
      await page.getByRole('textbox', { name: messages.register.confirmPassword, exact: true }).fill('Fresh-start-2027');
      await page.getByRole('button', { name: messages.register.submit }).click();
    },
  },
  {
    name: 'form-profile-password-unchanged',
    path: '/profile',
    act: async (page, account) => {
      // Signed in as the account of this picture (not `signedIn`, the shared one, whose password must stay).
      await signInAs(page, account);
      for (const field of [messages.profile.currentPassword, messages.profile.newPassword, messages.profile.confirmNewPassword]) {
        await page.getByRole('textbox', { name: field, exact: true }).fill(account.password);
      }
      await page.getByRole('button', { name: messages.profile.updatePassword }).click();
      await page.getByText(messages.profile.passwordUnchanged).first().waitFor();
    },
  },

  // Toasts, each kind.
  {
    name: 'toast-error-login-failed',
    path: '/login',
    act: async (page, account) => {
      await signInThroughForm(page, account, 'Not-the-password-1');
      await toastShown(page, messages.auth.loginFailed);
    },
  },
  {
    name: 'toast-error-network',
    path: '/login',
    routes: (page) => answer(page, '**/api/v1/auth/login/**', 'abort'),
    act: async (page, account) => {
      await signInThroughForm(page, account);
      await toastShown(page, messages.auth.loginFailed);
    },
  },
  {
    name: 'toast-success-and-error-stacked',
    path: '/login',
    act: async (page, account) => {
      await signInThroughForm(page, account, 'Not-the-password-1');
      await toastShown(page, messages.auth.loginFailed);
      await signInThroughForm(page, account);
      await toastShown(page, messages.auth.welcomeBack);
    },
  },
  {
    name: 'toast-success-logged-out',
    path: '/login',
    act: async (page, account) => {
      await signInThroughForm(page, account);
      await page.waitForURL(/\/dashboard$/);
      // The signed-in bar first (a phone's menu button or the desktop's Logout): isVisible does not wait.
      const menu = page.getByRole('button', { name: messages.layout.menu });
      const logout = page.getByRole('button', { name: messages.layout.logout }).filter({ visible: true });
      await menu.or(logout).first().waitFor();
      if (await menu.isVisible()) await menu.click();
      await logout.click();
      await toastShown(page, messages.auth.loggedOut);
    },
  },
  {
    // Back from paying in the checkout tab: the page that opened it says so, once.
    name: 'toast-success-payment',
    path: '/subscription',
    act: async (page, account) => {
      // Signed in as the account of this picture, which may pay (not `signedIn`: the shared one stays on Free).
      await signInAs(page, account);
      const checkout = await payInNewTab(page, messages.subscription.upgradeTo('Professional'));
      await checkout.waitForURL(/\/subscription\?checkout=success$/);
      await checkout.close();
      await page.bringToFront();
      // Headless Chromium never tells a page it is looked at again: the event a browser sends then.
      await page.evaluate(() => window.dispatchEvent(new Event('focus')));
      await toastShown(page, messages.subscription.paymentSucceeded);
    },
  },
  {
    name: 'toast-info-deletion-requested',
    path: '/profile',
    signedIn: true,
    act: async (page) => {
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: messages.profile.deleteAccount }).click();
      await toastShown(page, messages.profile.deletionRequested);
    },
  },
  {
    name: 'toast-error-support-auth-required',
    path: '/support',
    act: async (page) => {
      await fillSupportForm(page);
      // Signed out, the button is disabled; Enter in a field still submits, and is told why not.
      await page.getByLabel(new RegExp(`^${messages.support.emailLabel}`)).press('Enter');
      await toastShown(page, messages.support.authRequired);
    },
  },
  {
    name: 'toast-error-checkout-failed',
    path: '/subscription',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/subscription/checkout', fail(500)),
    act: async (page) => {
      await page.getByRole('button', { name: /^Upgrade to/ }).first().click();
      await toastShown(page, messages.subscription.checkoutFailed);
    },
  },

  // The account pages' own states.
  {
    name: 'dashboard-loading',
    holds: true,
    path: '/dashboard',
    signedIn: true,
    routes: async (page) => {
      for (const call of ['**/api/v1/query/usage', '**/api/v1/query/usage/daily', '**/api/v1/subscription/me']) await answer(page, call, 'hold');
    },
  },
  {
    name: 'dashboard-failed',
    path: '/dashboard',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      for (const call of ['**/api/v1/query/usage', '**/api/v1/query/usage/daily', '**/api/v1/subscription/me']) await answer(page, call, fail(500));
    },
  },
  {
    name: 'dashboard-empty',
    path: '/dashboard',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/query/usage', { json: {} });
      await answer(page, '**/api/v1/query/usage/daily', { json: { days: days(() => 0) } });
    },
  },
  {
    name: 'dashboard-unlimited',
    path: '/dashboard',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/query/usage', { json: { ...usage, monthly_queries: 4210, daily_tokens: 18000 } });
      await answer(page, '**/api/v1/query/usage/daily', { json: { days: days((i) => 100 + ((i * 37) % 90)) } });
      await answer(page, '**/api/v1/subscription/me', {
        json: { plan: 'team', status: 'active', current_period_end: periodEnd, cancel_at_period_end: false, scheduled_plan: null, usage_limits: { monthly_queries: -1, daily_tokens: -1 } },
      });
    },
  },
  {
    name: 'dashboard-near-limit',
    path: '/dashboard',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/query/usage', { json: { ...usage, monthly_queries: 97, daily_tokens: 990 } });
      await answer(page, '**/api/v1/query/usage/daily', { json: { days: days((i) => (i * 5) % 9) } });
    },
  },
  {
    name: 'subscription-loading',
    holds: true,
    path: '/subscription',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/subscription/me', 'hold'),
  },
  {
    name: 'subscription-failed',
    path: '/subscription',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/subscription/me', fail(500)),
  },
  {
    name: 'subscription-scheduled-downgrade',
    path: '/subscription',
    signedIn: true,
    fullPage: true,
    routes: (page) =>
      answer(page, '**/api/v1/subscription/me', {
        json: {
          plan: 'professional',
          status: 'active',
          current_period_end: periodEnd,
          cancel_at_period_end: true,
          scheduled_plan: 'free',
          usage_limits: { monthly_queries: 1000, daily_tokens: 10000 },
        },
      }),
  },
  {
    name: 'profile-scheduled-downgrade',
    path: '/profile',
    signedIn: true,
    routes: (page) =>
      answer(page, '**/api/v1/subscription/me', {
        json: { plan: 'professional', status: 'active', current_period_end: periodEnd, cancel_at_period_end: true, scheduled_plan: 'free', usage_limits: null },
      }),
  },

  // The test-mode provider's hosted checkout (server-rendered, no app), as "Upgrade" opens it.
  {
    name: 'checkout-test-mode',
    path: '/subscription',
    signedIn: true,
    fullPage: true,
    act: async (page) => {
      const token = await page.evaluate(() => localStorage.getItem('access_token'));
      const response = await page.request.post(new URL('/api/v1/subscription/checkout', page.url()).href, { headers: { authorization: `Bearer ${token}` }, data: { plan: 'professional' } });
      const { checkout_url: url } = (await response.json()) as { checkout_url: string };
      await page.goto(url);
    },
  },
  // The team workspace (its calls answered here: the shared account is in no team) as its owner,
  // alone, and as a member; the Team offer; and what goes wrong on it.
  ...(['owner', 'admin', 'member'] as const).map(
    (role): State => ({
      name: `team-${role}`,
      path: '/team',
      signedIn: true,
      fullPage: true,
      // The shared account is Ada, Grace or Łukasz here, so the page marks that row as theirs (Leave on an admin's or a member's).
      routes: (page, account) => teamRoutes(page, { role, ownPaidPlan: role === 'member' ? 'professional' : undefined, viewerId: accountId(account) }),
    }),
  ),
  {
    name: 'team-alone',
    path: '/team',
    signedIn: true,
    fullPage: true,
    routes: (page, account) => teamRoutes(page, { role: 'owner', alone: true, viewerId: accountId(account) }),
  },
  {
    // The cap editor open on a row: its field, Save and Cancel whole.
    name: 'team-cap-editor',
    path: '/team',
    signedIn: true,
    routes: (page, account) => teamRoutes(page, { role: 'owner', viewerId: accountId(account) }),
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.team.setCap}: Łukasz Świątek, "Luke"` }).click();
      await page.getByRole('button', { name: messages.team.saveCap }).scrollIntoViewIfNeeded();
    },
  },
  // The team's security policy: the owner's form, off and on (12 hours), and a member's read-only view.
  ...([
    ['team-security-off', 'owner', false, null],
    ['team-security-on', 'owner', true, 12],
    ['team-security-member', 'member', true, 12],
  ] as const).map(
    ([name, role, requireTwoFactor, sessionMaxAgeHours]): State => ({
      name,
      path: '/team',
      signedIn: true,
      routes: (page, account) => teamRoutes(page, { role, requireTwoFactor, sessionMaxAgeHours, viewerId: accountId(account) }),
      act: async (page) => toMiddle(page.getByRole('heading', { name: messages.team.securityHeading })),
    }),
  ),
  {
    // Each member's second factor, Łukasz's "Off" in the warning colour while the team requires one.
    name: 'team-member-factors',
    path: '/team',
    signedIn: true,
    routes: (page, account) => teamRoutes(page, { role: 'owner', requireTwoFactor: true, viewerId: accountId(account) }),
    act: async (page) => toMiddle(page.getByRole('region', { name: messages.team.membersHeading })),
  },
  {
    // The owner hands ownership over: the dialog names the new owner.
    name: 'team-transfer-confirm',
    path: '/team',
    signedIn: true,
    routes: (page, account) => teamRoutes(page, { role: 'owner', viewerId: accountId(account) }),
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.team.makeOwner}: Grace Hopper` }).click();
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    // A member leaving: the confirmation.
    name: 'team-leave-confirm',
    path: '/team',
    signedIn: true,
    routes: (page, account) => teamRoutes(page, { role: 'member', viewerId: accountId(account) }),
    act: async (page) => {
      await page.getByRole('button', { name: messages.team.leave }).click();
      await page.getByRole('alertdialog').waitFor();
    },
  },
  {
    // Where the member's "Manage your subscription" leads: Team through the team, their own Professional beside it.
    name: 'subscription-team-member',
    path: '/subscription',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await teamRoutes(page, { role: 'member', ownPaidPlan: 'professional' });
      await answer(page, '**/api/v1/subscription/me', { json: teamMemberSubscription });
    },
  },
  {
    // A member the team's requirement of two-step sign-in holds back: the banner, the team, the server's sentence, the set-up and Leave.
    name: 'team-held',
    path: '/team',
    signedIn: true,
    routes: async (page, account) => {
      await teamRoutes(page, { role: 'member', requireTwoFactor: true, viewerId: accountId(account) });
      await teamRoleIs(page, 'member', { held: true });
      await answer(page, '**/api/v1/teams/me/members', { status: 403, json: { error: { code: 'two_factor_required', message: HELD_SENTENCE } } });
    },
  },
  { name: 'team-offer', path: '/team', signedIn: true, fullPage: true },
  { name: 'team-load-failed', path: '/team', signedIn: true, routes: (page) => answer(page, '**/api/v1/teams/me', 'abort') },
  {
    name: 'team-remove-refused',
    path: '/team',
    signedIn: true,
    routes: async (page) => {
      await teamRoutes(page, { role: 'owner' });
      await answer(page, '**/api/v1/teams/me/members/lukasz', { status: 403, json: { error: { code: 'forbidden', message: 'Only an admin can do this.' } } });
    },
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.team.remove}: Łukasz Świątek, "Luke"` }).click();
      await page.getByRole('button', { name: messages.team.confirm }).click();
      await toastShown(page, messages.team.actionFailed);
    },
  },
  {
    name: 'team-invite-errors',
    path: '/team',
    signedIn: true,
    routes: async (page) => {
      await teamRoutes(page, { role: 'owner' });
      // Sending is refused; the list of pending ones (the same address, GET) is not.
      await page.route('**/api/v1/teams/me/invitations', (route) =>
        route.request().method() === 'POST' ? route.fulfill({ status: 403, json: { error: { code: 'seat_limit_reached', message: 'All seats are taken.' } } }) : route.fallback(),
      );
    },
    act: async (page) => {
      const email = page.getByLabel(messages.team.inviteEmail);
      await email.fill('alan@example');
      await page.getByRole('button', { name: messages.team.inviteSubmit }).click();
      await page.getByText(messages.team.emailInvalid).waitFor();
      await email.fill('alan@example.com');
      await page.getByRole('button', { name: messages.team.inviteSubmit }).click();
      await toastShown(page, messages.team.actionFailed);
      await email.fill('alan@example');
      await page.getByRole('button', { name: messages.team.inviteSubmit }).click();
      await email.scrollIntoViewIfNeeded();
    },
  },
  // The invitation page from where each visitor stands, and what can go wrong there.
  { name: 'invite-signed-out', path: '/invite/a-token', fullPage: true, routes: (page) => invitationRoutes(page, 'grace@example.com') },
  { name: 'invite-signed-in', path: '/invite/a-token', signedIn: true, fullPage: true, routes: (page, account) => invitationRoutes(page, account.email) },
  { name: 'invite-other-account', path: '/invite/a-token', signedIn: true, fullPage: true, routes: (page) => invitationRoutes(page, 'grace@example.com') },
  // Opened from the mail before the address is verified: the reminder above, the way to accept below.
  {
    name: 'invite-unverified',
    path: '/invite/a-token',
    signedIn: true,
    fullPage: true,
    routes: async (page, account) => {
      await unverified(page);
      await invitationRoutes(page, account.email);
    },
  },
  {
    name: 'invite-accept-refused',
    path: '/invite/a-token',
    signedIn: true,
    fullPage: true,
    routes: async (page, account) => {
      await invitationRoutes(page, account.email);
      await answer(page, '**/api/v1/invitations/a-token/accept', { status: 409, json: { error: { code: 'already_in_team', message: 'Already in a team.' } } });
    },
    act: async (page) => {
      await page.getByRole('button', { name: messages.invitation.accept }).click();
      await page.getByText(messages.invitation.acceptFailed).waitFor();
    },
  },
  {
    name: 'invite-no-longer-valid',
    path: '/invite/a-token',
    fullPage: true,
    routes: (page) => answer(page, '**/api/v1/invitations/a-token', { status: 404, json: { error: { code: 'invalid_invitation', message: 'This invitation is not valid.' } } }),
  },
  { name: 'invite-load-failed', path: '/invite/a-token', routes: (page) => answer(page, '**/api/v1/invitations/a-token', 'abort') },

  // /link, each state of its chart (the add-on's code looked up, approved or denied; answers given here).
  { name: 'link-code-entry', path: '/link', signedIn: true },
  {
    name: 'link-wrong-code',
    path: '/link',
    signedIn: true,
    act: async (page) => {
      // A well-formed code nobody asked for: the real server answers that no sign-in has it.
      await page.getByLabel(new RegExp(`^${messages.link.codeLabel}`)).fill('ZZZZ-ZZZZ');
      await page.getByRole('button', { name: messages.link.continue }).click();
      await page.getByText(messages.link.codeNotFound).waitFor();
    },
  },
  linkState('link-rate-limited', { status: 429, headers: { 'Retry-After': '900' }, json: { error: { code: 'rate_limited', message: 'Too many wrong codes.' } } }),
  linkState('link-confirm', { json: grant }),
  linkState('link-approved', { json: grant }, 'approve'),
  linkState('link-denied', { json: grant }, 'deny'),
  linkState('link-expired', { status: 410, json: { error: { code: 'user_code_expired', message: 'This code has expired.' } } }),
  linkState('link-used', { status: 409, json: { error: { code: 'user_code_used', message: 'This code was already used.' } } }),
  { name: 'link-signed-out', path: '/link?code=BCDF-GHJK' },

  // The profile's "Sessions and devices" and "API keys" (lists answered here: every picture signs in anew).
  {
    name: 'credentials-list',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/sessions', { json: { sessions } });
      await answer(page, '**/api/v1/api-keys', { json: { api_keys: apiKeys } });
    },
  },
  {
    name: 'credentials-empty',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/sessions', { json: { sessions: sessions.slice(0, 1) } });
      await answer(page, '**/api/v1/api-keys', { json: { api_keys: [] } });
    },
  },
  {
    name: 'credentials-key-created',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      let created = false;
      await answer(page, '**/api/v1/sessions', { json: { sessions: sessions.slice(0, 1) } });
      await page.route('**/api/v1/api-keys', async (route) => {
        if (route.request().method() === 'POST') {
          created = true;
          return route.fulfill({ status: 201, json: newKey });
        }
        return route.fulfill({ json: { api_keys: created ? [newKey, ...apiKeys] : apiKeys } });
      });
    },
    act: async (page) => {
      const keys = page.getByRole('region', { name: messages.credentials.keysTitle });
      await keys.getByLabel(new RegExp(`^${messages.credentials.keyName}`)).fill(newKey.name);
      await keys.getByRole('button', { name: messages.credentials.createKey }).click();
      await keys.getByLabel(messages.credentials.keyCreatedTitle).waitFor();
    },
  },
  {
    name: 'credentials-key-revoked',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: async (page) => {
      let revoked = false;
      await answer(page, '**/api/v1/sessions', { json: { sessions: sessions.slice(0, 1) } });
      await page.route('**/api/v1/api-keys', (route) => route.fulfill({ json: { api_keys: revoked ? apiKeys.slice(1) : apiKeys } }));
      await page.route('**/api/v1/api-keys/*', (route) => {
        revoked = true;
        return route.fulfill({ status: 204 });
      });
    },
    act: async (page) => {
      await page.getByRole('listitem', { name: apiKeys[0]!.name }).getByRole('button', { name: messages.credentials.revoke }).click();
      await page.getByRole('button', { name: messages.credentials.confirmRevoke }).click();
      await toastShown(page, messages.credentials.keyRevoked);
    },
  },

  // The profile's "Passkeys" (lists answered here; the naming form after a real ceremony with Chromium's virtual authenticator).
  {
    name: 'passkeys-empty',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: (page) => answer(page, '**/api/v1/webauthn/credentials', { json: { credentials: [] } }),
  },
  {
    name: 'passkeys-two',
    path: '/profile',
    signedIn: true,
    fullPage: true,
    routes: (page) => answer(page, '**/api/v1/webauthn/credentials', { json: { credentials: passkeys } }),
  },
  {
    name: 'passkeys-naming',
    path: '/profile',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/webauthn/credentials', { json: { credentials: passkeys.slice(0, 1) } }),
    act: async (page) => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      const section = page.getByRole('region', { name: messages.passkeys.title });
      await section.getByRole('button', { name: messages.passkeys.add }).click();
      await toMiddle(section.getByRole('heading', { name: messages.passkeys.nameTitle }));
    },
  },
  {
    name: 'passkeys-delete-confirm',
    path: '/profile',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/webauthn/credentials', { json: { credentials: passkeys } }),
    act: async (page) => {
      const item = page.getByRole('listitem', { name: passkeys[0]!.name });
      await item.getByRole('button', { name: messages.passkeys.delete }).click();
      await toMiddle(item.getByText(messages.passkeys.deleteConfirm));
    },
  },
  { name: 'login-passkey', path: '/login', act: (page) => page.getByRole('button', { name: messages.login.passkey }).waitFor() },

  // Two-step sign-in: the profile's set-up (the real server's secret and QR code), the codes shown once, on, turning off refused; the second step of /login.
  {
    name: 'two-step-setup',
    path: '/profile',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/mfa', { json: { totp_enabled: false, totp_enabled_at: null, recovery_codes_left: 0, passkeys: 0 } }),
    act: async (page) => {
      const section = page.getByRole('region', { name: messages.security.title });
      await section.getByRole('button', { name: messages.security.setUp }).click();
      await section.getByLabel(messages.security.codeLabel).fill('12345');
      await section.getByRole('button', { name: messages.security.turnOn }).click();
      await toMiddle(section.getByRole('img', { name: messages.security.qrLabel }));
    },
  },
  {
    name: 'two-step-codes',
    path: '/profile',
    signedIn: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/mfa', { json: { totp_enabled: false, totp_enabled_at: null, recovery_codes_left: 0, passkeys: 0 } });
      await answer(page, '**/api/v1/mfa/totp/confirm', { json: { recovery_codes: ['k7m2q-x9p4r', 'a3f8z-w2n6t', 'h5j9c-d4v7y', 'p2r6u-m8k3s', 'z9x4b-q7t2e', 'c6v3n-y5w8j', 't4g7h-r2m9p', 'e8q5k-u3z6a', 'w2y9d-f6c4x', 'n7b3s-j5h8v'] } });
    },
    act: async (page) => {
      const section = page.getByRole('region', { name: messages.security.title });
      await section.getByRole('button', { name: messages.security.setUp }).click();
      await section.getByLabel(messages.security.codeLabel).fill('123456');
      await section.getByRole('button', { name: messages.security.turnOn }).click();
      await toMiddle(section.getByText(messages.security.codesTitle));
    },
  },
  {
    name: 'two-step-on',
    path: '/profile',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/mfa', { json: { totp_enabled: true, totp_enabled_at: '2026-11-20T10:00:00.000Z', recovery_codes_left: 7, passkeys: 0 } }),
    act: (page) => toMiddle(page.getByRole('region', { name: messages.security.title }).getByRole('button', { name: messages.security.turnOff })),
  },
  {
    name: 'two-step-turn-off-refused',
    path: '/profile',
    signedIn: true,
    routes: async (page) => {
      await answer(page, '**/api/v1/mfa', { json: { totp_enabled: true, totp_enabled_at: '2026-11-20T10:00:00.000Z', recovery_codes_left: 7, passkeys: 0 } });
      await answer(page, '**/api/v1/mfa/totp', { status: 400, json: { error: { code: 'invalid_password', message: 'The password is not correct.', field: 'password' } } });
    },
    act: async (page) => {
      const section = page.getByRole('region', { name: messages.security.title });
      await section.getByRole('button', { name: messages.security.turnOff }).click();
      await section.getByLabel(messages.security.password).fill('not-it');
      await section.getByRole('button', { name: messages.security.turnOff }).click();
      await toMiddle(section.getByText('The password is not correct.'));
    },
  },
  ...(['code', 'refused', 'recovery'] as const).map(
    (which): State => ({
      name: `second-step-${which}`,
      path: '/login',
      routes: async (page) => {
        await answer(page, '**/api/v1/auth/login/email', { json: { mfa_required: true, mfa_token: 'mfa', methods: ['totp', 'webauthn', 'recovery_code'] } });
        await answer(page, '**/api/v1/auth/login/mfa', { status: 401, json: { error: { code: 'invalid_code', message: 'That code is not valid.', field: 'code' } } });
      },
      act: async (page) => {
        await page.getByLabel(messages.login.email).fill('ada@example.com');
        await page.getByLabel(messages.login.password).fill('Analytical-Engine-1843');
        await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
        await page.getByRole('heading', { name: messages.secondStep.heading }).waitFor();
        if (which === 'recovery') await page.getByRole('button', { name: messages.secondStep.useRecovery }).click();
        if (which === 'refused') {
          await page.getByLabel(messages.secondStep.totpLabel).fill('123456');
          await page.getByRole('button', { name: messages.secondStep.submit, exact: true }).click();
          await page.getByRole('alert').filter({ hasText: messages.auth.invalidCode }).waitFor();
        }
      },
    }),
  ),

  // The Quick Start Guide: before the sample query, after it (the real offline provider answers), and refused.
  { name: 'guide-before', path: '/guide', signedIn: true, fullPage: true },
  {
    name: 'guide-answered',
    path: '/guide',
    signedIn: true,
    fullPage: true,
    act: async (page) => {
      await page.getByRole('button', { name: messages.guide.ask }).click();
      await page.getByText(messages.guide.answerTitle).waitFor();
    },
  },
  {
    // The answer as it comes: the query's stream has sent its first piece and stays open.
    name: 'guide-streaming',
    path: '/guide',
    signedIn: true,
    fullPage: true,
    // As text: tsx would wrap a function's arrows in a helper the page does not have.
    routes: async (page) => {
      const piece = 'Understood: the total of Revenue where Region is "North".\n=SUMIF(A2:A9,';
      const event = `event: delta\ndata: ${JSON.stringify({ text: piece })}\n\n`;
      await page.addInitScript({
        content: `const sent = window.fetch.bind(window);
          window.fetch = function (input, init) {
            if (!String(input instanceof Request ? input.url : input).endsWith('/api/v1/query')) return sent(input, init);
            const body = new ReadableStream({ start: function (stream) { stream.enqueue(new TextEncoder().encode(${JSON.stringify(event)})); } });
            return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
          };`,
      });
    },
    act: async (page) => {
      await page.getByRole('button', { name: messages.guide.ask }).click();
      await page.getByText('=SUMIF(A2:A9,', { exact: false }).waitFor();
    },
  },
  {
    name: 'guide-error',
    path: '/guide',
    signedIn: true,
    fullPage: true,
    routes: (page) =>
      answer(page, '**/api/v1/query', {
        status: 429,
        json: { error: { code: 'monthly_quota_exceeded', message: 'All 100 queries of the Free plan for this month are used. They renew on 2026-12-01 (UTC).' } },
      }),
    act: async (page) => {
      await page.getByRole('button', { name: messages.guide.ask }).click();
      await page.getByRole('alert').filter({ hasText: 'queries of the Free plan' }).waitFor();
    },
  },

  // /usage (issue 39): the shared account is on Free, so its analytics are answered here.
  {
    name: 'usage-loading',
    holds: true,
    path: '/usage',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/usage/analytics?*', 'hold'),
  },
  { name: 'usage-loaded', path: '/usage', signedIn: true, fullPage: true, routes: (page) => answer(page, '**/api/v1/usage/analytics?*', { json: analytics() }) },
  { name: 'usage-empty', path: '/usage', signedIn: true, fullPage: true, routes: (page) => answer(page, '**/api/v1/usage/analytics?*', { json: analytics(() => 0) }) },
  {
    name: 'usage-failed',
    path: '/usage',
    signedIn: true,
    fullPage: true,
    routes: (page) => answer(page, '**/api/v1/usage/analytics?*', fail(500)),
    // The failure, not the load before it: its retry button is there.
    act: (page) => page.getByRole('button', { name: messages.usage.retry }).waitFor(),
  },
  {
    // Custom opened, no first day and a last day after today: each field says what is wrong with it.
    name: 'usage-custom-range-error',
    path: '/usage',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/usage/analytics?*', { json: analytics() }),
    act: async (page) => {
      await page.getByRole('button', { name: messages.usage.presets.custom }).click();
      await page.getByLabel(messages.usage.from, { exact: true }).fill('');
      await page.getByLabel(messages.usage.to, { exact: true }).fill(inDays(40));
      await page.getByRole('button', { name: messages.usage.showRange }).click();
      await page.getByText(messages.usage.rangeErrors.toInFuture).waitFor();
    },
  },
  // The real server refuses a Free account the analytics (403 plan_required).
  { name: 'usage-free-upgrade', path: '/usage', signedIn: true, fullPage: true, act: (page) => page.getByRole('heading', { name: messages.usage.upgradeHeading }).waitFor() },
  {
    // A member of a team has the Team plan's analytics; the top bar has the team page.
    name: 'usage-team-member',
    path: '/usage',
    signedIn: true,
    fullPage: true,
    routes: async (page, account) => {
      await teamRoleIs(page, 'member');
      await teamRoutes(page, { role: 'member', ownPaidPlan: 'professional', viewerId: accountId(account) });
      await answer(page, '**/api/v1/subscription/me', { json: teamMemberSubscription });
      await answer(page, '**/api/v1/usage/analytics?*', { json: analytics((i) => (i * 3) % 7) });
    },
  },
  {
    // "Download my data" twice within the hour: the second names the wait beside the button.
    name: 'usage-export-wait',
    path: '/usage',
    signedIn: true,
    routes: async (page) => {
      let exported = false;
      await answer(page, '**/api/v1/usage/analytics?*', { json: analytics() });
      await page.route('**/api/v1/users/me/export', (route) => {
        if (exported) return route.fulfill({ status: 429, headers: { 'Retry-After': '2520' }, json: { error: { code: 'rate_limited', message: 'Too many exports.' } } });
        exported = true;
        return route.fulfill({ json: { user: { email: 'ada@example.com' } } });
      });
    },
    act: async (page) => {
      const exportButton = page.getByRole('button', { name: messages.usage.exportAction });
      await exportButton.click();
      await page.getByText(messages.usage.exportDone).waitFor();
      await exportButton.click();
      await page.getByText(/^You can download your data once an hour/).waitFor();
      await toMiddle(exportButton);
    },
  },

  // /functions (issue 39): the list answered here; the viewer's team role is the real /users/me's, changed.
  { name: 'functions-loading', holds: true, path: '/functions', signedIn: true, routes: (page) => answer(page, '**/api/v1/functions', 'hold') },
  {
    name: 'functions-failed',
    path: '/functions',
    signedIn: true,
    routes: (page) => answer(page, '**/api/v1/functions', fail(500)),
    act: (page) => page.getByRole('button', { name: messages.functions.retry }).waitFor(),
  },
  {
    // As a team's owner: personal and team functions, each one's to change.
    name: 'functions-list',
    path: '/functions',
    signedIn: true,
    fullPage: true,
    routes: (page) => functionsRoutes(page, 'owner'),
  },
  { name: 'functions-empty', path: '/functions', signedIn: true, fullPage: true, routes: (page) => functionsRoutes(page, null, []) },
  {
    name: 'functions-editor-new',
    path: '/functions',
    signedIn: true,
    routes: (page) => functionsRoutes(page, null),
    act: (page) => page.getByRole('button', { name: messages.functions.newFunction }).click(),
  },
  {
    // Checked before asking: a name not of the rules and a prompt without {{input}}, each under its field.
    name: 'functions-editor-errors',
    path: '/functions',
    signedIn: true,
    routes: (page) => functionsRoutes(page, null),
    act: async (page) => {
      await page.getByRole('button', { name: messages.functions.newFunction }).click();
      const editor = page.getByRole('region', { name: messages.functions.editor.newTitle });
      await editor.getByLabel(messages.functions.editor.name).fill('total by region');
      await editor.getByLabel(messages.functions.editor.prompt).fill('Total by region');
      await editor.getByRole('button', { name: messages.functions.editor.save }).click();
      await editor.getByText(messages.functions.validation.promptInput).waitFor();
    },
  },
  {
    // The server's refusal on its field: the name taken (409).
    name: 'functions-editor-refused',
    path: '/functions',
    signedIn: true,
    routes: (page) => refusedSave(page, 409, 'function_exists', 'A function with this name exists.'),
    act: async (page) => {
      const editor = await newFunctionEditor(page);
      await editor.getByLabel(messages.functions.editor.name).fill('TOTAL_BY_REGION');
      await editor.getByLabel(messages.functions.editor.prompt).fill('Sum {{input}} by region');
      await editor.getByRole('button', { name: messages.functions.editor.save }).click();
      await editor.getByText(messages.functions.errors.function_exists).waitFor();
    },
  },
  {
    // The answer as it comes: the run's stream has sent its first piece and stays open.
    name: 'functions-try-it-streaming',
    path: '/functions',
    signedIn: true,
    routes: async (page) => {
      await functionsRoutes(page, null);
      await page.addInitScript({ content: streamedRun([{ event: 'delta', data: { text: 'North leads with 26,300, then East with 29,800 over the two months…' } }]) });
    },
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.functions.run}: TOTAL_BY_REGION` }).click();
      const piece = page.getByRole('status').filter({ hasText: 'North leads with 26,300' });
      await piece.waitFor();
      await toMiddle(piece);
    },
  },
  {
    name: 'functions-try-it-answered',
    path: '/functions',
    signedIn: true,
    routes: async (page) => {
      await functionsRoutes(page, null);
      const whole = 'East leads with 29,800, then North with 26,300, South with 20,050 and West with 15,450.';
      await page.addInitScript({
        content: streamedRun([
          { event: 'delta', data: { text: whole } },
          {
            event: 'done',
            data: { answer: whole, tokens: { prompt: 60, completion: 24, total: 84 }, processing_time_ms: 840, usage: { ...usage, monthly_queries: 86 }, formula: null, verified: false },
          },
        ]),
      });
    },
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.functions.run}: TOTAL_BY_REGION` }).click();
      const usageNow = page.getByRole('region', { name: messages.functions.tryTitle }).getByText(messages.guide.usageNow(86, usage.daily_tokens), { exact: false });
      await usageNow.waitFor();
      await toMiddle(usageNow);
    },
  },
  {
    name: 'functions-delete-confirm',
    path: '/functions',
    signedIn: true,
    routes: (page) => functionsRoutes(page, null),
    act: async (page) => {
      await page.getByRole('button', { name: `${messages.functions.delete}: ${longFunctionName}` }).click();
      await toMiddle(page.getByRole('button', { name: messages.functions.confirmDelete }));
    },
  },
  {
    // A member: the team's functions read-only (Try it only), their own to change.
    name: 'functions-member',
    path: '/functions',
    signedIn: true,
    fullPage: true,
    routes: (page) => functionsRoutes(page, 'member'),
  },
  // The real server refuses a Free account its functions (403 plan_required).
  { name: 'functions-free-upgrade', path: '/functions', signedIn: true, fullPage: true, act: (page) => page.getByRole('heading', { name: messages.functions.upgrade.title }).waitFor() },
  {
    // An admin's new function, shared with the whole team.
    name: 'functions-admin-scope',
    path: '/functions',
    signedIn: true,
    routes: (page) => functionsRoutes(page, 'admin'),
    act: async (page) => {
      await page.getByRole('button', { name: messages.functions.newFunction }).click();
      const editor = page.getByRole('region', { name: messages.functions.editor.newTitle });
      await editor.getByLabel(messages.functions.editor.name).fill('TEAM_TOTALS_BY_QUARTER');
      await editor.getByLabel(messages.functions.editor.prompt).fill('Totals of {{input}} per quarter, for the whole team');
      await editor.getByLabel(messages.functions.editor.scope).selectOption({ label: messages.functions.editor.scopeTeam });
      await toMiddle(editor.getByRole('button', { name: messages.functions.editor.save }));
    },
  },
  {
    // A team function past the team's limit: the refusal under "Who can run it".
    name: 'functions-editor-refused-scope',
    path: '/functions',
    signedIn: true,
    routes: (page) => refusedSave(page, 403, 'function_limit_reached', 'The team has 100 functions.'),
    act: async (page) => {
      const editor = await newFunctionEditor(page);
      await editor.getByLabel(messages.functions.editor.name).fill('TEAM_TOTALS_BY_QUARTER');
      await editor.getByLabel(messages.functions.editor.prompt).fill('Totals of {{input}} per quarter, for the whole team');
      await editor.getByLabel(messages.functions.editor.scope).selectOption({ label: messages.functions.editor.scopeTeam });
      await editor.getByRole('button', { name: messages.functions.editor.save }).click();
      await editor.getByText(messages.functions.errors.function_limit_reached).waitFor();
      await toMiddle(editor.getByRole('button', { name: messages.functions.editor.save }));
    },
  },

  // Each signed-in page as it first paints and once filled (issue 40), for a Team owner with data
  // (answered here: the shared account is on Free and in no team). First paint: the session check
  // answered, the page's own calls held back; the two, side by side, show whether anything moved.
  ...FIRST_PAINT_PAGES.flatMap(({ name, path: pagePath }): State[] => [
    {
      name: `first-paint-${name}`,
      path: pagePath,
      signedIn: true,
      holds: true,
      routes: async (page, account) => {
        await teamOwnerData(page, account);
        // Registered last, so asked first: everything but the session check waits for ever.
        await page.route('**/api/v1/**', (route) => (new URL(route.request().url()).pathname === '/api/v1/users/me' ? route.fallback() : never()));
      },
    },
    { name: `filled-${name}`, path: pagePath, signedIn: true, routes: teamOwnerData },
  ]),
];

async function register(baseUrl: string, name: string): Promise<Account> {
  const id = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const account = { email: `${name}${id}@example.com`, password: `Pictures-${id}`, full_name: 'Ada Lovelace', username: `${name}${id}` };
  // From an address of its own: a run makes more accounts than one address may in an hour.
  const res = await postJsonFrom(`${baseUrl}/api/v1/auth/register`, account, newLoopbackAddress());
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  // Verified, as its owner would after opening the mail: the pictures of other states show no banner.
  const link = await newVerificationLink(outboxOf.get(baseUrl)!, account.email);
  const verified = await fetch(`${baseUrl}/api/v1/auth/verify-email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: new URL(link).searchParams.get('token') }) });
  if (!verified.ok) throw new Error(`verify-email: ${verified.status}`);
  return { ...account, tokens: JSON.parse(res.text) as Tokens };
}

/** The signed-in account as if it had not verified its address yet: the banner of signed-in pages shows. */
async function unverified(page: Page) {
  await page.route('**/api/v1/users/me', async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { ...((await res.json()) as object), email_verified: false } });
  });
}

async function signIn(baseUrl: string, account: Account): Promise<Tokens> {
  const res = await fetch(`${baseUrl}/api/v1/auth/login/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (!res.ok) throw new Error(`login: ${res.status} ${await res.text()}`);
  return (await res.json()) as Tokens;
}

/** Until nothing moves but what loops for ever (spinners, skeletons). */
const settled = (page: Page) =>
  page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity));

async function shoot(browser: Browser, baseUrl: string, state: State, account: Account): Promise<string[]> {
  const files: string[] = [];
  for (const size of SIZES) {
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, colorScheme, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      if (state.signedIn) {
        // A session of its own: a run outlasts an access token, and a refresh token once used
        // (by an earlier picture's page) is spent.
        await page.addInitScript((pair: Tokens) => {
          localStorage.setItem('access_token', pair.access_token);
          localStorage.setItem('refresh_token', pair.refresh_token);
        }, await signIn(baseUrl, account));
      }
      await state.routes?.(page, account);
      await page.goto(`${baseUrl}${state.path}`);
      // A picture is of a settled page, not of the moment a person may already act in.
      await page.locator(`html[${APP_READY_ATTRIBUTE}]`).waitFor({ state: 'attached' });
      if (state.signedIn && state.name !== 'topbar-session-check') await page.getByRole('banner').getByText(messages.layout.welcome(account.full_name)).first().waitFor({ state: 'attached' });
      // An account of its own per picture for what is done on the page: wrong passwords typed for
      // one picture would otherwise hold the account's sign-ins for the next (after 3 failures).
      if (state.act) await state.act(page, await register(baseUrl, 'logins'));
      if (!state.holds) await page.waitForLoadState('networkidle').catch(() => undefined);
      // A whole-page picture is taken from the top: scrolled, the sticky top bar would be drawn mid-page.
      if (state.fullPage) await page.evaluate(() => window.scrollTo(0, 0));
      await settled(page);
      const file = path.join(OUT, `${state.name}.${size.name}.${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: state.fullPage ?? false });
      files.push(file);
      if (problems.length) console.log(`  ${path.basename(file)}: ${problems.join('; ')}`);
      await context.close();
    }
  }
  return files;
}

/** The four pictures of a state on one sheet: desktop light and dark, then phone light and dark, each cut to its first screens. */
async function sheet(browser: Browser, state: State, files: string[]) {
  const page = await browser.newPage({ viewport: { width: 1800, height: 1000 } });
  const images = files
    .map((file) => {
      const phone = file.includes('.phone.');
      const data = fs.readFileSync(file).toString('base64');
      return `<figure style="margin:0;width:${phone ? 300 : 560}px;height:${phone ? 650 : 394 * 1.6}px;overflow:hidden;border:1px solid #999"><figcaption style="font:12px sans-serif">${path.basename(file)}</figcaption><img style="width:100%" src="data:image/png;base64,${data}"></figure>`;
    })
    .join('');
  await page.setContent(`<body style="margin:8px;display:flex;gap:8px;align-items:flex-start;background:#ddd">${images}</body>`);
  await page.screenshot({ path: path.join(OUT, 'sheets', `${state.name}.png`), fullPage: true });
  await page.close();
}

async function main() {
  const only = process.argv.slice(2);
  const states = only.length ? STATES.filter((state) => only.some((word) => state.name.includes(word))) : STATES;
  fs.mkdirSync(path.join(OUT, 'sheets'), { recursive: true });
  // Opened as localhost: passkeys need a domain as their relying party, never an IP address.
  const server = await startServer({ LOG_LEVEL: 'warn' }, { hostName: 'localhost' });
  const browser = await launchBrowser();
  try {
    const account = await register(server.baseUrl, 'shots');
    for (const state of states) {
      try {
        const files = await shoot(browser, server.baseUrl, state, account);
        await sheet(browser, state, files);
        console.log(`${state.name}: ${files.length} pictures`);
      } catch (error) {
        console.log(`${state.name}: FAILED ${(error as Error).message.split('\n')[0]}`);
        process.exitCode = 1;
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  console.log(`Pictures in ${OUT}`);
}

void main();
