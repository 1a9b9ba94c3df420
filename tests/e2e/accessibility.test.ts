import type { BrowserContextOptions, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { COLOR_MODE_KEY } from '../../src/lib/colorMode';
import { seriousViolations, useServerAndBrowser, watchPage, type PageWatch } from '../helpers/browser';

jest.setTimeout(180_000);

/**
 * Every page, signed out and signed in, in light and dark mode, checked by axe-core (WCAG 2.1 A
 * and AA, which includes text contrast) with the production build, CSP and all; plus what axe
 * cannot see: keyboard use, focus, announcements and reduced motion. Over 300 lines: one server and
 * browser for every page and state, rather than a file each starting its own. The pages' axe checks
 * run side by side (`it.concurrent`, a browser context each): each waits for its page to be idle.
 */
const live = useServerAndBrowser();

const SIGNED_OUT = ['/', '/privacy', '/terms', '/support', '/login', '/register', '/forgot-password', '/reset-password?token=abc', '/no-such-page'];
const SIGNED_IN = ['/dashboard', '/subscription', '/profile', '/support'];
const SCHEMES = ['light', 'dark'] as const;

type Tokens = { access_token: string; refresh_token: string };
let tokens: Tokens;
const id = Date.now();
const account = { email: `ada${id}@example.com`, password: `Engines-${id}` };

beforeAll(async () => {
  const res = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...account, full_name: 'Ada Lovelace', username: `ada${id}` }),
  });
  tokens = (await res.json()) as Tokens;
});

interface Opened {
  page: Page;
  watch: PageWatch;
}

