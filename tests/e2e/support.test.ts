import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { useServerAndBrowser, watchPage } from '../helpers/browser';
import { labelled } from '../helpers/sights';
import { seesInBrowser } from '../helpers/sightsInBrowser';

jest.setTimeout(90_000);

const live = useServerAndBrowser();

const t = messages.support;
const field = (page: Page, label: string) => page.getByRole('textbox', { name: label, exact: false }).first();

/** Records mail-composition links the page opens, instead of handing them to a mail program. */
async function captureMailto(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const opened: string[] = [];
    (window as unknown as { __mailto: string[] }).__mailto = opened;
    document.addEventListener(
      'click',
      (event) => {
        const link = (event.target as Element).closest?.('a');
        if (link?.href.startsWith('mailto:')) {
          opened.push(link.href);
          event.preventDefault();
        }
      },
      true,
    );
  });
  return () => page.evaluate(() => (window as unknown as { __mailto: string[] }).__mailto);
}

describe('support page in Chromium', () => {
  it('keeps a draft across a reload and a sign-in, then sends it as an encoded mailto link', async () => {
    const account = { full_name: 'Ada Lovelace', username: `ada${Date.now()}`, email: `ada${Date.now()}@example.com`, password: 'Analytical-1843' };
    const registered = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    }).then((r) => r.json());

    const page = await live.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = await watchPage(page);
    const mailto = await captureMailto(page);
    await page.goto(`${live.server.baseUrl}/support`);
    await page.getByRole('link', { name: t.signInLink }).waitFor();
    const description = 'Totals are off by one & #REF! shows\nin row 2 — Zürich sheet';
    await field(page, t.titleLabel).fill('Broken totals');
    await field(page, t.descriptionLabel).fill(description);
    await field(page, t.telephoneLabel).fill('+44 20 7946 0000');
    await expect(page.getByRole('button', { name: t.submit }).isDisabled()).resolves.toBe(true);
    await field(page, t.titleLabel).press('Enter');
    await page.getByText(t.authRequiredText).waitFor();

    await page.reload();
    // The draft shows once the app has restored it.
    await seesInBrowser(page, [{ label: labelled(t.titleLabel), value: 'Broken totals' }]);

    await page.evaluate((tokens) => {
      localStorage.setItem('access_token', tokens.access_token);
      localStorage.setItem('refresh_token', tokens.refresh_token);
    }, registered);
    await page.reload();
    await page.getByRole('banner').getByRole('button', { name: messages.layout.logout }).waitFor();
    await seesInBrowser(page, [
      { label: labelled(t.descriptionLabel), value: description },
      { label: labelled(t.emailLabel), value: account.email },
    ]);

    await page.getByRole('button', { name: t.submit }).click();
    await page.getByText(t.submittedText).waitFor();
    const [link] = await mailto();
    expect(link).toBeDefined();
    const url = new URL(link!);
    expect(url.protocol).toBe('mailto:');
    expect(url.pathname).toBe('support@sheetmind.example');
    const params = new URLSearchParams(url.search.replace(/\+/g, '%2B'));
    expect(params.get('subject')).toBe('Broken totals');
    expect(params.get('body')).toBe(
      [
        'Title: Broken totals',
        `Email: ${account.email}`,
        'Phone: +44 20 7946 0000',
        '',
        'Description:',
        description,
        '',
        'Submitted by: Ada Lovelace',
        `User ID: ${registered.user.id}`,
      ].join('\n'),
    );
    await expect(page.evaluate(() => localStorage.getItem('supportFormData'))).resolves.toBeNull();
    await expect(field(page, t.titleLabel).inputValue()).resolves.toBe('');
    expect(watch.cspViolations).toEqual([]);
    await page.close();
  });

  it('shows the errors under the fields and focuses the first invalid one', async () => {
    const account = { full_name: 'Bo', username: `bo${Date.now()}`, email: `bo${Date.now()}@example.com`, password: 'Analytical-1843' };
    const registered = await fetch(`${live.server.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    }).then((r) => r.json());
    const page = await live.browser.newPage();
    // A page of the site without any script of its own, to write the session into its storage.
    await page.goto(`${live.server.baseUrl}/api/v1/health`);
    await page.evaluate((tokens) => {
      localStorage.setItem('access_token', tokens.access_token);
      localStorage.setItem('refresh_token', tokens.refresh_token);
      localStorage.setItem('supportFormData', '{corrupt');
    }, registered);
    await page.goto(`${live.server.baseUrl}/support`);
    await page.getByRole('banner').getByRole('button', { name: messages.layout.logout }).waitFor();
    await field(page, t.descriptionLabel).fill('too short');
    await page.getByRole('button', { name: t.submit }).click();
    for (const text of [t.validation.title, t.validation.description, t.validation.telephone]) await page.getByText(text).waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe('title');
    await field(page, t.titleLabel).fill('Now it has a title');
    await page.getByText(t.validation.title).waitFor({ state: 'detached' });
    await page.close();
  });
});
