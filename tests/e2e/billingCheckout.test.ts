import { useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(90_000);

const live = useServerAndBrowser();

async function api(method: string, pathname: string, body?: unknown, token?: string) {
  const res = await fetch(`${live.server.baseUrl}/api/v1${pathname}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

async function newUser(): Promise<string> {
  const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const body = await api('POST', '/auth/register', { full_name: 'Ada Lovelace', username: `ada${id}`, email: `ada${id}@example.com`, password: `Engine-notes-${id}` });
  return body.access_token;
}

describe('test-mode hosted checkout in Chromium', () => {
  it('renders styled under the strict CSP, declines 4000…0002, pays with 4242…4242 and returns to /subscription', async () => {
    const token = await newUser();
    const { checkout_url: checkoutUrl } = await api('POST', '/subscription/checkout', { plan: 'professional' }, token);
    const page = await live.browser.newPage();
    const watch = await watchPage(page);
    await page.goto(checkoutUrl);
    await page.getByRole('heading', { name: 'Subscribe to Professional' }).waitFor();
    // The style element ran under the response's nonce: the form is laid out by it.
    expect(await page.locator('main').evaluate((main) => getComputedStyle(main).maxWidth)).toBe('480px');

    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: 'Pay $19' }).click();
    await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect((await api('GET', '/subscription/me', undefined, token)).plan).toBe('free');

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: 'Pay $19' }).click();
    await page.waitForURL(`${live.server.baseUrl}/subscription?checkout=success`);
    expect((await api('GET', '/subscription/me', undefined, token)).plan).toBe('professional');
    expect(watch.cspViolations).toEqual([]);
  });

  it('schedules a downgrade on the management page and undoes it, without script', async () => {
    const token = await newUser();
    const { checkout_url: checkoutUrl } = await api('POST', '/subscription/checkout', { plan: 'team' }, token);
    const page = await live.browser.newPage({ javaScriptEnabled: false });
    await page.goto(checkoutUrl);
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry (MM/YY)').fill('01/40');
    await page.getByLabel('CVC').fill('999');
    await page.getByRole('button', { name: 'Pay $49' }).click();
    await page.waitForURL(/\/subscription\?checkout=success$/);

    const { checkout_url: manageUrl } = await api('POST', '/subscription/checkout', { plan: 'free' }, token);
    await page.goto(manageUrl);
    await page.getByRole('button', { name: /^Switch to Free on / }).click();
    await page.getByRole('status').filter({ hasText: 'Done: your plan changes to Free at the end of the period.' }).waitFor();
    expect(await api('GET', '/subscription/me', undefined, token)).toMatchObject({ plan: 'team', cancel_at_period_end: true, scheduled_plan: 'free' });
    await page.getByRole('button', { name: 'Keep Team' }).click();
    await page.getByRole('status').filter({ hasText: 'Done: your plan stays as it is.' }).waitFor();
    expect(await api('GET', '/subscription/me', undefined, token)).toMatchObject({ plan: 'team', cancel_at_period_end: false, scheduled_plan: null });
    await page.getByRole('link', { name: 'Back to your subscription' }).click();
    await page.waitForURL(`${live.server.baseUrl}/subscription`);
  });
});
