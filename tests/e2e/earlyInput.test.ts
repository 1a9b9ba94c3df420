import type { Page, Route } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { APP_READY_ATTRIBUTE } from '../../src/lib/pageScripts';
import { DRAFT_KEY } from '../../machines/supportForm/supportForm.actors';
import { useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, nextFrame, openContext, storedTokens, uniqueAccount } from '../helpers/browserPaths';
import { labelled } from '../helpers/sights';
import { seesInBrowser } from '../helpers/sightsInBrowser';

/**
 * What people and password managers do on the prerendered forms (/login, /register, /support) in
 * the moment after the page shows, before the app has taken it over: type, fill several fields at
 * once, send. The app's scripts are held back until the test has done it, so all of it surely
 * happens first (on a slow phone that moment lasts a second or more), then let through; what the
 * user sees afterwards is asserted.
 */

jest.setTimeout(90_000);

const live = useServerAndBrowser();
const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).first();
const field = (page: Page, label: string) => page.getByLabel(labelled(label));

/** Holds every script file the page asks for until `release` is called. */
async function holdAppScripts(page: Page): Promise<{ release: () => Promise<void> }> {
  const held: Route[] = [];
  let released = false;
  await page.route(
    (url) => url.pathname.endsWith('.js'),
    (route) => (released ? route.continue() : void held.push(route)),
  );
  return {
    release: async () => {
      released = true;
      await Promise.all(held.splice(0).map((route) => route.continue()));
    },
  };
}

/** Every address the page showed: a form sent natively would put its fields there. */
function watchAddresses(page: Page): string[] {
  const seen: string[] = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && seen.push(frame.url()));
  page.on('request', (request) => request.isNavigationRequest() && seen.push(request.url()));
  return seen;
}

