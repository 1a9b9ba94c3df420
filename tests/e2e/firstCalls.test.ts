import type { Page } from 'playwright-core';
import * as messages from '../../src/content/messages';
import { trackCalls, useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, makeTeam, openContext, signUp, storedTokens, type LiveAccount } from '../helpers/browserPaths';

/**
 * A signed-in page on its first load asks for its data while the app's code is still loading: the
 * session check and the page's first calls start from the page's first script (src/firstCalls.ts),
 * in parallel, and the charts take those answers instead of asking again (issue 40). Here each
 * signed-in page, loaded afresh by a Team owner (whose every page has data), must have started its
 * first calls, each once, before the app's main script had arrived, and none of them again once it had.
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
let owner: LiveAccount;

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  owner = await signUp(api, 'Katherine Johnson');
  await makeTeam(api, live.server.dataDir, owner);
});

interface Timing {
  name: string;
  startTime: number;
  responseEnd: number;
}

/** The page's resources so far: each one's address (path and query), when it started and when it had arrived. */
const timings = (page: Page): Promise<Timing[]> =>
  page.evaluate(() =>
    performance.getEntriesByType('resource').map((entry) => {
      const url = new URL(entry.name);
      return { name: `${url.pathname}${url.search}`, startTime: entry.startTime, responseEnd: (entry as PerformanceResourceTiming).responseEnd };
    }),
  );

/** Each page's first calls (its charts' calls that wait on no other answer), as many times as they ask each. */
const FIRST: Record<string, string[]> = {
  '/dashboard': ['/users/me', '/query/usage', '/subscription/me', '/query/usage/daily'],
  '/subscription': ['/users/me', '/subscription/me'],
  '/profile': ['/users/me', '/sessions', '/api-keys', '/subscription/me'],
  // The members, invitations, usage and audit log follow: which of them depends on the role it answers.
  '/team': ['/users/me', '/teams/me'],
  '/usage': ['/users/me', '/usage/analytics?'],
  // The functions chart asks the role beside the list: a second session check.
  '/functions': ['/users/me', '/functions', '/users/me'],
  '/guide': ['/users/me'],
  '/link': ['/users/me'],
};

describe('a signed-in page’s first calls', () => {
  it.each(Object.keys(FIRST))('%s starts them all before the app’s code has loaded, and none again after', async (path) => {
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      const watch = await watchPage(page);
      const calls = trackCalls(page);
      await page.goto(`${live.server.baseUrl}${path}`);
      // The page is drawn, signed in, and nothing it asked is still on its way.
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('banner').getByRole('link', { name: messages.layout.dashboard }).first().waitFor();
      await calls.settled();
      const loaded = await timings(page);
      const app = loaded.find((entry) => /^\/assets\/main\.\w+\.js$/.test(entry.name));
      expect(app).toBeDefined();
      // The app's deferred scripts have run by DOMContentLoaded, and it starts its charts in tasks
      // after it: a call a chart makes itself starts later. (Its script's arrival is no line: the
      // browser's look-ahead may fetch it while the first inline script still runs.)
      const appRan = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventStart);
      const asked = (first: string) => loaded.filter((entry) => entry.name === `/api/v1${first}` || (first.endsWith('?') && entry.name.startsWith(`/api/v1${first}`)));
      for (const first of new Set(FIRST[path])) {
        const early = asked(first).filter((entry) => entry.startTime < appRan).length;
        const late = asked(first).length - early;
        // Sent once, before the app's code arrived, however many of the page's charts ask for it.
        expect({ path, call: first, early, late, appRan, api: loaded.filter((entry) => entry.name.startsWith('/api/')) }).toMatchObject({ path, call: first, early: 1, late: 0 });
      }
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
