import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(90_000);

let seq = 0;
const live = useServerAndBrowser();

function account() {
  seq += 1;
  const id = `${Date.now()}${seq}`;
  return { full_name: `Grace Hopper ${seq}`, username: `grace${id}`, email: `grace${id}@example.com`, password: `Cobol-rules-${id}` };
}

async function api(pathname: string, body: unknown) {
  const res = await fetch(`${live.server.baseUrl}/api/v1${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

async function newPage(): Promise<Page> {
  const page = await live.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await watchPage(page);
  return page;
}

async function fillRegister(page: Page, a: ReturnType<typeof account>) {
  await page.getByLabel(messages.register.fullName).fill(a.full_name);
  await page.getByLabel(messages.register.username).fill(a.username);
  await page.getByLabel(messages.register.email).fill(a.email);
  await page.getByLabel(new RegExp(`^${messages.register.password}`)).fill(a.password);
  await page.getByLabel(messages.register.confirmPassword).fill(a.password);
}

const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).first();

describe('authentication in Chromium', () => {
  it('registers, lands on the dashboard signed in, then logs out', async () => {
    const page = await newPage();
    const a = account();
    await page.goto(`${live.server.baseUrl}/register`);
    await fillRegister(page, a);
    await page.getByRole('button', { name: messages.register.submit }).click();
    await page.waitForURL(`${live.server.baseUrl}/dashboard`);
    await toast(page, messages.auth.accountCreated).waitFor();
    await page.getByText(messages.layout.welcome(a.full_name)).waitFor();
    const nav = page.getByRole('navigation', { name: messages.layout.mainNav });
    for (const name of [messages.layout.dashboard, messages.layout.usage, messages.layout.subscription, messages.layout.profile]) {
      await nav.getByRole('link', { name }).waitFor();
    }
    expect(await page.evaluate(() => Boolean(localStorage.getItem('access_token') && localStorage.getItem('refresh_token')))).toBe(true);

    await page.getByRole('banner').getByRole('button', { name: messages.layout.logout }).click();
    await toast(page, messages.auth.loggedOut).waitFor();
    await nav.getByRole('link', { name: messages.layout.login }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
    await page.close();
  });

  it('shows the register validation messages and clears a field error when it is edited', async () => {
    const page = await newPage();
    await page.goto(`${live.server.baseUrl}/register`);
    await page.getByRole('button', { name: messages.register.submit }).click();
    for (const text of [messages.register.fullNameRequired, messages.register.usernameRequired, messages.register.emailRequired, messages.register.passwordRequired]) {
      await page.getByText(text).waitFor();
    }
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('full_name');
    await page.getByLabel(messages.register.fullName).fill('A');
    await page.getByText(messages.register.fullNameRequired).waitFor({ state: 'detached' });
    await page.getByText(messages.register.usernameRequired).waitFor();
    await page.close();
  });

  it('says the email is taken with the spec text', async () => {
    const a = account();
    await api('/auth/register', a);
    const page = await newPage();
    await page.goto(`${live.server.baseUrl}/register`);
    await fillRegister(page, { ...a, username: `${a.username}x` });
    await page.getByRole('button', { name: messages.register.submit }).click();
    await toast(page, messages.auth.registerConflict).waitFor();
    await page.close();
  });

  it('refuses a wrong password with the Login failed toast', async () => {
    const a = account();
    await api('/auth/register', a);
    const page = await newPage();
    await page.goto(`${live.server.baseUrl}/login`);
    await page.getByLabel(messages.login.email).fill(a.email);
    await page.getByLabel(messages.login.password).fill('Not-the-password-1');
    await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
    await toast(page, messages.auth.loginUnauthorized).waitFor();
    await toast(page, messages.auth.loginFailed).waitFor();
    expect(page.url()).toBe(`${live.server.baseUrl}/login`);
    await page.close();
  });

  it('sends a signed-out deep link to /login and back to it after signing in', async () => {
    const a = account();
    await api('/auth/register', a);
    const page = await newPage();
    await page.goto(`${live.server.baseUrl}/profile`);
    await page.waitForURL(`${live.server.baseUrl}/login`);
    await page.getByLabel(messages.login.email).fill(a.email);
    await page.getByLabel(messages.login.password).fill(a.password);
    await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
    await toast(page, messages.auth.welcomeBack).waitFor();
    await page.waitForURL(`${live.server.baseUrl}/profile`);
    await page.getByText(a.email, { exact: true }).waitFor();
    // The redirect replaced /profile in history: going back does not bounce to /login again.
    await page.close();
  });

  it('refreshes an expired access token once and retries the request', async () => {
    const a = account();
    const { body } = await api('/auth/register', a);
    const page = await newPage();
    const refreshCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/auth/refresh')) refreshCalls.push(request.url());
    });
    // A page of the site without any script of its own, to write the session into its storage.
    await page.goto(`${live.server.baseUrl}/api/v1/health`);
    await page.evaluate((refresh) => {
      localStorage.setItem('access_token', 'expired.or.invalid');
      localStorage.setItem('refresh_token', refresh);
    }, body.refresh_token);
    await page.goto(`${live.server.baseUrl}/dashboard`);
    await page.getByText(messages.dashboard.greetingNew(a.full_name)).waitFor();
    expect(refreshCalls).toHaveLength(1);
    expect(await page.evaluate(() => localStorage.getItem('refresh_token'))).not.toBe(body.refresh_token);
    await page.close();
  });

  it('signs the user out when a refresh token comes back after it was rotated twice', async () => {
    const a = account();
    const first = (await api('/auth/register', a)).body;
    const second = (await api('/auth/refresh', { refresh_token: first.refresh_token })).body;
    await api('/auth/refresh', { refresh_token: second.refresh_token });
    const page = await newPage();
    // A page of the site without any script of its own, to write the session into its storage.
    await page.goto(`${live.server.baseUrl}/api/v1/health`);
    await page.evaluate((refresh) => {
      localStorage.setItem('access_token', 'expired.or.invalid');
      localStorage.setItem('refresh_token', refresh);
    }, first.refresh_token);
    await page.goto(`${live.server.baseUrl}/dashboard`);
    await page.waitForURL(`${live.server.baseUrl}/login`);
    expect(await page.evaluate(() => localStorage.getItem('refresh_token'))).toBeNull();
    await page.close();
  });

  it('resets a forgotten password through the link in the outbox', async () => {
    const a = account();
    await api('/auth/register', a);
    const page = await newPage();
    await page.goto(`${live.server.baseUrl}/login`);
    await page.getByRole('link', { name: messages.login.forgot }).click();
    // The login page has an Email field too: fill the one of the page that sends the link.
    await page.getByRole('button', { name: messages.forgotPassword.submit }).waitFor();
    await page.getByLabel(messages.forgotPassword.email).fill(a.email);
    await page.getByRole('button', { name: messages.forgotPassword.submit }).click();
    await page.getByText(messages.forgotPassword.sentTitle).waitFor();

    const outbox = path.join(live.server.dataDir, 'outbox');
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      const mails = fs.existsSync(outbox) ? fs.readdirSync(outbox).map((f) => fs.readFileSync(path.join(outbox, f), 'utf8')) : [];
      const mail = mails.find((m) => m.includes(a.email) && m.includes('reset-password'));
      link = mail && /(http:\/\/\S+reset-password\?token=\S+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];
      if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(link).toContain(live.server.baseUrl);
    await page.goto(link!);
    await page.getByRole('textbox', { name: messages.resetPassword.newPassword, exact: true }).fill('Fresh-start-2026');
    await page.getByLabel(messages.resetPassword.confirmPassword).fill('Fresh-start-2026');
    await page.getByRole('button', { name: messages.resetPassword.submit }).click();
    await page.getByText(messages.resetPassword.doneTitle).waitFor();
    expect((await api('/auth/login/email', { email: a.email, password: 'Fresh-start-2026' })).status).toBe(200);
    expect(live.server.output()).not.toContain(new URL(link!).searchParams.get('token')!);
    await page.close();
  });

  it('lets two tabs share one refresh and follow a logout in the other tab', async () => {
    const a = account();
    const { body } = await api('/auth/register', a);
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const refreshCalls: string[] = [];
    context.on('request', (request) => {
      if (request.url().endsWith('/api/v1/auth/refresh')) refreshCalls.push(request.url());
    });
    const first = await context.newPage();
    // A page of the site without any script of its own, to write the session into its storage.
    await first.goto(`${live.server.baseUrl}/api/v1/health`);
    await first.evaluate((refresh) => {
      localStorage.setItem('access_token', 'expired.or.invalid');
      localStorage.setItem('refresh_token', refresh);
    }, body.refresh_token);
    const second = await context.newPage();
    await Promise.all([first.goto(`${live.server.baseUrl}/dashboard`), second.goto(`${live.server.baseUrl}/profile`)]);
    await first.getByText(messages.dashboard.greetingNew(a.full_name)).waitFor();
    await second.getByRole('heading', { name: messages.profile.title, level: 1 }).waitFor();
    await second.getByText(a.email).first().waitFor();
    expect(refreshCalls).toHaveLength(1);

    await first.getByRole('button', { name: messages.layout.logout }).click();
    await second.waitForURL(`${live.server.baseUrl}/login`);
    await second.getByRole('navigation', { name: messages.layout.mainNav }).getByRole('link', { name: messages.layout.login }).waitFor();
    await context.close();
  });
});
