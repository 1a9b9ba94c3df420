import path from 'node:path';
import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { useServerAndBrowser, watchPage } from '../helpers/browser';
import { newVerificationLink } from '../helpers/browserPaths';

jest.setTimeout(90_000);

const live = useServerAndBrowser();
const t = messages.verifyEmail;

/**
 * Verified email in Chromium against the real server (decisions.md, "Verified email"): a new
 * account sees the banner on its signed-in pages; the link of the mail it got (read from the
 * server's outbox) verifies the address, signed in, and the banner goes and stays gone; the same
 * link a second time says it was used; the banner's "Resend link" mails a new link.
 */
describe('verified email in Chromium', () => {
  async function registered(page: Page) {
    const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const a = { full_name: 'Ada Lovelace', username: `ada${id}`, email: `ada${id}@example.com`, password: `Analytical-${id}` };
    await page.goto(`${live.server.baseUrl}/register`);
    await page.getByLabel(messages.register.fullName).fill(a.full_name);
    await page.getByLabel(messages.register.username).fill(a.username);
    await page.getByLabel(messages.register.email).fill(a.email);
    await page.getByLabel(new RegExp(`^${messages.register.password}`)).fill(a.password);
    await page.getByLabel(messages.register.confirmPassword).fill(a.password);
    await page.getByRole('button', { name: messages.register.submit }).click();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    return a;
  }
  const outbox = () => path.join(live.server.dataDir, 'outbox');

  it('shows the banner after registering; the mailed link verifies, the banner goes, and a second use is refused', async () => {
    const page = await live.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = await watchPage(page);
    const a = await registered(page);
    const banner = page.getByText(t.bannerText(a.email));
    await banner.waitFor();
    await page.getByRole('navigation', { name: messages.layout.mainNav }).getByRole('link', { name: messages.layout.profile }).click();
    await banner.waitFor();
    await page.getByText(t.unverified, { exact: true }).waitFor();

    const link = await newVerificationLink(outbox(), a.email);
    expect(link).toMatch(new RegExp(`^${live.server.baseUrl}/verify-email\\?token=`));
    await page.goto(link);
    await page.getByText(t.verifiedTitle).waitFor();
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: t.toDashboard }).click();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await page.reload();
    await page.getByText(messages.layout.welcome(a.full_name)).waitFor();
    expect(await banner.count()).toBe(0);
    expect([watch.consoleErrors, watch.cspViolations]).toEqual([[], []]);

    // (The browser logs the refusal's 400 itself.)
    await page.goto(link);
    await page.getByText(t.failedTitle).waitFor();
    await page.getByText(/already used/).waitFor();
    await page.close();
  });

  it('mails a new link from the banner, which verifies too', async () => {
    const page = await live.browser.newPage({ viewport: { width: 390, height: 844 } });
    const a = await registered(page);
    await newVerificationLink(outbox(), a.email);
    await page.getByRole('button', { name: t.resend }).click();
    await page.getByText(t.sent).waitFor();
    const second = await newVerificationLink(outbox(), a.email, 1);
    await page.goto(second);
    await page.getByText(t.verifiedTitle).waitFor();
    expect(await page.getByText(t.bannerText(a.email)).count()).toBe(0);
    await page.close();
  });
});
