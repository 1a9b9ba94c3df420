import { startEarlyCall, startEarlyCallsAfter } from '../machines/shared/earlyCalls';
import type { TeamRole } from '../machines/shared/api';
import type { MyTeam } from '../contract/teams';
import { readRuntimeConfig } from '../machines/shared/runtimeConfig';
import { tokenStorage } from '../machines/shared/tokenStorage';
import type { DRAWN_FROM_EARLY_CALLS } from '../contract/appPaths';
import { LOAD_PATHS } from '../machines/shared/loadPaths';
import { analyticsPath, FIRST_PRESET, presetRange, utcThisMonth, utcToday } from '../machines/usage/usage.range';
import { teamPaths } from '../machines/team/team.calls';

/**
 * What the team chart asks once `GET /teams/me` has answered the person's role (machines/team/team.calls.ts),
 * sent at once for the role last answered (machines/shared/tokenStorage.ts): a member is asked no
 * admin's call, which would be refused. On a first visit in this browser (no role stored), or when
 * the role answered is another, the answered role's calls follow as soon as the answer is in
 * (`startEarlyCallsAfter`), still while the app's code loads; the early calls the chart does not
 * take go unused.
 */
function teamCalls(role: TeamRole | null): string[] {
  return role ? Object.values(teamPaths(role, utcThisMonth())) : [];
}

interface PageCalls {
  /** What the page's charts ask first besides the session check, sent at once. */
  first: () => string[];
  /**
   * What they ask once one of those has answered, sent as soon as that answer is in
   * (`startEarlyCallsAfter`): the team page's calls for the answered role, on a first visit.
   */
  then?: { after: string; next: (body: unknown) => string[] };
}

/**
 * What each signed-in page asks first besides the session check (`GET /users/me`), exactly as its
 * charts ask it (machines/shared/loadPaths.ts), once for each time they do:
 * tests/e2e/firstCalls.test.ts fails when a page's first call is not among them.
 */
const PAGE_CALLS: Record<(typeof DRAWN_FROM_EARLY_CALLS)[number] | '/link', PageCalls> = {
  '/dashboard': { first: () => [LOAD_PATHS.usage, LOAD_PATHS.subscription, LOAD_PATHS.dailyUsage] },
  '/subscription': { first: () => [LOAD_PATHS.subscription] },
  '/profile': { first: () => [LOAD_PATHS.sessions, LOAD_PATHS.apiKeys, LOAD_PATHS.subscription, LOAD_PATHS.secondFactors, LOAD_PATHS.passkeys] },
  '/team': {
    first: () => [LOAD_PATHS.team, ...teamCalls(tokenStorage.readTeamRole())],
    then: { after: LOAD_PATHS.team, next: (mine) => teamCalls((mine as MyTeam).role) },
  },
  '/usage': { first: () => [analyticsPath(presetRange(FIRST_PRESET, utcToday()))] },
  // The functions chart asks the person's team role beside the list.
  '/functions': { first: () => [LOAD_PATHS.functions, LOAD_PATHS.me] },
  '/guide': { first: () => [] },
  '/link': { first: () => [] },
};

/**
 * Has a worker load the locale's date and number data (src/lib/localeData.worker.ts). The first Intl
 * formatter made in a renderer lists the locales the browser has and reads the locale's data: 120
 * to 170 ms of a phone's main thread (Chromium at 4x CPU), a long task even on its own. That data is
 * the renderer's, not the thread's: once a worker of the page has made the same formatters, the
 * page's own first ones take 1 to 5 ms. Without workers, the first render loads it, as before.
 */
function loadLocaleDataAside(): void {
  if (typeof Worker === 'undefined') return;
  try {
    new Worker(new URL('./lib/localeData.worker.ts', import.meta.url), { name: 'locale-data' });
  } catch {
    // A policy that refuses workers: the page's first formatter loads the data itself.
  }
}

/** The pages whose first render writes a date or a number in the user's locale (src/lib/formats.ts). */
const FORMATS_AT_ONCE = ['/dashboard', '/subscription', '/profile', '/team', '/usage'];

// The app's own page (not a prerendered one) runs this inline, right after the color mode
// (build/webBuildPlugin.ts): on a signed-in page with a stored session, the page's session check
// and first data calls go out now, while the app's code loads (machines/shared/earlyCalls.ts).
// Each in a task of its own, right after the parser's: a fetch takes a slow phone 5 to 12 ms to
// send, and run inline they made the parse of the page's head one of its longest tasks.
const page = (PAGE_CALLS as Record<string, PageCalls | undefined>)[location.pathname];
const { accessToken } = tokenStorage.read();
if (page && accessToken) {
  const api = `${readRuntimeConfig().apiBase}/api/v1`;
  for (const path of [LOAD_PATHS.me, ...page.first()]) setTimeout(() => startEarlyCall(`${api}${path}`, accessToken), 0);
  const { then } = page;
  if (then) setTimeout(() => startEarlyCallsAfter(`${api}${then.after}`, accessToken, (body) => then.next(body).map((path) => `${api}${path}`)), 0);
  // Then, while the calls and the app's code are on their way, the dates' and numbers' locale data:
  // only where the page would otherwise load it in its first render (src/lib/formats.ts).
  if (FORMATS_AT_ONCE.includes(location.pathname)) setTimeout(loadLocaleDataAside, 0);
}
