import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { BrowserContext, Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { payInNewTab, useServerAndBrowser, watchPage } from '../helpers/browser';

/**
 * The account screens against the real server in Chromium: a plan bought through the test-mode
 * checkout in the new tab shows up when the user comes back, usage from real queries drives the
 * meters and the warning, a declined card changes nothing, a changed password is the one that
 * signs in, and Delete Account only asks the user to contact support.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
const d = messages.dashboard;
const s = messages.subscription;
const p = messages.profile;

async function api<T = Record<string, unknown>>(method: string, pathname: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${live.server.baseUrl}/api/v1${pathname}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

interface Account {
  id: string;
  email: string;
  password: string;
  full_name: string;
  username: string;
  tokens: { access_token: string; refresh_token: string };
}

async function newAccount(): Promise<Account> {
  const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const fields = { email: `grace${id}@example.com`, password: `Compiler-${id}`, full_name: 'Grace Hopper', username: `grace${id}` };
  const { status, body } = await api<Account['tokens'] & { user: { id: string } }>('POST', '/auth/register', fields);
  expect(status).toBe(201);
  return { ...fields, id: body.user.id, tokens: { access_token: body.access_token, refresh_token: body.refresh_token } };
}

/** A browser context signed in as `account` (its tokens in local storage, as after a sign-in). */
async function signedIn(account: Account, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await live.browser.newContext({ viewport });
  await context.addInitScript((tokens) => {
    if (!localStorage.getItem('access_token')) {
      localStorage.setItem('access_token', tokens.access_token);
      localStorage.setItem('refresh_token', tokens.refresh_token);
    }
  }, account.tokens);
  return { context, page: await context.newPage() };
}

describe('account screens in Chromium against the real server', () => {
  it('upgrades to Professional in the new tab, shows it on return, then warns above 80 % of real queries', async () => {
    const account = await newAccount();
    const { context, page } = await signedIn(account);
    const watch = await watchPage(page);
    await page.goto(`${live.server.baseUrl}/subscription`);
    await page.getByRole('heading', { name: s.heading }).waitFor();
    await page.getByRole('button', { name: s.currentPlan }).waitFor();
    expect(await page.getByRole('button', { name: s.currentPlan }).isDisabled()).toBe(true);

    const tab = await payInNewTab(page, s.upgradeTo('Professional'), '4242 4242 4242 4242');
    await tab.waitForURL(/\/subscription\?checkout=success$/);
    await tab.close();
    // Back on the first tab: the subscription reloads and the Current Plan badge has moved.
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await page.getByRole('button', { name: s.upgradeTo('Team') }).waitFor();
    await page.getByRole('article', { name: 'Professional' }).getByRole('button', { name: s.currentPlan }).waitFor();
    expect(await page.getByRole('article', { name: 'Free' }).getByRole('button', { name: s.downgrade }).isEnabled()).toBe(true);

    // 790 queries made earlier this month (a day's tokens allow about 700, so they cannot all be
    // made today), then 11 real ones through the add-on's endpoint: 801 of 1,000.
    const db = new SQLite(path.join(live.server.dataDir, 'sheetmind.db'));
    db.prepare('insert into usage_months (user_id, month, queries, settled, processing_ms) values (?, ?, 790, 790, 3950)').run(
      account.id,
      new Date().toISOString().slice(0, 7),
    );
    db.close();
    for (let i = 0; i < 11; i++) {
      expect((await api('POST', '/query', { task: 'analyze', prompt: 'x' }, account.tokens.access_token)).status).toBe(200);
    }

    await page.getByRole('link', { name: messages.layout.dashboard }).click();
    await page.getByText('PROFESSIONAL', { exact: true }).waitFor();
    await page.getByText(d.ofQueries('1,000')).waitFor();
    await page.getByText(d.warning('81')).waitFor();
    await page.getByRole('progressbar', { name: d.monthlyQueries }).waitFor();
    await page.getByRole('link', { name: d.upgradePlan }).click();
    await page.waitForURL(`${live.server.baseUrl}/subscription`);
    expect(watch.cspViolations).toEqual([]);
    await context.close();
  });

  it('leaves the plan on Free when the card is declined', async () => {
    const account = await newAccount();
    const { context, page } = await signedIn(account);
    await page.goto(`${live.server.baseUrl}/subscription`);
    const tab = await payInNewTab(page, s.upgradeTo('Team'), '4000 0000 0000 0002');
    await tab.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    await tab.close();
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await page.getByRole('button', { name: s.currentPlan }).waitFor();
    expect((await api<{ plan: string }>('GET', '/subscription/me', undefined, account.tokens.access_token)).body.plan).toBe('free');

    await page.getByRole('link', { name: messages.layout.dashboard }).click();
    await page.getByText('FREE', { exact: true }).waitFor();
    await page.getByText(d.ofQueries('100')).waitFor();
    await page.getByText(d.getStartedTitle).waitFor();
    await context.close();
  });

  it('changes the password, which is then the one that signs in; Delete Account only asks to contact support', async () => {
    const account = await newAccount();
    const { context, page } = await signedIn(account, { width: 390, height: 844 });
    await page.goto(`${live.server.baseUrl}/profile`);
    await page.getByText(account.email, { exact: true }).waitFor();
    // Nothing on the page is wider than a phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const newPassword = `${account.password}-renewed`;
    await page.getByLabel(new RegExp(`^${p.currentPassword}`)).fill(account.password);
    await page.getByLabel(new RegExp(`^${p.newPassword}`)).fill(newPassword);
    await page.getByLabel(new RegExp(`^${p.confirmNewPassword}`)).fill(newPassword);
    await page.getByRole('button', { name: p.updatePassword }).click();
    await page.getByText(p.updated).waitFor();
    expect(await page.getByLabel(new RegExp(`^${p.currentPassword}`)).inputValue()).toBe('');
    expect((await api('POST', '/auth/login/email', { email: account.email, password: account.password })).status).toBe(401);
    expect((await api('POST', '/auth/login/email', { email: account.email, password: newPassword })).status).toBe(200);

    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    let prompt = '';
    page.once('dialog', (dialog) => {
      prompt = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: p.deleteAccount }).click();
    await page.getByText(p.deletionRequested).waitFor();
    expect(prompt).toBe(p.deleteConfirm);
    expect(requests.filter((r) => r.includes('/api/'))).toEqual([]);
    expect((await api('GET', '/users/me', undefined, account.tokens.access_token)).status).toBe(200);
    await context.close();
  });
});
