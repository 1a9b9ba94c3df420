import { messages } from '../../src/content/messages';
import { PLANS } from '../../src/content/plans';
import { useServerAndBrowser, watchPage } from '../helpers/browser';

jest.setTimeout(60_000);

const live = useServerAndBrowser();

async function open(path: string, width = 1280) {
  const page = await live.browser.newPage({ viewport: { width, height: 900 } });
  const watch = await watchPage(page);
  await page.goto(live.server.baseUrl + path, { waitUntil: 'networkidle' });
  return { page, watch };
}

describe('the public site in Chromium', () => {
  it('shows the landing page with its calls, features and three plan cards, with no CSP violation', async () => {
    const { page, watch } = await open('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.getByRole('link', { name: messages.landing.tryFree }).getAttribute('href')).resolves.toBe('/register');
    await page.getByText(messages.landing.socialProof).first().waitFor();
    for (const feature of messages.landing.features) {
      await page.getByRole('heading', { name: feature.title }).waitFor();
    }
    const cards = page.getByRole('article');
    await expect(cards.count()).resolves.toBe(3);
    for (const [i, plan] of PLANS.entries()) {
      const text = await cards.nth(i).innerText();
      expect(text).toContain(plan.name);
      expect(text).toContain(`$${plan.priceUsd}`);
    }
    await expect(page.getByText(messages.landing.mostPopular).count()).resolves.toBe(1);
    await page.getByRole('link', { name: messages.landing.startTrial }).waitFor();
    await expect(page.title()).resolves.toContain('SheetMind');
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('fits a 390 px phone screen without sideways scrolling', async () => {
    const { page } = await open('/', 390);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it.each([
    ['/privacy', 'Privacy Policy'],
    ['/terms', 'Terms of Service'],
    ['/support', messages.support.heading],
  ])('serves %s on a direct load', async (path, heading) => {
    const { page, watch } = await open(path);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    expect(watch.cspViolations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  });

  it('renders the 404 page on the client for an unknown path and logs the path', async () => {
    const { page, watch } = await open('/no-such-page');
    await page.getByRole('heading', { name: `404 ${messages.notFound.heading}` }).waitFor();
    await page.getByRole('link', { name: messages.notFound.home }).click();
    await page.waitForURL(`${live.server.baseUrl}/`);
    expect(watch.consoleErrors).toEqual([expect.stringContaining('/no-such-page')]);
    await page.close();
  });

  it('navigates between pages without a reload', async () => {
    const { page } = await open('/');
    await page.getByRole('contentinfo').getByRole('link', { name: messages.footer.terms }).click();
    await page.getByRole('heading', { level: 1, name: 'Terms of Service' }).waitFor();
    const navigations = await page.evaluate(() => performance.getEntriesByType('navigation').length);
    expect(navigations).toBe(1);
    await page.close();
  });
});
