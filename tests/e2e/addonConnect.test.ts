import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { apiClient } from '../helpers/browserPaths';
import { useServerAndBrowser } from '../helpers/browser';

/**
 * A test acting as the add-on, against the real server: it asks for a code, polls as RFC 8628
 * says, a person approves in Chromium at /link, the add-on gets tokens, queries and refreshes, and
 * is cut off when the person ends its session on the profile. Then the same with an API key
 * created and revoked on the profile. The polling interval is 1 s by configuration.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser({ DEVICE_POLL_INTERVAL_S: '1' });
const l = messages.link;
const c = messages.credentials;
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const sample = [
  ['Region', 'Revenue'],
  ['North', 120],
  ['South', 80],
];

async function call(method: string, pathname: string, body?: unknown, token?: string, form = false) {
  const res = await fetch(`${live.server.baseUrl}/api/v1${pathname}`, {
    method,
    headers: {
      ...(body ? { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? (form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body)) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function person(): Promise<{ access_token: string; refresh_token: string }> {
  const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  // Registered and its address confirmed from the mailed link, as a person who makes API keys has.
  return apiClient(live.server.baseUrl).register({ email: `ada${id}@example.com`, password: `Engine-${id}`, full_name: 'Ada Lovelace', username: `ada${id}` });
}

/** Chromium signed in as the person (tokens in local storage, as after a sign-in). */
async function browserOf(tokens: { access_token: string; refresh_token: string }): Promise<Page> {
  const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((t) => {
    if (!localStorage.getItem('access_token')) {
      localStorage.setItem('access_token', t.access_token);
      localStorage.setItem('refresh_token', t.refresh_token);
    }
  }, tokens);
  return context.newPage();
}

const query = (token: string) => call('POST', '/query', { task: 'analyze', prompt: 'Summarise', data: sample }, token);

