import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { fillSupportForm, trackCalls, useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(120_000);

/** What a visitor sees of the toasts and the top bar, in Chromium against the production build. */
const live = useServerAndBrowser();

type Tokens = { access_token: string; refresh_token: string };
const id = Date.now();
const account = { email: `lin${id}@example.com`, password: `Toasts-${id}`, full_name: 'Lin Toaster', username: `lin${id}` };
let tokens: Tokens;

beforeAll(async () => {
  const res = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  });
  tokens = (await res.json()) as Tokens;
});

/** Stores `pair` before the page's first script runs, as a signed-in visitor's browser has it. */
const storeTokens = (page: Page, pair: Tokens) =>
  page.addInitScript((stored: Tokens) => {
    localStorage.setItem('access_token', stored.access_token);
    localStorage.setItem('refresh_token', stored.refresh_token);
  }, pair);

async function open(path: string, options: { signedIn?: Tokens; width?: number } & BrowserContextOptions = {}): Promise<Page> {
  const { signedIn, width = 1280, ...contextOptions } = options;
  const context = await live.browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, ...contextOptions });
  const page = await context.newPage();
  await watchPage(page);
  if (signedIn) await storeTokens(page, signedIn);
  await page.goto(`${live.server.baseUrl}${path}`);
  return page;
}

const toast = (page: Page, title: string) => page.locator('[data-part=root][data-scope=toast]').filter({ hasText: title });
const box = async (locator: Locator) => (await locator.boundingBox())!;
type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Signs in on /login, once with a wrong password and then the right one: an error toast and a success toast. */
async function twoToasts(page: Page) {
  await page.getByLabel(messages.login.email).fill(account.email);
  await page.getByLabel(messages.login.password).fill('Not-the-password-1');
  await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
  // The pointer rests on the first toast, as someone reading it would: toasts wait while hovered,
  // so both are still there to be looked at however slowly the machine signs in.
  await toast(page, messages.auth.loginFailed).hover();
  await page.getByLabel(messages.login.password).fill(account.password);
  await page.getByLabel(messages.login.password).press('Enter');
  await toast(page, messages.auth.welcomeBack).waitFor();
  // Once they have slid in: mid-animation their boxes are still moving.
  // Only the toasts' own: the page behind them may show a spinner for as long as it likes.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .filter((animation) => ((animation.effect as KeyframeEffect | null)?.target as Element | null)?.closest('[data-scope=toast]'))
      .every((animation) => animation.playState !== 'running'),
  );
}

describe('toasts', () => {
  it.each([1280, 390])('are panels with contrast, stacked apart, clear of the top bar, error in red (%i px)', async (width) => {
    const page = await open('/login', { width });
    await twoToasts(page);
    const error = toast(page, messages.auth.loginFailed);
    const success = toast(page, messages.auth.welcomeBack);
    const look = (locator: Locator) =>
      locator.evaluate((element) => {
        const style = getComputedStyle(element);
        return { background: style.backgroundColor, paddingTop: parseFloat(style.paddingTop), paddingLeft: parseFloat(style.paddingLeft), color: style.color };
      });
    const [errorLook, successLook] = [await look(error), await look(success)];
    for (const { background, paddingTop, paddingLeft, color } of [errorLook, successLook]) {
      expect(background).not.toBe('rgba(0, 0, 0, 0)');
      expect(background).not.toBe(color);
      expect(paddingTop).toBeGreaterThanOrEqual(8);
      expect(paddingLeft).toBeGreaterThanOrEqual(8);
    }
    // The error one is destructive: red, where the success one is green.
    expect(errorLook.background).not.toBe(successLook.background);
    const [r, g] = errorLook.background.match(/\d+/g)!.map(Number);
    expect(r).toBeGreaterThan(g! * 2);

    const header = await box(page.getByRole('banner'));
    const [errorBox, successBox] = [await box(error), await box(success)];
    expect(overlap(errorBox, successBox)).toBe(false);
    expect(overlap(errorBox, header)).toBe(false);
    expect(overlap(successBox, header)).toBe(false);
    expect(errorBox.x + errorBox.width).toBeLessThanOrEqual(width);

    // Dismissible: its close button takes it away.
    await error.getByRole('button').click();
    await error.waitFor({ state: 'detached' });
    await page.context().close();
  });

  it.each([1280, 390])('leave the field in focus in sight (%i px)', async (width) => {
    // Signed out, the support form answers Enter in its last field with a toast: the field keeps
    // the focus, and on a phone it sits at the bottom of the screen, where the keyboard would open.
    const page = await open('/support', { width });
    await fillSupportForm(page);
    const field = page.getByLabel(new RegExp(`^${messages.support.telephoneLabel}`));
    await field.press('Enter');
    const shown = toast(page, messages.support.authRequired);
    // Hovered, as by someone reading it, the toast waits: a slow machine cannot expire it mid-check.
    await shown.hover();
    await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity));
    await expect(field.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    expect(overlap(await box(shown), await box(field))).toBe(false);
    expect(overlap(await box(shown), await box(page.getByRole('banner')))).toBe(false);
    await page.context().close();
  });

  it('leave the top bar usable: Logout works while a toast shows', async () => {
    const page = await open('/login');
    await twoToasts(page);
    await page.waitForURL(/\/dashboard$/);
    await expect(toast(page, messages.auth.welcomeBack).isVisible()).resolves.toBe(true);
    const logout = page.getByRole('banner').getByRole('button', { name: messages.layout.logout });
    // Nothing covers it: the element at its centre is the button (or inside it).
    const covered = await logout.evaluate((button) => {
      const { x, y, width, height } = button.getBoundingClientRect();
      const top = document.elementFromPoint(x + width / 2, y + height / 2);
      return !top || !button.contains(top);
    });
    expect(covered).toBe(false);
    await logout.click({ timeout: 2000 });
    await toast(page, messages.auth.loggedOut).waitFor();
    await page.context().close();
  });
});

