import fs from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, CDPSession, Disposable, Page, Route } from 'playwright-core';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY, type TokenPair } from '../../machines/shared/tokenStorage';
import { useServerAndBrowser } from './browser';
import { newLoopbackAddress, outboxOf, postJsonFrom, type ServerOptions } from './server';

// Over 300 lines: the one toolkit every Chromium path file uses (tabs, held calls, answers, accounts,
// teams); split, each file would import four pieces that only make sense together.
/**
 * What the Chromium replays of the charts' paths (tests/paths) share: the API calls of a chart held
 * until the path says how they end, the ways to end them (the real server's answer, or one it
 * cannot be made to give at will), accounts made through the API, and a tab for each path (one
 * tab per test file, taken in turns and emptied between paths, in one browser context whose
 * storage is emptied too) with whatever the path needs already in local storage.
 */

/**
 * The real server and a Chromium for a paths file, a Chromium that keeps one renderer process for
 * the site. Each path takes the file's tab to the app and, at its end, to about:blank; by default
 * site isolation gives each such navigation a new renderer process (some two a path), which loads
 * and compiles the app's scripts anew. The app is one origin, so nothing it does depends on how
 * Chromium groups its pages into processes. `npx jest --selectProjects paths`: 507 busy
 * core-seconds with a process per navigation, 443 with one for the site (docs/performance.md).
 */
export function useServerAndPathsBrowser(env: Record<string, string> = {}, options: ServerOptions = {}) {
  return useServerAndBrowser(env, ['--disable-site-isolation-trials', '--process-per-site'], options);
}

/** A width at which every part of the top bar shows (the greeting hides on narrow screens). */
const VIEWPORT = { width: 1280, height: 900 };

/**
 * Written by a script the page runs before its own, once per path and origin (the tab's session
 * storage remembers which path seeded it; a reload or a later page of the path keeps what the app
 * wrote since): session and local storage are emptied, then local storage holds exactly `entries`.
 * Much quicker than a `storageState`.
 */
async function seedStorage(page: Page, entries: Record<string, string>): Promise<void> {
  await page.addInitScript(
    ({ seed, mark }) => {
      if (!location.protocol.startsWith('http') || sessionStorage.getItem('sheetmind.test.seeded') === mark) return;
      sessionStorage.clear();
      sessionStorage.setItem('sheetmind.test.seeded', mark);
      window.localStorage.clear();
      for (const [key, value] of Object.entries(seed)) window.localStorage.setItem(key, value);
    },
    { seed: entries, mark: crypto.randomUUID() },
  );
}

/**
 * A new browser context (its own storage and an empty HTTP cache, as on a first visit) and its
 * first page, which finds `localStorage` holding the given entries when it first opens. For tests
 * about the very first load (tests/e2e/earlyInput.test.ts); paths use `openTab`.
 */
export async function openContext(browser: Browser, localStorage: Record<string, string> = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await seedStorage(page, localStorage);
  return { context, page };
}

/** Every kind of storage an origin has in Chromium (the HTTP cache, shared by origins, is not one). */
const ORIGIN_STORAGE = 'cookies,local_storage,indexeddb,websql,file_systems,service_workers,cache_storage,shared_storage,storage_buckets';

interface SharedContext {
  context: BrowserContext;
  /** Every origin a page of the context has shown: the ones whose storage is emptied. */
  origins: Set<string>;
  /** The tab the paths take in turns, with its DevTools session and the scripts the current path added to it. */
  tab?: PathTabState;
}

interface PathTabState {
  page: Page;
  cdp: CDPSession;
  scripts: Disposable[];
  /** Set once `endPath` has run, until the next path opens: the path's `close()` and the next `openTab` both end it. */
  ended: boolean;
}
/** A test file's context, by its browser (each file launches its own, tests/helpers/browser.ts). */
const sharedContexts = new WeakMap<Browser, Promise<SharedContext>>();

/** Only documents (and their workers) keep anything: the origins a page's frames showed. */
function recordOrigins(page: Page, origins: Set<string>): void {
  page.on('framenavigated', (frame) => {
    const url = new URL(frame.url());
    if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
  });
}

