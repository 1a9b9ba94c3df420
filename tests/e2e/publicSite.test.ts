import type { Page } from 'playwright-core';
import { readManifest } from '../../build/manifest';
import { PRERENDERED_PAGES } from '../../src/app/routes';
import * as messages from '../../src/content/messages';
import { PLAN_OFFERS } from '../../src/content/plans';
import { COLOR_MODE_KEY } from '../../src/lib/colorMode';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY } from '../../machines/shared/tokenStorage';
import { useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(60_000);

const live = useServerAndBrowser();
const MANIFEST = readManifest();

/** `path` in a new tab, once its network is quiet, or with `waitUntil: 'load'` as soon as it has loaded. */
async function open(path: string, width = 1280, waitUntil: 'load' | 'networkidle' = 'networkidle') {
  const page = await live.browser.newPage({ viewport: { width, height: 900 } });
  const watch = await watchPage(page);
  const response = await page.goto(live.server.baseUrl + path, { waitUntil });
  return { page, watch, status: response?.status() };
}

/** `path` in light mode, its dark-mode button clicked as soon as it has loaded: the page turned dark. */
async function darkModeRightAfterLoad(path: string) {
  const { page, watch } = await open(path, 1280, 'load');
  const toggle = page.getByRole('button', { name: messages.layout.darkMode });
  await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
  await toggle.click();
  await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
  expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
  return { page, watch, toggle };
}

describe('the public site in Chromium', () => {
  it('shows the landing page with its calls, features and three plan cards, with no CSP violation', async () => {
    const { page, watch } = await open('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.getByRole('link', { name: messages.landing.tryFree }).getAttribute('href')).resolves.toBe('/register');
    await page.getByText(messages.landing.socialProof).first().waitFor();
    for (const feature of messages.landing.features) {
      await page.getByRole('heading', { name: feature.title }).waitFor();
    }
    const cards = page.getByRole('article');
    await expect(cards.count()).resolves.toBe(3);
    for (const [i, plan] of PLAN_OFFERS.entries()) {
      const text = await cards.nth(i).innerText();
      expect(text).toContain(plan.name);
      expect(text).toContain(`$${plan.priceUsd}`);
    }
    await expect(page.getByText(messages.landing.mostPopular).count()).resolves.toBe(1);
    await page.getByRole('link', { name: messages.landing.startTrial }).waitFor();
    await expect(page.title()).resolves.toContain('SheetMind');
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('fits a 390 px phone screen without sideways scrolling', async () => {
    const { page } = await open('/', 390);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it.each([
    ['/privacy', 'Privacy Policy'],
    ['/terms', 'Terms of Service'],
    ['/support', messages.support.heading],
  ])('serves %s on a direct load', async (path, heading) => {
    const { page, watch, status } = await open(path);
    expect(status).toBe(200);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('renders the 404 page on the client for an unknown path, answered with the status 404, and logs the path', async () => {
    const { page, watch, status } = await open('/no-such-page');
    expect(status).toBe(404);
    await page.getByRole('heading', { name: `404 ${messages.notFound.heading}` }).waitFor();
    await page.getByRole('link', { name: messages.notFound.home }).click();
    await page.waitForURL(`${live.server.baseUrl}/`);
    // The browser reports the 404 of the page itself; the page logs the path.
    expect(watch.consoleErrors).toEqual([expect.stringContaining('status of 404'), expect.stringContaining('/no-such-page')]);
    await page.close();
  });

  it('switches the color mode on a page that hydrates, right after it loads and once the app has it', async () => {
    const { page, watch, toggle } = await darkModeRightAfterLoad('/login');
    // The app's scripts have arrived and taken the page over, and the button keeps its state.
    await page.waitForLoadState('networkidle');
    expect(await loadedScripts(page)).toContain(script(MANIFEST.entry.at(-1)!));
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    await toggle.click();
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(false);
    expect(await page.evaluate((key) => localStorage.getItem(key), COLOR_MODE_KEY)).toBeNull();
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('navigates between the pages of the app without a reload', async () => {
    const { page } = await open('/login');
    await page.getByRole('button', { name: messages.login.submit, exact: true }).waitFor();
    // Gone with a reload: a full navigation makes a new window object.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await page.getByRole('contentinfo').getByRole('link', { name: messages.footer.terms }).click();
    await page.getByRole('heading', { level: 1, name: 'Terms of Service' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await page.close();
  });
});

const STATIC_PAGES = PRERENDERED_PAGES.filter((page) => page.static).map((page) => page.path);

/** A script of the build by its name under /assets/, as loadedScripts gives it. */
const script = (file: string) => file.replace('assets/', '');

/** The scripts a page loaded, by file name under /assets/. */
async function loadedScripts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((entry) => new URL(entry.name).pathname)
      .filter((pathname) => pathname.endsWith('.js'))
      .map((pathname) => pathname.replace('/assets/', '')),
  );
}

describe('the static public pages', () => {
  it.each(STATIC_PAGES)('%s loads no React for a signed-out visitor: no script file at all (its one script is inline)', async (path) => {
    const { page, watch } = await open(path);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await loadedScripts(page)).toEqual([]);
    await expect(page.getByRole('navigation', { name: messages.layout.mainNav }).getByRole('link', { name: messages.layout.login }).getAttribute('href')).resolves.toBe('/login');
    await expect(page.getByRole('contentinfo').getByText(messages.footer.copyright(new Date().getFullYear(), 'SheetMind')).count()).resolves.toBe(1);
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('switches the color mode without the app, right after the page loads: the button, the page, the stored choice, and the next page', async () => {
    const { page, watch } = await darkModeRightAfterLoad('/');
    expect(await page.evaluate((key) => localStorage.getItem(key), COLOR_MODE_KEY)).toBe('dark');
    await page.getByRole('contentinfo').getByRole('link', { name: messages.footer.privacy }).click();
    await page.getByRole('heading', { level: 1, name: 'Privacy Policy' }).waitFor();
    await expect(page.getByRole('button', { name: messages.layout.darkMode }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByRole('button', { name: messages.layout.darkMode }).click();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(false);
    expect(await page.evaluate((key) => localStorage.getItem(key), COLOR_MODE_KEY)).toBeNull();
    expect(await loadedScripts(page)).toEqual([]);
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  describe('for a signed-in visitor', () => {
    let tokens: { access_token: string; refresh_token: string };
    beforeAll(async () => {
      const id = Date.now();
      const res = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `ada${id}@example.com`, password: `Engines-${id}`, full_name: 'Ada Lovelace', username: `ada${id}` }),
      });
      tokens = (await res.json()) as typeof tokens;
    });

    const signIn = (page: Page) =>
      page.evaluate(
        ([pair, accessKey, refreshKey]) => {
          localStorage.setItem(refreshKey, pair.refresh_token);
          localStorage.setItem(accessKey, pair.access_token);
        },
        [tokens, ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY] as const,
      );

    it.each(STATIC_PAGES)('%s loads the app, which shows the signed-in top bar', async (path) => {
      const page = await live.browser.newPage({ viewport: { width: 1280, height: 900 } });
      const watch = await watchPage(page);
      // A page of the site without any script of its own, to write the session into its storage.
      await page.goto(`${live.server.baseUrl}/api/v1/health`);
      await signIn(page);
      await page.goto(live.server.baseUrl + path, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: messages.layout.logout }).waitFor();
      await page.getByText(messages.layout.welcome('Ada Lovelace')).waitFor();
      const chunk = PRERENDERED_PAGES.find((entry) => entry.path === path)!.chunk;
      expect(await loadedScripts(page)).toEqual(expect.arrayContaining([...MANIFEST.entry, ...MANIFEST.chunks[chunk]!].map(script)));
      expect(watch.cspViolations).toEqual([]);
      expect(watch.consoleErrors).toEqual([]);
      await page.close();
    });

    it('leads the landing page’s plan buttons to the subscription page and its free calls to the dashboard', async () => {
      const page = await live.browser.newPage({ viewport: { width: 1280, height: 900 } });
      // A page of the site without any script of its own, to write the session into its storage.
      await page.goto(`${live.server.baseUrl}/api/v1/health`);
      await signIn(page);
      await page.goto(live.server.baseUrl);
      await page.getByRole('button', { name: messages.layout.logout }).waitFor();
      await page.getByRole('link', { name: messages.landing.choosePlan('Professional') }).click();
      await page.getByRole('heading', { level: 1, name: messages.subscription.heading }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/subscription');
      await page.goBack();
      await page.getByRole('link', { name: messages.landing.startTrial }).click();
      await page.waitForURL(`${live.server.baseUrl}/dashboard`);
      await page.close();
    });

    it('follows a sign-in in another tab', async () => {
      const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
      const landing = await context.newPage();
      await landing.goto(live.server.baseUrl);
      const other = await context.newPage();
      await other.goto(live.server.baseUrl);
      await signIn(other);
      await landing.getByRole('button', { name: messages.layout.logout }).waitFor();
      await context.close();
    });
  });
});