/** Sets several fields in one go, each with the input event a password manager sends. */
function autofill(page: Page, values: Record<string, string>): Promise<void> {
  return page.evaluate((entries) => {
    for (const [name, value] of Object.entries(entries)) {
      const input = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(`form [name="${name}"]`)!;
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }, values);
}

async function openHeld(path: string, localStorage: Record<string, string> = {}) {
  const { context, page } = await openContext(live.browser, localStorage);
  // What the user should see shows within a few seconds, or not at all.
  page.setDefaultTimeout(10_000);
  const watch = await watchPage(page);
  const addresses = watchAddresses(page);
  const scripts = await holdAppScripts(page);
  // Until the page is parsed, not loaded: the app's scripts, held here, may be asked for before the
  // load event on a busy machine, and then the load event waits for them.
  await page.goto(`${live.server.baseUrl}${path}`, { waitUntil: 'domcontentloaded' });
  return { context, page, watch, addresses, scripts };
}

/** Waits until the app has taken the page over (src/app/AppProviders.tsx marks it). */
const appReady = (page: Page) => page.waitForFunction((name) => document.documentElement.hasAttribute(name), APP_READY_ATTRIBUTE);

const signedInBanner = (page: Page) => page.getByRole('banner').getByRole('button', { name: messages.layout.logout });

describe('input before the app takes over a prerendered form, in Chromium', () => {
  it('/login: typed and sent at once, it signs in and lands on the dashboard', async () => {
    const account = uniqueAccount('Ada Lovelace', 'Analytical-Engine-1843');
    await apiClient(live.server.baseUrl).register(account);
    const { context, page, watch, addresses, scripts } = await openHeld('/login');
    await field(page, messages.login.email).fill(account.email);
    await field(page, messages.login.password).fill(account.password);
    await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
    await scripts.release();

    await toast(page, messages.auth.welcomeBack).waitFor();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await signedInBanner(page).waitFor();
    expect(addresses.filter((address) => new URL(address).search !== '')).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await context.close();
  });

  it('/login: filled by a password manager and sent with Enter at once, it signs in', async () => {
    const account = uniqueAccount('Ada Lovelace', 'Analytical-Engine-1843');
    await apiClient(live.server.baseUrl).register(account);
    const { context, page, addresses, scripts } = await openHeld('/login');
    await autofill(page, { email: account.email, password: account.password });
    await field(page, messages.login.password).press('Enter');
    await scripts.release();

    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await signedInBanner(page).waitFor();
    expect(addresses.filter((address) => new URL(address).search !== '')).toEqual([]);
    await context.close();
  });

  it('/register: a name typed and sent at once is kept and checked as typed, and the rest completes the account', async () => {
    const account = uniqueAccount('Grace Hopper', 'Cobol-rules-1959');
    const t = messages.register;
    const { context, page, addresses, scripts } = await openHeld('/register');
    await field(page, t.fullName).fill(account.full_name);
    await page.getByRole('button', { name: t.submit }).click();
    await scripts.release();

    // The early click was carried out: the empty fields are named, the typed one is not.
    await page.getByText(t.usernameRequired).waitFor();
    await expect(page.getByText(t.fullNameRequired).count()).resolves.toBe(0);
    await expect(field(page, t.fullName).inputValue()).resolves.toBe(account.full_name);

    await field(page, t.username).fill(account.username);
    await field(page, t.email).fill(account.email);
    await field(page, t.password).fill(account.password);
    await field(page, t.confirmPassword).fill(account.password);
    await page.getByRole('button', { name: t.submit }).click();
    await toast(page, messages.auth.accountCreated).waitFor();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await page.getByText(messages.layout.welcome(account.full_name)).waitFor();
    expect(addresses.filter((address) => new URL(address).search !== '')).toEqual([]);
    await context.close();
  });

  it('/register: every field filled at once and sent at once creates the account', async () => {
    const account = uniqueAccount('Grace Hopper', 'Cobol-rules-1959');
    const { context, page, addresses, scripts } = await openHeld('/register');
    await autofill(page, { ...account, confirm_password: account.password });
    await page.getByRole('button', { name: messages.register.submit }).click();
    await scripts.release();

    await toast(page, messages.auth.accountCreated).waitFor();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await signedInBanner(page).waitFor();
    expect(addresses.filter((address) => new URL(address).search !== '')).toEqual([]);
    await context.close();
  });

  it('/support: what was typed at once is kept with the restored draft, saved, and there after a reload', async () => {
    const t = messages.support;
    const restored = { title: 'Restored title', telephone: '+44 20 7946 0000' };
    const { context, page, scripts } = await openHeld('/support', { [DRAFT_KEY]: JSON.stringify(restored) });
    await field(page, t.titleLabel).fill('Broken totals');
    await field(page, t.descriptionLabel).fill('Totals are off by one in row 2');
    await scripts.release();

    const expected = { title: 'Broken totals', description: 'Totals are off by one in row 2', email: '', telephone: restored.telephone };
    await page.waitForFunction(([key, title]) => localStorage.getItem(key)?.includes(title), [DRAFT_KEY, expected.title] as const);
    expect(JSON.parse((await page.evaluate((key) => localStorage.getItem(key), DRAFT_KEY))!)).toEqual(expected);
    await page.reload();
    await seesInBrowser(page, [
      { label: labelled(t.titleLabel), value: expected.title },
      { label: labelled(t.descriptionLabel), value: expected.description },
      { label: labelled(t.telephoneLabel), value: expected.telephone },
    ]);
    await context.close();
  });

  it.each(['before the app loads', 'while the app loads', 'after the app has taken over'] as const)('/support signed out: one Enter %s is answered once', async (moment) => {
    // Whenever it falls (before the app, while React takes the page over, after), one Enter gets one
    // "Authentication required": held before the app and answered by it, never answered twice.
    const t = messages.support;
    const { context, page, scripts } = await openHeld('/support');
    await field(page, t.titleLabel).fill('Formulas');
    const enter = () => field(page, t.titleLabel).press('Enter');
    if (moment === 'before the app loads') {
      await enter();
      await scripts.release();
    } else if (moment === 'while the app loads') {
      await Promise.all([scripts.release(), enter()]);
    } else {
      await scripts.release();
      await appReady(page);
      await enter();
    }
    await toast(page, t.authRequired).waitFor();
    // A second answer would be the same Enter handled again, by the app once it has taken over the
    // page: by then, and two frames on, it would show.
    await appReady(page);
    await nextFrame(page);
    await nextFrame(page);
    await expect(page.getByRole('status').filter({ hasText: t.authRequired }).count()).resolves.toBe(1);
    await context.close();
  });

  it('/support: several fields filled at once by a signed-in user are saved as the draft, and shown after a reload', async () => {
    const t = messages.support;
    const account = uniqueAccount('Ada Lovelace', 'Analytical-Engine-1843');
    const tokens = await apiClient(live.server.baseUrl).register(account);
    const { context, page, scripts } = await openHeld('/support', storedTokens(tokens));
    const typed = { title: 'Chart export fails', description: 'The PNG export is blank every time', telephone: '+1 555 0100' };
    await autofill(page, typed);
    await scripts.release();

    await signedInBanner(page).waitFor();
    await page.waitForFunction(([key, title]) => localStorage.getItem(key)?.includes(title), [DRAFT_KEY, typed.title] as const);
    expect(JSON.parse((await page.evaluate((key) => localStorage.getItem(key), DRAFT_KEY))!)).toMatchObject(typed);
    await page.reload();
    // The email field, left empty, shows the account's.
    await seesInBrowser(page, [
      { label: labelled(t.titleLabel), value: typed.title },
      { label: labelled(t.descriptionLabel), value: typed.description },
      { label: labelled(t.emailLabel), value: account.email },
      { label: labelled(t.telephoneLabel), value: typed.telephone },
    ]);
    await context.close();
  });
});
