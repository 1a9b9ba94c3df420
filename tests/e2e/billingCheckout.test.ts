import * as messages from '../../src/content/messages';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY } from '../../machines/shared/tokenStorage';
import { payWithTestCard, seriousViolations, useServerAndBrowser, watchPage } from '../helpers/browser';

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

async function newSession(): Promise<{ access_token: string; refresh_token: string }> {
  const id = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  return api('POST', '/auth/register', { full_name: 'Ada Lovelace', username: `ada${id}`, email: `ada${id}@example.com`, password: `Engine-notes-${id}` });
}

async function newUser(): Promise<string> {
  return (await newSession()).access_token;
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
    // What the person typed stays, so they can correct one digit; the CVC is never sent back.
    expect(await page.getByLabel('Card number').inputValue()).toBe('4000 0000 0000 0002');
    expect(await page.getByLabel('Expiry (MM/YY)').inputValue()).toBe('12/34');
    expect(await page.getByLabel('CVC').inputValue()).toBe('');
    expect((await api('GET', '/subscription/me', undefined, token)).plan).toBe('free');

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
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

  it.each(['light', 'dark'] as const)('follows the system’s %s mode and the product’s font, with nothing serious for axe', async (colorScheme) => {
    const token = await newUser();
    const { checkout_url: checkoutUrl } = await api('POST', '/subscription/checkout', { plan: 'professional' }, token);
    const context = await live.browser.newContext({ colorScheme });
    const page = await context.newPage();
    await page.goto(`${live.server.baseUrl}/privacy`);
    const productFont = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    await page.goto(checkoutUrl);
    await page.getByRole('heading', { name: 'Subscribe to Professional' }).waitFor();
    const { font, background } = await page.evaluate(() => ({
      font: getComputedStyle(document.body).fontFamily,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    expect(font).toBe(productFont);
    // Dark in dark mode, light in light mode, as the product's pages.
    const lightness = (rgb: string) => (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((sum, c) => sum + Number(c), 0) / 3;
    expect(lightness(background) < 128).toBe(colorScheme === 'dark');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('tells the page that opened the checkout, once, that the payment succeeded', async () => {
    const session = await newSession();
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(
      ([pair, accessKey, refreshKey]) => {
        localStorage.setItem(refreshKey, pair.refresh_token);
        localStorage.setItem(accessKey, pair.access_token);
      },
      [session, ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY] as const,
    );
    const page = await context.newPage();
    await page.goto(`${live.server.baseUrl}/subscription`);
    const [checkout] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: messages.subscription.upgradeTo('Professional') }).click(),
    ]);
    await checkout.getByRole('heading', { name: 'Subscribe to Professional' }).waitFor();
    await payWithTestCard(checkout, undefined, '$19');
    await checkout.waitForURL(/\/subscription\?checkout=success$/);
    await checkout.close();
    await page.bringToFront();
    // Headless Chromium keeps every page focused and visible, so it never tells the page of the
    // return: this is the event a browser sends when the user switches back to the tab.
    const back = () => page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await back();
    await page.getByText(messages.subscription.paymentSucceeded).waitFor();
    await page.getByText(messages.subscription.paymentSucceededText('Professional')).waitFor();
    await page.getByRole('button', { name: messages.subscription.currentPlan }).waitFor();
    // Back once more: the plan is the same, nothing more is said.
    await Promise.all([page.waitForResponse('**/api/v1/subscription/me'), back()]);
    await expect(page.getByText(messages.subscription.paymentSucceeded).count()).resolves.toBeLessThanOrEqual(1);
    await context.close();
  });
});