describe('the add-on connecting, against the real server and Chromium', () => {
  it('gets tokens once the person approves at /link, queries, refreshes, and is cut off when the profile ends its session', async () => {
    const tokens = await person();
    const codes = (await call('POST', '/oauth/device_authorization', { client_id: 'sheetmind-addon' }, undefined, true)).body;
    expect(codes.interval).toBe(1);

    let interval = codes.interval as number;
    const poll = () => call('POST', '/oauth/token', { grant_type: GRANT, device_code: codes.device_code, client_id: 'sheetmind-addon' }, undefined, true);
    expect((await poll()).body).toEqual({ error: 'authorization_pending' });

    // The person opens the link the add-on shows: the code is filled in, the page names the add-on.
    const page = await browserOf(tokens);
    await page.goto(codes.verification_uri_complete);
    await page.getByRole('heading', { name: l.confirmTitle }).waitFor();
    await page.getByText(l.confirmLead('SheetMind add-on')).waitFor();
    await page.getByText(codes.user_code, { exact: true }).waitFor();
    await page.getByRole('button', { name: l.approve }).click();
    await page.getByRole('heading', { name: l.approvedTitle }).waitFor();

    // The add-on polls at its interval, growing it by 5 s whenever told to slow down.
    let answer = await poll();
    for (let i = 0; answer.status !== 200 && i < 20; i++) {
      if (answer.body.error === 'slow_down') interval += 5;
      else expect(answer.body.error).toBe('authorization_pending');
      await new Promise((resolve) => setTimeout(resolve, interval * 1000));
      answer = await poll();
    }
    expect(answer.status).toBe(200);
    const addon = answer.body as { access_token: string; refresh_token: string };
    expect((await query(addon.access_token)).status).toBe(200);
    const refreshed = await call('POST', '/auth/refresh', { refresh_token: addon.refresh_token });
    expect(refreshed.status).toBe(200);
    expect((await query(refreshed.body.access_token)).status).toBe(200);

    // The person ends the add-on's session under "Sessions and devices", asked first; Cancel ends nothing.
    await page.goto(`${live.server.baseUrl}/profile`);
    const item = page.getByRole('listitem', { name: 'SheetMind add-on' });
    await item.getByRole('button', { name: c.endSession }).click();
    await item.getByText(c.endSessionConfirm).waitFor();
    await item.getByRole('button', { name: c.cancel }).click();
    await item.getByRole('button', { name: c.endSession }).click();
    expect((await query(refreshed.body.access_token)).status).toBe(200);
    await item.getByRole('button', { name: c.confirmEnd }).click();
    await item.waitFor({ state: 'detached' });
    const cut = await query(refreshed.body.access_token);
    expect(cut.status).toBe(401);
    expect(cut.body.error.code).toBe('session_revoked');
    expect((await call('POST', '/auth/refresh', { refresh_token: refreshed.body.refresh_token })).status).toBe(401);
    await page.context().close();
  });

  it('works with an API key made on the profile, shown once, and stops when it is revoked there', async () => {
    const tokens = await person();
    const page = await browserOf(tokens);
    await page.goto(`${live.server.baseUrl}/profile`);
    const keys = page.getByRole('region', { name: c.keysTitle });
    await keys.getByLabel(c.keyName).fill('Nightly report');
    await keys.getByRole('button', { name: c.createKey }).click();
    const shown = keys.getByLabel(c.keyCreatedTitle);
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^sm_live_[0-9A-Za-z]{38}$/);
    const listed = keys.getByRole('listitem', { name: 'Nightly report' });
    await listed.getByText(key.slice(-4), { exact: false }).waitFor();

    expect((await query(key)).status).toBe(200);
    expect((await call('GET', '/users/me', undefined, key)).status).toBe(403);

    await keys.getByRole('button', { name: c.done }).click();
    // Revoking asks first: until the person says yes, the key works.
    await listed.getByRole('button', { name: c.revoke }).click();
    await listed.getByText(c.revokeConfirm).waitFor();
    expect((await query(key)).status).toBe(200);
    await listed.getByRole('button', { name: c.confirmRevoke }).click();
    await listed.waitFor({ state: 'detached' });
    const refused = await query(key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('api_key_revoked');
    await page.context().close();
  });

  it.each([
    ['a query-only key', c.scopeUsage, ['query'], { query: 200, usage: 403 }],
    ['a usage-only key', c.scopeQuery, ['usage:read'], { query: 403, usage: 200 }],
  ] as const)('makes %s when the person clicks the other scope’s label off on the profile', async (_what, untick, scopes, answers) => {
    const page = await browserOf(await person());
    await page.goto(`${live.server.baseUrl}/profile`);
    const keys = page.getByRole('region', { name: c.keysTitle });
    await keys.getByLabel(c.keyName).fill('One scope');
    await keys.getByText(untick, { exact: true }).click();
    const other = untick === c.scopeQuery ? c.scopeUsage : c.scopeQuery;
    expect(await keys.getByRole('checkbox', { name: untick }).isChecked()).toBe(false);
    expect(await keys.getByRole('checkbox', { name: other }).isChecked()).toBe(true);
    await keys.getByRole('button', { name: c.createKey }).click();
    const shown = keys.getByLabel(c.keyCreatedTitle);
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    await keys.getByRole('listitem', { name: 'One scope' }).getByText(scopes.join(', '), { exact: true }).waitFor();
    expect((await query(key)).status).toBe(answers.query);
    expect((await call('GET', '/query/usage', undefined, key)).status).toBe(answers.usage);
    await page.context().close();
  });

  it('brings a new person who opens the add-on’s link signed out, and registers, back to /link with the code', async () => {
    const codes = (await call('POST', '/oauth/device_authorization', { client_id: 'sheetmind-addon' }, undefined, true)).body;
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(codes.verification_uri_complete);
    // Signed out: /link leads to the sign-in page, which links to the register form.
    await page.getByRole('link', { name: l.signIn }).click();
    await page.getByRole('link', { name: messages.login.toRegister }).click();
    await page.getByRole('heading', { name: messages.register.heading }).waitFor();
    const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const r = messages.register;
    await page.getByLabel(r.fullName).fill('Grace Hopper');
    await page.getByLabel(r.username).fill(`grace${id}`);
    await page.getByLabel(r.email).fill(`grace${id}@example.com`);
    await page.getByLabel(new RegExp(`^${r.password}`)).fill(`Compiler-${id}`);
    await page.getByLabel(r.confirmPassword).fill(`Compiler-${id}`);
    await page.getByRole('button', { name: r.submit }).click();
    await page.getByRole('heading', { name: l.confirmTitle }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/link');
    await page.getByText(codes.user_code, { exact: true }).waitFor();
    await page.getByRole('button', { name: l.approve }).click();
    await page.getByRole('heading', { name: l.approvedTitle }).waitFor();
    await context.close();
  });
});
