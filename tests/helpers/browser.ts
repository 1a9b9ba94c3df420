import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { startServer, type RunningServer, type ServerOptions } from './server';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless system Chromium, with the flags that keep it off the network it may not reach, and `args`. */
export function launchBrowser(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
}

export interface PageWatch {
  /** Console errors other than the ones a test expects. */
  consoleErrors: string[];
  /** Content-Security-Policy violations reported by the page. */
  cspViolations: string[];
}

/** Records console errors and CSP violations of a page, for assertions at the end of a test. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const watch: PageWatch = { consoleErrors: [], cspViolations: [] };
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // The browser's own line for an answer the app expects: the team page asks GET /teams/me, and
    // someone in no team gets its documented 404 not_in_team (and the Team offer). The top bar does
    // not ask it (it reads GET /users/me's team_role): topBarAndToasts.test.ts sees no such line elsewhere.
    if (message.text().startsWith('Failed to load resource') && new URL(message.location().url, 'http://x').pathname === '/api/v1/teams/me') return;
    watch.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watch.consoleErrors.push(error.message));
  await page.exposeFunction('__reportCspViolation', (text: string) => watch.cspViolations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
      report(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return watch;
}

/**
 * The real server (on a free port, with `env`) and a Chromium (with `browserArgs`) for one test
 * file, started before its tests and stopped after them.
 */
export function useServerAndBrowser(env: Record<string, string> = {}, browserArgs: string[] = [], options: ServerOptions = {}): { server: RunningServer; browser: Browser } {
  const live = {} as { server: RunningServer; browser: Browser };
  beforeAll(async () => {
    live.server = await startServer(env, options);
    live.browser = await launchBrowser(browserArgs);
  });
  afterAll(async () => {
    await live.browser?.close();
    await live.server?.stop();
  });
  return live;
}

/** Pays on the test-mode checkout page with `card` (4242… pays, 4000…0002 is declined), on its "Pay $…" button or the one for `price`. */
export async function payWithTestCard(checkout: Page, card = '4242 4242 4242 4242', price?: string): Promise<void> {
  await checkout.getByLabel('Card number').fill(card);
  await checkout.getByLabel('Expiry (MM/YY)').fill('12/34');
  await checkout.getByLabel('CVC').fill('123');
  await checkout.getByRole('button', { name: price ? `Pay ${price}` : /^Pay \$/ }).click();
}

/** Clicks the upgrade `button`, and pays with `card` in the checkout tab it opens; answers that tab. */
export async function payInNewTab(page: Page, button: string, card?: string): Promise<Page> {
  const [tab] = await Promise.all([page.context().waitForEvent('page'), page.getByRole('button', { name: button }).click()]);
  await tab.waitForURL(/\/billing\/test\/checkout/);
  await payWithTestCard(tab, card);
  return tab;
}

/**
 * axe's serious and critical findings, one line each ("rule: selector (why)"). axe runs in the page
 * itself (legacy mode, which tests same-origin frames; the app has no frames): by default AxeBuilder
 * runs axe once per frame, opens a blank page, loads axe into it again and finishes the run there,
 * which took half of each check's time and found the same.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).setLegacyMode().analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} (${node.any.map((check) => check.message).join('; ')})`));
}

/** The support form filled in as a person would, every field valid (signed out, sending it is refused). */
export async function fillSupportForm(page: Page): Promise<void> {
  for (const [label, value] of [
    [messages.support.titleLabel, 'Formulas'],
    [messages.support.descriptionLabel, 'The assistant explains VLOOKUP beautifully.'],
    [messages.support.emailLabel, 'ada@example.com'],
    [messages.support.telephoneLabel, '+44 20 7946 0000'],
  ] as const) {
    await page.getByLabel(new RegExp(`^${label}`)).fill(value);
  }
}

/**
 * What a page has asked and not yet been answered, from now on: `settled()` resolves once the page
 * has loaded, nothing is waiting for an answer and nothing new has been asked for `quietMs`, so a
 * test's own navigation never cuts a call short. On a slow machine a page's calls can start after a
 * network-idle moment of its loading, and the browser asks for the favicon only after the load
 * event, which can come after the page is drawn.
 */
export function trackCalls(page: Page, quietMs = 500): { settled(): Promise<void> } {
  const pending = new Set<unknown>();
  let lastChange = Date.now();
  page.on('request', (request) => {
    pending.add(request);
    lastChange = Date.now();
  });
  const answered = (request: unknown) => {
    pending.delete(request);
    lastChange = Date.now();
  };
  page.on('requestfinished', answered);
  page.on('requestfailed', answered);
  return {
    async settled() {
      await page.waitForLoadState('load');
      // Sleeps out what is left of the quiet period, or a moment while a call is still pending.
      for (;;) {
        const wait = pending.size > 0 ? 50 : quietMs - (Date.now() - lastChange);
        if (wait <= 0) return;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
  };
}
