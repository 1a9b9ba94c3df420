import * as messages from '../../src/content/messages';
import { launchBrowser } from '../helpers/browser';
import { openContext, storedTokens } from '../helpers/browserPaths';
import { signedIn, type BenchOwner } from './webTeam';

/**
 * Issue #40's second figure: how long after navigation starts the dashboard's usage cards show
 * their numbers, in Chromium with its CPU slowed 4x (no network throttling), for the signed-in
 * Team owner, in a new browser context each run (empty HTTP cache, the session in local storage).
 * "Filled": the Monthly Queries, Daily Tokens and Usage Overview cards are no longer busy and show
 * a number besides their title (DashboardPage's `DashCard`s: `aria-busy` while their part loads).
 */

const t = messages.dashboard;
export const CARDS_GOAL_MS = 1000;

export async function dashboardCardsFilledMs(baseUrl: string, owner: BenchOwner, runs: number): Promise<number[]> {
  const browser = await launchBrowser();
  const times: number[] = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      const session = await signedIn(baseUrl, owner);
      const { context, page } = await openContext(browser, storedTokens(session.tokens));
      try {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        await page.goto(`${baseUrl}/dashboard`, { waitUntil: 'commit' });
        // Checked at every frame: the time is that of the first frame that has the numbers.
        const filled = await page.waitForFunction(
          (titles: string[]) => {
            const cards = [...document.querySelectorAll('section[aria-labelledby]')].filter((card) =>
              titles.includes(document.getElementById(card.getAttribute('aria-labelledby')!)?.textContent ?? ''),
            );
            const shown = cards.filter((card) => card.getAttribute('aria-busy') !== 'true' && /\d/.test(card.textContent ?? ''));
            return cards.length === titles.length && shown.length === titles.length && performance.now();
          },
          [t.monthlyQueries, t.dailyTokens, t.overviewTitle],
          { polling: 'raf', timeout: 60_000 },
        );
        times.push(Number(await filled.jsonValue()));
      } finally {
        await context.close();
        await session.signOut();
      }
    }
  } finally {
    await browser.close();
  }
  return times;
}