function sharedContextOf(browser: Browser): Promise<SharedContext> {
  let shared = sharedContexts.get(browser);
  if (!shared) {
    shared = browser.newContext({ viewport: VIEWPORT }).then((context) => {
      const origins = new Set<string>();
      context.on('page', (page) => recordOrigins(page, origins));
      return { context, origins };
    });
    sharedContexts.set(browser, shared);
  }
  return shared;
}

/** Every call held by `HeldCalls` on a page, answered or not: see `endPath`. */
const heldOnPage = new WeakMap<Page, Route[]>();

/**
 * Ends what a path left running: every page of the context but the path tab is closed (its second
 * tabs, the pop-ups its page opened), and the tab is emptied: its held calls go nowhere, its app
 * is unloaded (about:blank, so no timer of it fires later), and its routes, listeners, init scripts
 * and history are dropped. A held call is aborted first: let go by a closing page or a leaving
 * document, a held request would otherwise go on to the server and change what the next path finds.
 */
async function endPath(shared: SharedContext): Promise<void> {
  const { context, tab } = shared;
  if (tab?.ended) return;
  const pages = context.pages();
  for (const page of pages) {
    // Those answered already refuse a second answer.
    for (const route of heldOnPage.get(page) ?? []) await route.abort().catch(() => undefined);
    heldOnPage.delete(page);
  }
  await Promise.all(pages.filter((page) => page !== tab?.page).map((page) => page.close()));
  if (!tab || tab.page.isClosed()) return;
  const { page } = tab;
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.goto('about:blank');
  page.removeAllListeners();
  recordOrigins(page, shared.origins);
  for (const script of tab.scripts.splice(0)) await script.dispose();
  await tab.cdp.send('Page.resetNavigationHistory');
  tab.ended = true;
}

/**
 * The path tab: the one the path before used, emptied, or a new one. The page records the init
 * scripts a path adds, so the next path's `endPath` can drop them (Playwright can remove an init
 * script only through what adding it returned).
 */
async function pathTab(shared: SharedContext): Promise<PathTabState> {
  if (shared.tab && !shared.tab.page.isClosed()) return shared.tab;
  const page = await shared.context.newPage();
  // The page's own session works on its context's storage (a browser-wide one would not).
  const tab: PathTabState = { page, cdp: await shared.context.newCDPSession(page), scripts: [], ended: false };
  const addInitScript = page.addInitScript.bind(page);
  page.addInitScript = (async (...args: Parameters<typeof addInitScript>) => {
    const script = await addInitScript(...args);
    tab.scripts.push(script);
    return script;
  }) as typeof addInitScript;
  shared.tab = tab;
  return tab;
}

export interface PathTab {
  /** The test file's context: pages the path opens in it (a second tab) share the path's storage. */
  context: BrowserContext;
  page: Page;
  /** Ends the path (call it in `finally`): see `endPath`. The next path's `openTab` does it too. */
  close(): Promise<void>;
}

/**
 * The tab for one path, in the browser context every path of the test file shares, so the HTTP
 * cache and the compiled scripts stay warm from path to path (where no route turns the cache off:
 * Playwright does, for a page with routes). The paths take one tab in turns: opening and closing a
 * tab (a renderer process each) took a third of a path's CPU time. Nothing else is shared: what
 * the path before left running is ended (`endPath`), its cookies are cleared, every origin it
 * reached has its storage emptied (local storage, IndexedDB, service workers, cache storage…; the
 * tab's session storage is emptied as the first page of each origin opens), the context sends
 * `extraHTTPHeaders` (and no others), and the page finds `localStorage` holding exactly the given
 * entries when it first opens. tests/paths/openTab.test.ts leaves each kind of state behind and
 * checks that the next path does not find it.
 */
export async function openTab(
  browser: Browser,
  localStorage: Record<string, string> = {},
  options: { extraHTTPHeaders?: Record<string, string> } = {},
): Promise<PathTab> {
  const shared = await sharedContextOf(browser);
  const { context, origins } = shared;
  await endPath(shared);
  await context.clearCookies();
  await context.setExtraHTTPHeaders(options.extraHTTPHeaders ?? {});
  const tab = await pathTab(shared);
  tab.ended = false;
  for (const origin of origins) await tab.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: ORIGIN_STORAGE });
  const { page } = tab;
  await seedStorage(page, localStorage);
  return { context, page, close: () => endPath(shared) };
}