describe('the top bar', () => {
  /**
   * Records every frame, from before the page's first byte, in which the top bar shows Login or
   * Sign Up; and whether it ever showed the signed-in greeting.
   */
  async function watchAccountControls(page: Page) {
    await page.addInitScript(
      ({ login, signUp }) => {
        const seen: string[] = [];
        (window as unknown as { __signedOutSeen: string[] }).__signedOutSeen = seen;
        const check = () => {
          for (const link of document.querySelectorAll('header a')) {
            const text = link.textContent?.trim();
            if ((text === login || text === signUp) && link.checkVisibility({ visibilityProperty: true, opacityProperty: true })) {
              seen.push(`${text} at ${Math.round(performance.now())} ms`);
            }
          }
        };
        new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
        const everyFrame = () => {
          check();
          requestAnimationFrame(everyFrame);
        };
        requestAnimationFrame(everyFrame);
      },
      { login: messages.layout.login, signUp: messages.layout.signUp },
    );
  }

  it.each(['/', '/support', '/dashboard', '/privacy'])('never shows Login or Sign Up to a signed-in visitor loading %s', async (path) => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await storeTokens(page, tokens);
    await watchAccountControls(page);
    await page.goto(`${live.server.baseUrl}${path}`);
    await page.getByRole('banner').getByRole('button', { name: messages.layout.logout }).waitFor();
    await page.getByRole('banner').getByText(messages.layout.welcome(account.full_name)).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __signedOutSeen: string[] }).__signedOutSeen)).toEqual([]);
    await context.close();
  });

  it('asks nothing that fails for someone in no team: no 4xx and no console line on /dashboard, /subscription, /profile', async () => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await storeTokens(page, tokens);
    // The raw events, not watchPage's filtered errors: any console line at all, any failed answer.
    const seen: string[] = [];
    page.on('console', (message) => seen.push(`console ${message.type()}: ${message.text()} (${message.location().url})`));
    page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) seen.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    });
    page.on('requestfailed', (request) => seen.push(`failed ${request.method()} ${new URL(request.url()).pathname}`));
    // The next page is opened only once all the page asked is answered.
    const calls = trackCalls(page);
    for (const path of ['/dashboard', '/subscription', '/profile']) {
      // Loaded afresh: the stored session is restored and the top bar asks about the person's team.
      await page.goto(`${live.server.baseUrl}${path}`, { waitUntil: 'networkidle' });
      await page.getByRole('banner').getByText(messages.layout.welcome(account.full_name)).waitFor();
      // The page itself is drawn (its chart has made its calls when it mounts), then all is answered.
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      // Once drawn, the page loads its toast region (src/components/Toaster.tsx, about 500 ms after
      // its last large paint): the next page opened while that chunk was on its way cancelled it,
      // which this test read as a failed request (CI on 9a9f20b).
      await page.locator('[data-scope=toast][data-part=group]').waitFor({ state: 'attached' });
      await calls.settled();
      expect(await page.getByRole('banner').getByRole('link', { name: messages.layout.team }).count()).toBe(0);
    }
    expect(seen).toEqual([]);
    await context.close();
  });

  it('shows Login and Sign Up to a signed-out visitor, and once a stored session turns out to be dead', async () => {
    const page = await open('/');
    const nav = page.getByRole('banner').getByRole('navigation', { name: messages.layout.mainNav });
    await nav.getByRole('link', { name: messages.layout.login }).waitFor();
    await nav.getByRole('link', { name: messages.layout.signUp }).waitFor();
    await page.context().close();

    const stale = await open('/support', { signedIn: { access_token: 'not.a.token', refresh_token: 'not-a-refresh-token' } });
    await stale.getByRole('banner').getByRole('link', { name: messages.layout.login }).waitFor();
    await stale.context().close();
  });

  it('do not stack copies: four failed sign-ins in a row show one toast', async () => {
    const page = await open('/login');
    await page.getByLabel(messages.login.email).fill(`nobody${id}@example.com`);
    await page.getByLabel(messages.login.password).fill('Not-the-password-1');
    const submit = page.getByRole('button', { name: messages.login.submit, exact: true });
    for (let i = 0; i < 4; i++) {
      const answered = page.waitForResponse((response) => response.url().endsWith('/auth/login/email'));
      await submit.click();
      await answered;
      await toast(page, messages.auth.loginFailed).first().hover();
    }
    await expect(toast(page, messages.auth.loginFailed).count()).resolves.toBe(1);
    await page.context().close();
  });

  it('on a phone, stay under the open menu: every menu entry is the one a tap reaches', async () => {
    const page = await open('/profile', { signedIn: tokens, width: 390 });
    const p = messages.profile;
    await page.getByLabel(new RegExp(`^${p.currentPassword}`)).fill('Old-password-1');
    await page.getByLabel(new RegExp(`^${p.newPassword}`)).fill('New-password-22');
    await page.getByLabel(new RegExp(`^${p.confirmNewPassword}`)).fill('New-password-23');
    await page.getByRole('button', { name: p.updatePassword }).click();
    const shown = toast(page, p.passwordsMismatch);
    await shown.waitFor();
    const banner = page.getByRole('banner');
    await banner.getByRole('button', { name: messages.layout.menu }).click();
    const nav = banner.getByRole('navigation', { name: messages.layout.mainNav });
    const entries = [...[messages.layout.dashboard, messages.layout.usage, messages.layout.subscription, messages.layout.profile].map((name) => nav.getByRole('link', { name })), banner.getByRole('button', { name: messages.layout.logout })];
    const covered: string[] = [];
    for (const entry of entries) {
      const reached = await entry.evaluate((element) => {
        const { x, y, width, height } = element.getBoundingClientRect();
        const hit = document.elementFromPoint(x + width / 2, y + height / 2);
        return hit !== null && element.contains(hit);
      });
      if (!reached) covered.push((await entry.textContent()) ?? '');
    }
    // The toast is still up: the check was made while it could have covered the menu.
    await expect(shown.count()).resolves.toBe(1);
    expect(overlap(await box(shown), await box(page.locator(`#${await banner.getByRole('button', { name: messages.layout.menu }).getAttribute('aria-controls')}`)))).toBe(true);
    expect(covered).toEqual([]);
    await page.context().close();
  });

  it('an in-app link opens the next page at its top; back returns to where the reader was', async () => {
    const page = await open('/guide', { signedIn: tokens });
    await page.getByRole('button', { name: messages.guide.ask }).click();
    const link = page.getByRole('link', { name: messages.guide.seeDashboard });
    await link.scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(0);
    await link.click();
    const title = page.getByRole('heading', { level: 1, name: messages.dashboard.title });
    await title.waitFor();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect((await box(title)).y).toBeGreaterThanOrEqual(0);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: messages.guide.title }).waitFor();
    await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 2, scrolled);
    await page.context().close();
  });

  it('is one row on a phone, with a menu that works by keyboard', async () => {
    const page = await open('/dashboard', { signedIn: tokens, width: 390 });
    const banner = page.getByRole('banner');
    const menu = banner.getByRole('button', { name: messages.layout.menu });
    await menu.waitFor();
    expect((await box(banner)).height).toBeLessThanOrEqual(65);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() || document.activeElement?.getAttribute('aria-label'));
    for (let i = 0; i < 10 && (await focusedText()) !== messages.layout.menu; i++) await page.keyboard.press('Tab');
    expect(await focusedText()).toBe(messages.layout.menu);
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    // Focus moves into the menu; the greeting is there in full.
    expect(await focusedText()).toBe(messages.layout.dashboard);
    const greeting = banner.getByText(messages.layout.welcome(account.full_name)).filter({ visible: true });
    expect(await greeting.evaluate((element) => element.scrollWidth <= element.clientWidth && element.checkVisibility())).toBe(true);
    const nav = banner.getByRole('navigation', { name: messages.layout.mainNav });
    for (const name of [messages.layout.dashboard, messages.layout.usage, messages.layout.functions, messages.layout.subscription, messages.layout.profile]) await nav.getByRole('link', { name }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe(messages.layout.usage);
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe(messages.layout.functions);
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe(messages.layout.subscription);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe(messages.layout.logout);

    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await focusedText()).toBe(messages.layout.menu);
    await expect(nav.count()).resolves.toBe(0);

    // A link followed closes the menu.
    await page.keyboard.press('Enter');
    for (const name of [messages.layout.usage, messages.layout.functions, messages.layout.subscription]) {
      await page.keyboard.press('Tab');
      expect(await focusedText()).toBe(name);
    }
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/subscription$/);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.context().close();
  });
});