async function open(path: string, options: { signedIn?: boolean; width?: number } & BrowserContextOptions = {}): Promise<Opened> {
  const { signedIn, width = 1280, ...contextOptions } = options;
  const context = await live.browser.newContext({ viewport: { width, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  const watch = await watchPage(page);
  if (signedIn) {
    // This server does not answer the usage calls (yet): the dashboard gets a usage near the
    // limit, so its meters, warning and daily chart are all on screen for axe.
    await page.route('**/api/v1/query/usage', (route) =>
      route.fulfill({ json: { monthly_queries: 85, daily_tokens: 420, queries_per_minute: 2, processing_time: 1.4, total_queries: 310 } }),
    );
    await page.route('**/api/v1/query/usage/daily', (route) =>
      route.fulfill({
        json: {
          days: Array.from({ length: 30 }, (_, i) => ({ date: new Date(Date.UTC(2026, 0, i + 1)).toISOString().slice(0, 10), queries: (i * 7) % 13, tokens: (i * 53) % 400 })),
        },
      }),
    );
    await page.addInitScript((pair: Tokens) => {
      localStorage.setItem('access_token', pair.access_token);
      localStorage.setItem('refresh_token', pair.refresh_token);
    }, tokens);
  }
  await page.goto(live.server.baseUrl + path, { waitUntil: 'networkidle' });
  await page.locator('main h1, main h2').first().waitFor();
  return { page, watch };
}

/** Closes the page's context, dropping the fake usage answers still pending (a late refetch). */
async function done(page: Page): Promise<void> {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.context().close();
}


/**
 * Console errors, less those of the 404 page: it logs the missing path on purpose, and the browser
 * reports the page's own status 404.
 */
const unexpectedErrors = (watch: PageWatch, path: string) =>
  watch.consoleErrors.filter((text) => !(path === '/no-such-page' && (text.includes(path) || text.includes('status of 404'))));

describe('axe-core on every page', () => {
  describe.each(SCHEMES)('%s mode', (colorScheme) => {
    it.concurrent.each(SIGNED_OUT)('signed out: %s has no serious violation, CSP violation or console error', async (path) => {
      const { page, watch } = await open(path, { colorScheme });
      expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(colorScheme === 'dark');
      expect(await seriousViolations(page)).toEqual([]);
      expect(watch.cspViolations).toEqual([]);
      expect(unexpectedErrors(watch, path)).toEqual([]);
      await done(page);
    });

    it.concurrent.each(SIGNED_IN)('signed in: %s has no serious violation, CSP violation or console error', async (path) => {
      const { page, watch } = await open(path, { colorScheme, signedIn: true });
      await page.getByRole('button', { name: messages.layout.logout }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(watch.cspViolations).toEqual([]);
      expect(watch.consoleErrors).toEqual([]);
      await done(page);
    });
  });

  it.each(['/dashboard', '/usage'])('finds nothing serious on %s while its figures are still loading', async (path) => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript((pair: Tokens) => {
      localStorage.setItem('access_token', pair.access_token);
      localStorage.setItem('refresh_token', pair.refresh_token);
    }, tokens);
    // Held, never answered: the figures' skeletons stay on screen while axe looks (a slow phone
    // shows them for a second or more; their markup once broke the lists they stand in).
    await page.route(/\/api\/v1\/(query\/usage|usage\/analytics)/, () => undefined);
    await page.goto(live.server.baseUrl + path);
    await page.getByRole('button', { name: messages.layout.logout }).waitFor();
    // A figure list inside a part still loading (a card marked busy, or the usage page's status).
    await page.locator('main :is([aria-busy="true"], [role="status"]) dl').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await done(page);
  });

  it.each(SCHEMES)('finds nothing serious with an error and a success toast open (%s)', async (colorScheme) => {
    const { page, watch } = await open('/login', { colorScheme });
    const signIn = async (password: string, toastText: string) => {
      await page.getByLabel(messages.login.email).fill(account.email);
      await page.getByLabel(messages.login.password).fill(password);
      await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
      await page.getByRole('status').filter({ hasText: toastText }).first().waitFor();
      // Once it has faded in: mid-animation, its text is rightly too faint for axe.
      await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'));
      expect(await seriousViolations(page)).toEqual([]);
    };
    await signIn('wrong-password-1', messages.auth.loginUnauthorized);
    await signIn(account.password, messages.auth.welcomeBack);
    expect(watch.cspViolations).toEqual([]);
    await done(page);
  });

  it('finds nothing serious on a phone-sized screen, signed in, in dark mode', async () => {
    const { page, watch } = await open('/dashboard', { signedIn: true, width: 390, colorScheme: 'dark' });
    await page.getByRole('button', { name: messages.layout.menu }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // And with the top bar's menu open.
    await page.getByRole('button', { name: messages.layout.menu }).click();
    await page.getByRole('button', { name: messages.layout.logout }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(watch.cspViolations).toEqual([]);
    await done(page);
  });
});

/** WCAG's contrast ratio of two computed `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

describe('keyboard and assistive technology', () => {
  const focused = (page: Page) =>
    page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      const style = element ? getComputedStyle(element) : null;
      return {
        id: element?.id ?? '',
        text: element?.textContent?.trim() ?? '',
        label: element?.getAttribute('aria-label') ?? '',
        name: element?.getAttribute('name') ?? '',
        outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : '',
        top: element?.getBoundingClientRect().top ?? -1,
      };
    });

  it('offers "Skip to content" first, visibly, and it moves focus to the page', async () => {
    const { page } = await open('/');
    await page.keyboard.press('Tab');
    const skip = await focused(page);
    expect(skip.text).toBe(messages.layout.skipToContent);
    expect(skip.top).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect((await focused(page)).id).toBe('main-content');
    await done(page);
  });

  it('shows a visible focus ring on every control reached with Tab', async () => {
    const { page } = await open('/');
    const unringed: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      await page.keyboard.press('Tab');
      const { outline, text, label } = await focused(page);
      if (/^none|\s0px$/.test(outline)) unringed.push(`${text || label}: ${outline}`);
    }
    expect(unringed).toEqual([]);
    await done(page);
  });

  it.each(SCHEMES)('rings a focused text field at 3:1 or more against what surrounds it (%s)', async (colorScheme) => {
    const { page } = await open('/login', { colorScheme });
    await page.getByLabel(messages.login.email).click();
    const { ring, backdrop, outline } = await page.evaluate(() => {
      const field = document.activeElement as HTMLElement;
      let behind: Element | null = field.parentElement;
      // The first ancestor with an opaque background is what the ring is seen against.
      while (behind && !/^rgb\(/.test(getComputedStyle(behind).backgroundColor)) behind = behind.parentElement;
      const style = getComputedStyle(field);
      return {
        ring: style.outlineColor,
        outline: `${style.outlineStyle} ${style.outlineWidth}`,
        backdrop: behind ? getComputedStyle(behind).backgroundColor : 'rgb(255, 255, 255)',
      };
    });
    expect(outline).toMatch(/^solid [1-9]/);
    expect(contrast(ring, backdrop)).toBeGreaterThanOrEqual(3);
    await done(page);
  });

  it('sets each subscription FAQ question larger than its answer', async () => {
    const { page } = await open('/subscription', { signedIn: true });
    const faq = page.getByRole('region', { name: messages.subscription.faqTitle });
    const sizeOf = (locator: import('playwright-core').Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
    for (const item of messages.subscription.faq) {
      const question = await sizeOf(faq.getByRole('heading', { level: 3, name: item.q }));
      const answer = await sizeOf(faq.getByText(item.a));
      expect(question).toBeGreaterThan(answer);
    }
    await done(page);
  });

  it('focuses the first invalid field when a form is sent from the keyboard', async () => {
    const { page } = await open('/register');
    await page.getByRole('button', { name: messages.register.submit }).focus();
    await page.keyboard.press('Enter');
    // The check is asynchronous (its rules load beside the form): wait for the focus to move, then see where it went.
    await page.waitForFunction(() => document.activeElement?.tagName === 'INPUT');
    await expect(focused(page)).resolves.toMatchObject({ name: 'full_name' });
    await done(page);
  });

  it('announces the star ratings and names the usage progress bars with their values', async () => {
    const landing = await open('/');
    await expect(landing.page.getByRole('img', { name: messages.landing.rating(5) }).count()).resolves.toBeGreaterThan(0);
    await done(landing.page);

    const { page } = await open('/dashboard', { signedIn: true });
    const bars = page.getByRole('progressbar');
    await bars.first().waitFor();
    for (const bar of await bars.all()) {
      await expect(bar.getAttribute('aria-label')).resolves.toBeTruthy();
      await expect(bar.getAttribute('aria-valuenow')).resolves.toMatch(/^\d+(\.\d+)?$/);
      await expect(bar.getAttribute('aria-valuetext')).resolves.toMatch(/%/);
    }
    await done(page);
  });

  it('returns focus to Delete Account after its confirmation is dismissed', async () => {
    const { page } = await open('/profile', { signedIn: true });
    const button = page.getByRole('button', { name: messages.profile.deleteAccount });
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      }),
    );
    await button.focus();
    await page.keyboard.press('Enter');
    await expect(asked).resolves.toBe(messages.profile.deleteConfirm);
    await expect(button.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await done(page);
  });

  it('stops transitions and smooth scrolling when the system asks for reduced motion', async () => {
    const motion = async (reducedMotion: 'reduce' | 'no-preference') => {
      const { page } = await open('/', { reducedMotion });
      const styles = await page.evaluate(() => ({
        scroll: getComputedStyle(document.documentElement).scrollBehavior,
        transition: getComputedStyle(document.querySelector('main a') as Element).transitionDuration,
      }));
      await done(page);
      return styles;
    };
    await expect(motion('reduce')).resolves.toEqual({ scroll: 'auto', transition: '1e-05s' });
    const normal = await motion('no-preference');
    expect(normal.scroll).toBe('smooth');
    expect(normal.transition).not.toBe('1e-05s');
  });
});

describe('the color-mode toggle', () => {
  it('follows the system by default, then keeps the choice, shown from the first paint of the next page', async () => {
    const { page, watch } = await open('/', { colorScheme: 'light' });
    const toggle = page.getByRole('button', { name: messages.layout.darkMode });
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await page.evaluate(() => document.documentElement.className)).toContain('dark');
    expect(await page.evaluate((key) => localStorage.getItem(key), COLOR_MODE_KEY)).toBe('dark');

    // The class as the <body> element is first parsed, before any deferred script has run.
    await page.addInitScript(() => {
      const seen = window as unknown as { firstPaintMode?: string };
      new MutationObserver((_, observer) => {
        if (!document.body) return;
        seen.firstPaintMode = document.documentElement.className;
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${live.server.baseUrl}/privacy`, { waitUntil: 'networkidle' });
    expect(await page.evaluate(() => (window as unknown as { firstPaintMode?: string }).firstPaintMode)).toBe('dark');
    expect(await seriousViolations(page)).toEqual([]);

    // Choosing the system's own mode again forgets the choice.
    await page.getByRole('button', { name: messages.layout.darkMode }).click();
    expect(await page.evaluate((key) => localStorage.getItem(key), COLOR_MODE_KEY)).toBeNull();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(false);
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await done(page);
  });
});