export const storedTokens = (tokens: TokenPair): Record<string, string> => ({
  [ACCESS_TOKEN_KEY]: tokens.access_token,
  [REFRESH_TOKEN_KEY]: tokens.refresh_token,
});

/** A call of a chart's actor, as the page sends it. */
export interface CallPattern {
  method: string;
  /** The path after `/api/v1`. */
  path: string;
  /** When only some calls to the path are the chart's (by their query, say). */
  when?: (url: URL) => boolean;
}

/**
 * Holds every call matching one of `patterns` until the test takes it and answers it, so each state
 * that waits on the server lasts until the path moves on, as long as the test needs to look at it.
 */
export class HeldCalls<Name extends string> {
  private held = new Map<Name, Route[]>();
  private arrivals = new Set<() => void>();

  private constructor(private readonly patterns: Record<Name, CallPattern>) {}

  static async on<Name extends string>(page: Page, patterns: Record<Name, CallPattern>): Promise<HeldCalls<Name>> {
    const calls = new HeldCalls(patterns);
    await page.route(
      (url) => url.pathname.startsWith('/api/v1/'),
      async (route) => {
        const name = calls.nameOf(route);
        if (name === null) return route.fallback();
        heldOnPage.set(page, [...(heldOnPage.get(page) ?? []), route]);
        calls.held.set(name, [...(calls.held.get(name) ?? []), route]);
        for (const arrived of calls.arrivals) arrived();
      },
    );
    // A call the page gave up (its actor stopped when the chart left the state) is not waiting any more.
    page.on('requestfailed', (request) => {
      for (const [name, routes] of calls.held) calls.held.set(name, routes.filter((route) => route.request() !== request));
    });
    return calls;
  }

  private nameOf(route: Route): Name | null {
    const request = route.request();
    const url = new URL(request.url());
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const entry = Object.entries<CallPattern>(this.patterns).find(([, p]) => p.method === request.method() && p.path === path && (p.when?.(url) ?? true));
    return entry ? (entry[0] as Name) : null;
  }

  /** Waits until the page has made the call `name` (`count` of them at once) and they are held. */
  async arrived(name: Name, timeout = 10_000, count = 1): Promise<void> {
    const enough = () => (this.held.get(name)?.length ?? 0) >= count;
    if (enough()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.arrivals.delete(check);
        reject(new Error(`The page did not call ${this.patterns[name].method} ${this.patterns[name].path} ${count > 1 ? `${count} times ` : ''}within ${timeout} ms`));
      }, timeout);
      const check = () => {
        if (!enough()) return;
        clearTimeout(timer);
        this.arrivals.delete(check);
        resolve();
      };
      this.arrivals.add(check);
    });
  }

  /** The newest call `name` the page is waiting on, left waiting. */
  async peek(name: Name, timeout?: number): Promise<Route> {
    await this.arrived(name, timeout);
    return this.held.get(name)!.at(-1)!;
  }

  /** The call `name` the page is waiting on, to be answered by the caller. */
  async take(name: Name, timeout?: number): Promise<Route> {
    await this.arrived(name, timeout);
    const routes = this.held.get(name)!;
    this.held.set(name, []);
    // Older ones belong to states the chart has left; nobody reads their answers.
    for (const stale of routes.slice(0, -1)) await stale.abort().catch(() => undefined);
    return routes.at(-1)!;
  }
}

/** The real server's answer, passed on unchanged; its JSON body (if any) for the test to read. */
export async function answerFromServer(route: Route): Promise<unknown> {
  const response = await route.fetch();
  await route.fulfill({ response });
  return response.status() === 204 ? null : response.json().catch(() => null);
}

/** The real server's answer with its JSON body changed: a shape the server never sends on its own. */
export async function answerChanged<T>(route: Route, change: (body: T) => unknown): Promise<T> {
  const response = await route.fetch();
  const body = (await response.json()) as T;
  await route.fulfill({ response, json: change(body) });
  return body;
}

