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

/** The console line `reportCardsFilled` writes in the page, with the time. */
const FILLED = 'sheetmind-bench: cards filled at ';

/**
 * Runs in the page from its start (an init script): looks at every frame, and writes on the
 * console the time of the first frame that has the cards filled. Not Playwright's
 * `waitForFunction`: its injected script (some 500 KB) is compiled on the page's main thread as the
 * page starts, about 90 ms at 4x CPU in traces, and held the page's own scripts and early calls
 * back that long. Source text rather than a function: tsx's transform names inner functions with
 * a helper the page lacks.
 */
const reportCardsFilled = (titles: string[]) => `
  if (location.pathname.startsWith('/dashboard')) {
    const titles = ${JSON.stringify(titles)};
    const look = () => {
      const cards = [...document.querySelectorAll('section[aria-labelledby]')].filter((card) =>
        titles.includes(document.getElementById(card.getAttribute('aria-labelledby'))?.textContent ?? ''));
      const shown = cards.filter((card) => card.getAttribute('aria-busy') !== 'true' && /\\d/.test(card.textContent ?? ''));
      if (cards.length === titles.length && shown.length === titles.length) console.debug(${JSON.stringify(FILLED)} + performance.now());
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  }`;

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
        await page.addInitScript(reportCardsFilled([t.monthlyQueries, t.dailyTokens, t.overviewTitle]));
        const filled = new Promise<number>((resolve) =>
          page.on('console', (message) => {
            if (message.text().startsWith(FILLED)) resolve(Number(message.text().slice(FILLED.length)));
          }),
        );
        await page.goto(`${baseUrl}/dashboard`, { waitUntil: 'commit' });
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the dashboard’s cards did not fill within 60 s')), 60_000)));
        try {
          times.push(await Promise.race([filled, late]));
        } finally {
          clearTimeout(timer);
        }
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
