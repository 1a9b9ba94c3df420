import type { Page } from 'playwright-core';
import { useServerAndBrowser } from '../helpers/browser';
import { openTab } from '../helpers/browserPaths';

/**
 * The paths share one browser context per test file (tests/helpers/browserPaths.ts, `openTab`):
 * what one path leaves behind, on purpose or by failing before its `finally`, must not reach the
 * next. Each kind of state a page can keep is left by one tab, and looked for from the next.
 */

jest.setTimeout(60_000);

const live = useServerAndBrowser();

/** Everything the page's origin keeps, as the page sees it. */
function storageOf(page: Page) {
  return page.evaluate(async () => ({
    local: Object.fromEntries(Object.entries(localStorage)),
    session: Object.keys(sessionStorage).filter((key) => key !== 'sheetmind.test.seeded'),
    cookie: document.cookie,
    databases: (await indexedDB.databases()).map((db) => db.name),
    caches: await caches.keys(),
  }));
}

/** The health check's answer as the page gets it (a route of the page could change it). */
const health = (page: Page) => page.evaluate(() => fetch('/api/v1/health').then((res) => res.status));

describe('a path tab in the shared browser context', () => {
  it('starts with no pages, storage, cookies, routes or headers left by the path before, and the HTTP cache warm', async () => {
    const { baseUrl } = live.server;
    const first = await openTab(live.browser, { seeded: 'first' }, { extraHTTPHeaders: { 'x-path': 'first' } });
    const sent: string[] = [];
    first.page.on('request', (request) => request.url().endsWith('/api/v1/health') && sent.push(request.headers()['x-path'] ?? ''));
    await first.page.route('**/api/v1/health', (route) => route.fulfill({ status: 418, body: '' }));
    await first.page.goto(`${baseUrl}/support`);
    expect(await health(first.page)).toBe(418);
    expect(sent).toEqual(['first']);
    await first.page.evaluate(async () => {
      localStorage.setItem('left', 'behind');
      sessionStorage.setItem('left', 'behind');
      document.cookie = 'left=behind; max-age=3600';
      await new Promise((resolve, reject) => {
        const open = indexedDB.open('left-behind');
        open.onsuccess = () => resolve(open.result.close());
        open.onerror = () => reject(open.error);
      });
      await (await caches.open('left-behind')).put('/left-behind', new Response('behind'));
    });
    expect(await storageOf(first.page)).toEqual({
      local: { seeded: 'first', left: 'behind' },
      session: ['left'],
      cookie: 'left=behind',
      databases: ['left-behind'],
      caches: ['left-behind'],
    });
    // A pop-up and a second tab left open, and no `close()`: as when a path fails early. The second
    // tab has no routes (a page with routes does not use the HTTP cache): the app's files it loads
    // are cached once the network is idle (a page closed mid-download leaves no cache entry).
    await Promise.all([first.page.waitForEvent('popup'), first.page.evaluate(() => void window.open('/support'))]);
    const second = await first.context.newPage();
    await second.goto(`${baseUrl}/support`, { waitUntil: 'networkidle' });
    expect(first.context.pages()).toHaveLength(3);

    const next = await openTab(live.browser, { seeded: 'next' });
    try {
      expect(next.context).toBe(first.context);
      expect(next.context.pages()).toEqual([next.page]);
      expect(await next.context.cookies()).toEqual([]);
      const fromDiskCache: string[] = [];
      const cdp = await next.context.newCDPSession(next.page);
      await cdp.send('Network.enable');
      cdp.on('Network.responseReceived', ({ response }) => response.fromDiskCache && fromDiskCache.push(response.url));
      const headers: string[] = [];
      next.page.on('request', (request) => request.url().endsWith('/api/v1/health') && headers.push(request.headers()['x-path'] ?? 'none'));
      await next.page.goto(`${baseUrl}/support`);
      expect(await storageOf(next.page)).toEqual({ local: { seeded: 'next' }, session: [], cookie: '', databases: [], caches: [] });
      expect(await health(next.page)).toBe(200);
      expect(headers).toEqual(['none']);
      // The app's scripts come from the cache the second tab filled.
      expect(fromDiskCache.filter((url) => url.endsWith('.js')).length).toBeGreaterThan(0);
    } finally {
      await next.close();
    }
    expect(next.context.pages()).toEqual([]);
  });
});