/** An error answer in the API's shape, for failures the real server cannot be made to give at will. */
export function answerError(route: Route, status: number, code: string, message: string): Promise<void> {
  return route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ error: { code, message } }) });
}

/** No answer at all: the connection fails, as when the network is down. */
export function cutOff(route: Route): Promise<void> {
  return route.abort('internetdisconnected');
}

/** The API called from the test (not the page): accounts, sessions and payments set up directly. */
export function apiClient(baseUrl: string) {
  async function call<T>(method: string, path: string, body?: unknown, accessToken?: string): Promise<{ status: number; body: T }> {
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  }
  async function ok<T>(method: string, path: string, body?: unknown, accessToken?: string): Promise<T> {
    const res = await call<T>(method, path, body, accessToken);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  return {
    call,
    /**
     * Signs up from an address of its own, as a different person would: a test makes more accounts
     * than one address may. The account then opens its verification link from the server's outbox,
     * as its owner would (creating keys and teams' invitations need it); `{ verified: false }` keeps it unverified.
     */
    async register(account: { email: string; password: string; full_name: string; username: string }, { verified = true }: { verified?: boolean } = {}) {
      const res = await postJsonFrom(`${baseUrl}/api/v1/auth/register`, account, newLoopbackAddress());
      if (res.status !== 201) throw new Error(`POST /auth/register answered ${res.status}: ${res.text}`);
      const registered = JSON.parse(res.text) as TokenPair & { user: { id: string } };
      const outbox = outboxOf.get(baseUrl);
      if (verified && outbox) {
        const token = new URL(await newVerificationLink(outbox, account.email)).searchParams.get('token')!;
        await ok('POST', '/auth/verify-email', { token });
      }
      return registered;
    },
    login: (email: string, password: string) => ok<TokenPair>('POST', '/auth/login/email', { email, password }),
    refresh: (refreshToken: string) => ok<TokenPair>('POST', '/auth/refresh', { refresh_token: refreshToken }),
    /** Ends the session the token belongs to: its access and refresh tokens are refused from now on. */
    logout: (accessToken: string) => ok<null>('POST', '/auth/logout', {}, accessToken),
    /** Buys a paid plan through the test-mode checkout page, as its form would (test card 4242…). */
    async subscribe(accessToken: string, plan: string): Promise<void> {
      const { checkout_url } = await ok<{ checkout_url: string }>('POST', '/subscription/checkout', { plan }, accessToken);
      const url = new URL(checkout_url);
      const form = { token: url.searchParams.get('token') ?? '', card_number: '4242424242424242', expiry: '12/40', cvc: '123', action: 'pay' };
      const res = await fetch(`${url.origin}${url.pathname}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
      if (res.status !== 303) throw new Error(`the test-mode checkout answered ${res.status}`);
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

let seq = 0;
/** Details of an account no other test uses. */
export function uniqueAccount(full_name: string, password: string) {
  seq += 1;
  const id = `${process.pid}${Date.now()}${seq}`;
  return { full_name, password, username: `ada${id}`, email: `ada${id}@example.com` };
}

/** Waits one frame of the page: enough for a click's handlers (and a pop-up) to have run. */
export async function nextFrame(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
}

/** The mails to `to` in an outbox folder, oldest first, quoted-printable undone. */
function mailsIn(outbox: string, to: string): string[] {
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .sort()
    .map((file) => fs.readFileSync(path.join(outbox, file), 'utf8'))
    .filter((text) => text.includes(`To: ${to}`))
    .map((text) => text.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
}

/** The newest verification link mailed to `to` (decisions.md, "Verified email"), waiting for it: mail goes out through the queue. */
export async function newVerificationLink(outbox: string, to: string, seen = 0): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const links = mailsIn(outbox, to)
      .map((text) => /(http:\/\/\S+\/verify-email\?token=[\w-]+)/.exec(text)?.[1])
      .filter((link): link is string => link !== undefined);
    if (links.length > seen) return links.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no verification mail to ${to}`);
}

/** The invitation links mailed to `to` so far, oldest first, read from the real server's outbox (quoted-printable undone). */
export function invitationLinksIn(dataDir: string, to: string): string[] {
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .sort()
    .map((file) => fs.readFileSync(path.join(outbox, file), 'utf8'))
    .filter((text) => text.includes(`To: ${to}`))
    .map((text) => /(http:\/\/\S+\/invite\/[\w-]+)/.exec(text.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1])
    .filter((link): link is string => link !== undefined);
}

/** The newest invitation link to `to`, once the outbox holds more than `seen` of them (mail goes out after the answer). */
export async function newInvitationLink(dataDir: string, to: string, seen = 0): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const links = invitationLinksIn(dataDir, to);
    if (links.length > seen) return links.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no new invitation mail to ${to}`);
}

/** An account made through the API for a path: its tokens, id and address. */
export interface LiveAccount {
  tokens: TokenPair;
  id: string;
  email: string;
}

export async function signUp(api: ApiClient, fullName: string, email?: string): Promise<LiveAccount> {
  const account = { ...uniqueAccount(fullName, 'Analytical-Engine-1843'), ...(email ? { email } : {}) };
  const registered = await api.register(account);
  return { tokens: registered, id: registered.user.id, email: account.email };
}

/** The authenticator app's code for `secret` now (or `offsetMs` later), as a phone shows it. */
export const authenticatorCode = (secret: string, offsetMs = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: Date.now() + offsetMs });

/**
 * Turns on an authenticator app for the account whose token is `accessToken`, as its profile would,
 * the code made as a phone would. Answers the app's secret (for later codes) and the recovery codes.
 */
export async function setUpAuthenticator(api: ApiClient, accessToken: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await api.call<{ secret: string }>('POST', '/mfa/totp/setup', {}, accessToken);
  if (setup.status !== 200) throw new Error(`setting up an authenticator app answered ${setup.status}`);
  const { secret } = setup.body;
  const confirmed = await api.call<{ recovery_codes: string[] }>('POST', '/mfa/totp/confirm', { code: authenticatorCode(secret) }, accessToken);
  if (confirmed.status !== 200) throw new Error(`confirming the authenticator app answered ${confirmed.status}`);
  return { secret, recoveryCodes: confirmed.body.recovery_codes };
}

/** `email` is invited into the team of the admin whose token is `adminToken`: the invitation's id and the link mailed for it. */
export async function inviteByMail(api: ApiClient, dataDir: string, adminToken: string, email: string, role = 'member'): Promise<{ id: string; link: string }> {
  const seen = invitationLinksIn(dataDir, email).length;
  const sent = await api.call<{ id: string }>('POST', '/teams/me/invitations', { email, role }, adminToken);
  if (sent.status !== 201) throw new Error(`inviting ${email} answered ${sent.status}`);
  return { id: sent.body.id, link: await newInvitationLink(dataDir, email, seen) };
}

/** `member` is invited into the team of the admin whose token is `adminToken`, and accepts from the mailed link. */
export async function inviteInto(api: ApiClient, dataDir: string, adminToken: string, member: LiveAccount): Promise<void> {
  const { link } = await inviteByMail(api, dataDir, adminToken, member.email);
  const token = new URL(link).pathname.split('/').at(-1)!;
  const accepted = await api.call('POST', `/invitations/${token}/accept`, {}, member.tokens.access_token);
  if (accepted.status !== 200) throw new Error(`accepting the invitation answered ${accepted.status}`);
}

/**
 * A real team: `owner` pays for Team through the test checkout, each member is invited and
 * accepts from the mailed link, and the `pending` addresses are invited. Answers the pending
 * invitations' ids by address.
 */
export async function makeTeam(api: ApiClient, dataDir: string, owner: LiveAccount, members: LiveAccount[] = [], pending: string[] = []): Promise<Record<string, string>> {
  await api.subscribe(owner.tokens.access_token, 'team');
  for (const member of members) await inviteInto(api, dataDir, owner.tokens.access_token, member);
  const ids: Record<string, string> = {};
  for (const email of pending) {
    const sent = await api.call<{ id: string }>('POST', '/teams/me/invitations', { email, role: 'member' }, owner.tokens.access_token);
    if (sent.status !== 201) throw new Error(`inviting ${email} answered ${sent.status}`);
    ids[email] = sent.body.id;
  }
  return ids;
}
