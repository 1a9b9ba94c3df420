import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import * as messages from '../../src/content/messages';
import { seriousViolations, useServerAndBrowser, watchPage } from '../helpers/browser';

/**
 * Two-step sign-in in Chromium against the real server, as a person does it: set up an
 * authenticator app on the profile (the secret read off the page, the codes made by the TOTP
 * library as a phone would), keep the recovery codes, sign out, and sign in again with a code and
 * then with a recovery code, landing where the sign-in was asked for.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
const s = messages.security;
const step = messages.secondStep;

const codeAt = (secret: string, offsetMs = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: Date.now() + offsetMs });

async function register() {
  const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const account = { email: `ada${id}@example.com`, password: `Analytical-${id}`, full_name: 'Ada Lovelace', username: `ada${id}` };
  const res = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) });
  expect(res.status).toBe(201);
  return account;
}

async function signInWithPassword(page: Page, account: { email: string; password: string }) {
  await page.getByLabel(messages.login.email).fill(account.email);
  await page.getByLabel(messages.login.password, { exact: false }).first().fill(account.password);
  await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
}

describe('two-step sign-in in Chromium', () => {
  it('sets up an app on the profile, keeps the recovery codes, and signs in with a code and with a recovery code', async () => {
    const account = await register();
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const watch = await watchPage(page);
    const refused: string[] = [];
    page.on('response', (r) => r.status() >= 400 && refused.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`));

    await page.goto(`${live.server.baseUrl}/login`);
    await signInWithPassword(page, account);
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${live.server.baseUrl}/profile`);

    const section = page.getByRole('region', { name: s.title });
    await section.getByText(s.off).waitFor();
    await section.getByRole('button', { name: s.setUp }).click();
    // The code is drawn (its encoder is a chunk of its own, asked for with the set-up): its squares are there.
    const squares = section.getByRole('img', { name: s.qrLabel }).locator('path');
    await squares.waitFor();
    expect((await squares.getAttribute('d'))?.match(/M\d+ \d+h1v1h-1z/g)?.length).toBeGreaterThan(200);
    const secret = (await section.getByLabel(s.manualKey).innerText()).replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    // A mistyped code keeps the set-up, with the reason under it.
    await section.getByLabel(s.codeLabel).fill('000000');
    await section.getByRole('button', { name: s.turnOn }).click();
    await section.getByRole('alert').getByText(/not valid/).waitFor();
    await section.getByLabel(s.codeLabel).fill(codeAt(secret));
    await section.getByRole('button', { name: s.turnOn }).click();

    await section.getByText(s.codesTitle).waitFor();
    const codes = (await section.getByRole('list', { name: s.codesLabel }).getByRole('listitem').allInnerTexts()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: s.download }).click()]);
    expect(download.suggestedFilename()).toBe('sheetmind-recovery-codes.txt');
    const saved = fs.readFileSync((await download.path())!, 'utf8');
    for (const code of codes) expect(saved).toContain(code);
    expect(await seriousViolations(page)).toEqual([]);
    await section.getByRole('button', { name: s.saved }).click();
    await section.getByText(s.codesLeft(10)).waitFor();

    // Signed out, a guarded page asks for the sign-in; the second step takes the app's next code.
    await page.getByRole('button', { name: messages.layout.logout }).click();
    await page.getByRole('banner').getByRole('link', { name: messages.layout.login }).waitFor();
    await page.goto(`${live.server.baseUrl}/usage`);
    await page.waitForURL(/\/login$/);
    await signInWithPassword(page, account);
    await page.getByRole('heading', { name: step.heading }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel(step.totpLabel).fill('123456');
    await page.getByRole('button', { name: step.submit }).click();
    await page.getByRole('alert').getByText(messages.auth.invalidCode).waitFor();
    expect(await page.getByLabel(step.totpLabel).inputValue()).toBe('123456');
    await page.getByLabel(step.totpLabel).fill(codeAt(secret, 30_000));
    await page.getByRole('button', { name: step.submit }).click();
    await page.getByText(messages.auth.welcomeBack).first().waitFor();
    await page.waitForURL(/\/usage$/);

    // Again, with a recovery code instead of the app.
    await page.getByRole('button', { name: messages.layout.logout }).click();
    await page.getByRole('banner').getByRole('link', { name: messages.layout.login }).waitFor();
    await page.goto(`${live.server.baseUrl}/`);
    await page.getByRole('banner').getByRole('link', { name: messages.layout.login }).click();
    await signInWithPassword(page, account);
    await page.getByRole('button', { name: step.useRecovery }).click();
    await page.getByLabel(step.recoveryLabel).fill(codes[4]!.toUpperCase());
    await page.getByRole('button', { name: step.submit }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${live.server.baseUrl}/profile`);
    await page.getByRole('region', { name: s.title }).getByText(s.codesLeft(9)).waitFor();

    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
    // The refused codes above, and the Free plan's analytics (a Professional feature), are all that failed.
    expect(refused).toEqual(['400 POST /api/v1/mfa/totp/confirm', '401 POST /api/v1/auth/login/mfa', '403 GET /api/v1/usage/analytics']);
    await context.close();
  });
});
