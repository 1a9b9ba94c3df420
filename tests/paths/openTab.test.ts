import type { Page } from 'playwright-core';
import { HeldCalls, openTab, useServerAndPathsBrowser } from '../helpers/browserPaths';

/**
 * The paths share one browser context per test file (tests/helpers/browserPaths.ts, `openTab`):
 * what one path leaves behind, on purpose or by failing before its `finally`, must not reach the
 * next. Each kind of state a page can keep is left by one tab, and looked for from the next.
 */

jest.setTimeout(60_000);

const live = useServerAndPathsBrowser();

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

/** Waits until `check` holds (the server writes its log a moment after it answers), 5 s at most. */
async function until(check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`still not so after 5 s: ${check.toString()}`);
  }
}

/** The health check's answer as the page gets it (a route of the page could change it). */
const health = (page: Page) => page.evaluate(() => fetch('/api/v1/health').then((res) => res.status));

describe('a path tab in the shared browser context', () => {
  it('starts with no pages, storage, cookies, routes, listeners, init scripts or headers left by the path before, and the HTTP cache warm', async () => {
    const { baseUrl } = live.server;
    const first = await openTab(live.browser, { seeded: 'first' }, { extraHTTPHeaders: { 'x-path': 'first' } });
    const sent: string[] = [];
    first.page.on('request', (request) => request.url().endsWith('/api/v1/health') && sent.push(request.headers()['x-path'] ?? ''));
    await first.page.route('**/api/v1/health', (route) => route.fulfill({ status: 418, body: '' }));
    await first.page.addInitScript(() => ((window as unknown as { leftBehind: boolean }).leftBehind = true));
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
    // tab has no routes (a page with routes does not use the HTTP cache) and fills the cache: it is
    // left once the network is idle (the page asks for the app's scripts after its load event).
    // The pop-up opens the health check, so that what is cached comes from that tab alone.
    const [popup] = await Promise.all([first.page.waitForEvent('popup'), first.page.evaluate(() => void window.open('/api/v1/health'))]);
    await popup.waitForLoadState();
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
      // The page asks for the app's scripts after its load event.
      await next.page.goto(`${baseUrl}/support`, { waitUntil: 'networkidle' });
      expect(await storageOf(next.page)).toEqual({ local: { seeded: 'next' }, session: [], cookie: '', databases: [], caches: [] });
      expect(await health(next.page)).toBe(200);
      expect(headers).toEqual(['none']);
      // The path before's listener hears nothing now, and its init script does not run.
      expect(sent).toEqual(['first']);
      expect(await next.page.evaluate(() => 'leftBehind' in window)).toBe(false);
      // The app's scripts come from the cache the second tab filled.
      expect(fromDiskCache.filter((url) => url.endsWith('.js')).length).toBeGreaterThan(0);
    } finally {
      await next.close();
    }
    // Ended: the tab the next path takes is all that is left, and it shows nothing.
    expect(next.context.pages()).toEqual([next.page]);
    expect(next.page.url()).toBe('about:blank');
  });

  it('drops a call still held when the path ends: it never reaches the server', async () => {
    const { baseUrl } = live.server;
    const id = `${process.pid}-${Date.now()}`;
    const reached = (pathname: string) => live.server.output().includes(`"url":"/api/v1/${pathname}"`);
    const tab = await openTab(live.browser);
    // Sends that change something on the server (a closed page's held GET has not been seen to go on).
    const leaks = [1, 2, 3, 4, 5].map((n) => `leak-${n}-${id}`);
    const held = await HeldCalls.on(tab.page, Object.fromEntries(leaks.map((leak) => [leak, { method: 'POST', path: `/${leak}` }])));
    await tab.page.goto(`${baseUrl}/support`);
    // The server's log names the calls that reach it: one let through is there.
    await tab.page.evaluate((pathname) => fetch(pathname, { method: 'POST' }), `/api/v1/seen-${id}`);
    await until(() => reached(`seen-${id}`));
    for (const leak of leaks) {
      await tab.page.evaluate((pathname) => void fetch(pathname, { method: 'POST' }), `/api/v1/${leak}`);
      await held.arrived(leak);
    }

    const requests = await Promise.all(leaks.map(async (leak) => (await held.peek(leak)).request()));

    const next = await openTab(live.browser);
    try {
      // Each dropped call has ended in the browser with no answer (one let through would have the
      // server's); then one that does reach the server, to be sure its log is written up to now.
      expect(await Promise.all(requests.map((request) => request.response()))).toEqual(leaks.map(() => null));
      await fetch(`${baseUrl}/api/v1/after-${id}`);
      await until(() => reached(`after-${id}`));
      expect(leaks.filter(reached)).toEqual([]);
    } finally {
      await next.close();
    }
  });
});
