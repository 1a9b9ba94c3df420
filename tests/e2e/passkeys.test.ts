import type { CDPSession, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { useServerAndBrowser } from '../helpers/browser';
import { apiClient, authenticatorCode, setUpAuthenticator, uniqueAccount } from '../helpers/browserPaths';
import { labelled } from '../helpers/sights';

/**
 * Passkeys in Chromium against the real server, with Chromium's virtual authenticator (DevTools
 * protocol, WebAuthn domain) standing in for a phone or a laptop's screen lock: a passkey made on
 * the profile signs in from /login after signing out, and a prompt the person closes loses nothing.
 * The app is opened as `localhost` (PUBLIC_URL too): a relying party is a domain, never an IP address.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser({}, [], { hostName: 'localhost' });
const t = messages.passkeys;
const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).first();

/** A platform authenticator with discoverable credentials and user verification, as a laptop's. */
async function withAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${live.server.baseUrl}/login`);
  await page.getByLabel(labelled(messages.login.email)).fill(email);
  await page.getByLabel(labelled(messages.login.password)).fill(password);
  await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
  await page.waitForURL(`${live.server.baseUrl}/dashboard`);
}

describe('passkeys in Chromium', () => {
  it('adds a passkey on the profile, then signs in with it alone after signing out', async () => {
    const account = uniqueAccount('Ada Passkey', 'Analytical-Engine-1843');
    await apiClient(live.server.baseUrl).register(account);
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      const { cdp, authenticatorId } = await withAuthenticator(page);
      await signInWithPassword(page, account.email, account.password);
      await page.goto(`${live.server.baseUrl}/profile`);
      const section = page.getByRole('region', { name: t.title });
      await section.getByText(t.none).waitFor();

      await section.getByRole('button', { name: t.add }).click();
      await section.getByRole('heading', { name: t.nameTitle }).waitFor();
      // Named after the browser until the person names it.
      await expect(section.getByLabel(labelled(t.name)).inputValue()).resolves.toMatch(/Chrom/);
      await section.getByLabel(labelled(t.name)).fill('Test laptop');
      await section.getByRole('button', { name: t.save }).click();
      await toast(page, t.added).waitFor();
      await section.getByRole('listitem', { name: 'Test laptop' }).waitFor();

      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);

      await page.getByRole('banner').getByRole('button', { name: messages.layout.logout, exact: true }).click();
      // Signed out on a signed-in page: the guard shows /login.
      await page.waitForURL(`${live.server.baseUrl}/login`);
      await page.getByRole('button', { name: messages.login.passkey }).click();
      await toast(page, messages.auth.welcomeBack).waitFor();
      // Back where the guard stopped the visitor, as after a password sign-in.
      await page.waitForURL(`${live.server.baseUrl}/profile`);
      await page.getByRole('banner').getByText(messages.layout.welcome(account.full_name)).waitFor();

      // The list shows when it was used.
      const item = section.getByRole('listitem', { name: 'Test laptop' });
      await item.waitFor();
      expect(await item.getByText(t.never).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('keeps the passkey list as it was when the person closes the prompt, and says so', async () => {
    const account = uniqueAccount('Ada Cancels', 'Analytical-Engine-1843');
    await apiClient(live.server.baseUrl).register(account);
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      const { cdp, authenticatorId } = await withAuthenticator(page);
      // A device whose user does not confirm: the browser refuses with NotAllowedError.
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
      await signInWithPassword(page, account.email, account.password);
      await page.goto(`${live.server.baseUrl}/profile`);
      const section = page.getByRole('region', { name: t.title });
      await section.getByText(t.none).waitFor();
      await section.getByRole('button', { name: t.add }).click();
      await toast(page, t.cancelled).waitFor();
      await section.getByRole('button', { name: t.add }).waitFor();
      await expect(section.getByText(t.none).count()).resolves.toBe(1);
      expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signs in with the password and a passkey as the second step of an account with an authenticator app', async () => {
    const account = uniqueAccount('Ada Two Steps', 'Analytical-Engine-1843');
    const api = apiClient(live.server.baseUrl);
    const { access_token } = await api.register(account);
    // The app is set up through the API (the profile's set-up has its own test: e2e/twoFactor).
    const { secret } = await setUpAuthenticator(api, access_token);
    const code = (offset = 0) => authenticatorCode(secret, offset);
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      await withAuthenticator(page);
      const step = messages.secondStep;
      await page.goto(`${live.server.baseUrl}/login`);
      await page.getByLabel(labelled(messages.login.email)).fill(account.email);
      await page.getByLabel(labelled(messages.login.password)).fill(account.password);
      await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
      // No passkey yet: the app's code is the way on, and no passkey button shows.
      await page.getByLabel(labelled(step.totpLabel)).fill(code(30_000));
      expect(await page.getByRole('button', { name: step.usePasskey }).count()).toBe(0);
      await page.getByRole('button', { name: step.submit, exact: true }).click();
      await page.waitForURL(`${live.server.baseUrl}/dashboard`);

      await page.goto(`${live.server.baseUrl}/profile`);
      const section = page.getByRole('region', { name: t.title });
      await section.getByRole('button', { name: t.add }).click();
      await section.getByLabel(labelled(t.name)).fill('Laptop');
      await section.getByRole('button', { name: t.save }).click();
      await section.getByRole('listitem', { name: 'Laptop' }).waitFor();

      await page.getByRole('banner').getByRole('button', { name: messages.layout.logout, exact: true }).click();
      await page.waitForURL(`${live.server.baseUrl}/login`);
      await page.getByLabel(labelled(messages.login.email)).fill(account.email);
      await page.getByLabel(labelled(messages.login.password)).fill(account.password);
      await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
      await page.getByRole('button', { name: step.usePasskey }).click();
      await toast(page, messages.auth.welcomeBack).waitFor();
      await page.waitForURL(`${live.server.baseUrl}/profile`);
    } finally {
      await context.close();
    }
  });
});
