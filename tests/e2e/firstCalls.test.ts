import type { Page } from 'playwright-core';
import { readManifest } from '../../build/manifest';
import { isDrawnFromEarlyCalls } from '../../contract/appPaths';
import * as messages from '../../src/content/messages';
import { trackCalls, useServerAndBrowser, watchPage } from '../helpers/browser';
import { apiClient, inviteInto, makeTeam, openContext, signUp, storedTokens, type LiveAccount } from '../helpers/browserPaths';

/**
 * A signed-in page on its first load asks for its data while the app's code is still loading: the
 * session check and the page's first calls start from the page's first script (src/firstCalls.ts),
 * in parallel, and the charts take those answers instead of asking again (issue 40). Here each
 * signed-in page, loaded afresh by a Team owner (whose every page has data), must have started its
 * first calls, each once, before the app's main script had arrived, and none of them again once it had.
 * The team page's further calls depend on the person's role: someone who has been signed in before
 * has them sent with the first ones too, for the role the last answer gave, and nothing more.
 * So do the scripts that draw the page: the page's HTML names them beside the app's own
 * (build/prerender.ts, `pageShells`), so none waits for the app's code to ask for it. The API
 * client's come after the page is drawn where its first render needs no call but the early ones,
 * and with the page's own where it calls at once (/link).
 */

jest.setTimeout(120_000);

const live = useServerAndBrowser();
let owner: LiveAccount;
let member: LiveAccount;

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  owner = await signUp(api, 'Katherine Johnson');
  member = await signUp(api, 'Dorothy Vaughan');
  await makeTeam(api, live.server.dataDir, owner);
  await inviteInto(api, live.server.dataDir, owner.tokens.access_token, member);
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
  // The second factors' and the passkeys' sections ask theirs as the page is drawn too.
  '/profile': ['/users/me', '/sessions', '/api-keys', '/subscription/me', '/mfa', '/webauthn/credentials'],
  // Loaded first in this browser: the members, invitations, usage and audit log follow the team's
  // answer, which of them depending on the role it gives (src/firstCalls.ts).
  '/team': ['/users/me', '/teams/me'],
  '/usage': ['/users/me', '/usage/analytics?'],
  // The functions chart asks the role beside the list: a second session check.
  '/functions': ['/users/me', '/functions', '/users/me'],
  '/guide': ['/users/me'],
  '/link': ['/users/me'],
};

/** The team page's first calls for someone signed in before, by the role they had then. */
const TEAM_FIRST = {
  owner: ['/users/me', '/teams/me', '/teams/me/members', '/teams/me/invitations', '/teams/me/usage?', '/teams/me/audit-log'],
  member: ['/users/me', '/teams/me', '/teams/me/members'],
};
/** What only an owner or admin may ask: a member who did would get 403s (and the browser's console errors). */
const ADMIN_ONLY = ['/teams/me/invitations', '/teams/me/usage?', '/teams/me/audit-log'];

/** Loads `path` afresh and waits until it is drawn, signed in, and nothing it asked is still on its way. */
async function load(page: Page, calls: ReturnType<typeof trackCalls>, path: string): Promise<void> {
  await page.goto(`${live.server.baseUrl}${path}`);
  await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
  await page.getByRole('banner').getByRole('link', { name: messages.layout.dashboard }).first().waitFor();
  await calls.settled();
}

/** When the app's deferred scripts had run: DOMContentLoaded, on the page's clock. */
const appRanAt = (page: Page): Promise<number> =>
  page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventStart);

/** Fails unless each of `first` started once before the app's code ran, and none of them again after it. */
async function expectAskedEarly(page: Page, path: string, first: string[]): Promise<Timing[]> {
  const loaded = await timings(page);
  const app = loaded.find((entry) => /^\/assets\/main\.\w+\.js$/.test(entry.name));
  expect(app).toBeDefined();
  // The app's deferred scripts have run by DOMContentLoaded, and it starts its charts in tasks
  // after it: a call a chart makes itself starts later. (Its script's arrival is no line: the
  // browser's look-ahead may fetch it while the first inline script still runs.)
  const appRan = await appRanAt(page);
  for (const call of new Set(first)) {
    const early = asked(loaded, call).filter((entry) => entry.startTime < appRan).length;
    const late = asked(loaded, call).length - early;
    // Sent once, before the app's code arrived, however many of the page's charts ask for it.
    expect({ path, call, early, late, appRan, api: loaded.filter((entry) => entry.name.startsWith('/api/')) }).toMatchObject({ path, call, early: 1, late: 0 });
  }
  // And the page asked nothing else once its code had run (a section whose call is missing from
  // src/firstCalls.ts would ask it in a second wave), but what depends on an answer: the team's
  // calls for a role not known before the load.
  const dependent = path === '/team' ? TEAM_FIRST.owner : [];
  const later = loaded.filter((entry) => entry.name.startsWith('/api/') && entry.startTime >= appRan && !dependent.some((call) => isCall(entry.name, call)));
  expect({ path, later: later.map((entry) => entry.name) }).toEqual({ path, later: [] });
  return loaded;
}

/**
 * Fails unless the page's own scripts started before the app's code ran, and the API client's then
 * too where the page calls at once itself. A page drawn from its early calls' answers
 * (DRAWN_FROM_EARLY_CALLS) must not name the client's scripts at all: when its answers are in
 * before the app starts, the client comes after the page is drawn (`expectClientAfterFirstPaint`);
 * when one is not (a slow answer, the team's calls for a role not known yet), the chart asks it,
 * and the client comes with that call.
 */
async function expectScriptsNamed(page: Page, path: string, loaded: Timing[]): Promise<void> {
  const manifest = readManifest();
  const appRan = await appRanAt(page);
  for (const file of manifest.chunks[`page-${path.slice(1)}`]!) {
    const script = loaded.find((entry) => entry.name === `/${file}`);
    expect({ path, file, started: script && script.startTime < appRan }).toEqual({ path, file, started: true });
  }
  const html = isDrawnFromEarlyCalls(path) ? await (await fetch(`${live.server.baseUrl}${path}`)).text() : null;
  for (const file of manifest.calls) {
    if (html !== null) {
      expect({ path, file, named: html.includes(file) }).toEqual({ path, file, named: false });
    } else {
      const script = loaded.find((entry) => entry.name === `/${file}`);
      expect({ path, file, started: (script?.startTime ?? Infinity) < appRan }).toEqual({ path, file, started: true });
    }
  }
}

/** Fails unless each of the API client's scripts was fetched, and only after the page's first contentful paint. */
async function expectClientAfterFirstPaint(page: Page, path: string): Promise<void> {
  const files = readManifest().calls;
  for (const file of files) {
    await page.waitForFunction((name) => performance.getEntriesByType('resource').some((entry) => new URL(entry.name).pathname === name), `/${file}`);
  }
  const [loaded, painted] = await Promise.all([timings(page), firstContentfulPaint(page)]);
  for (const file of files) {
    const started = loaded.find((entry) => entry.name === `/${file}`)!.startTime;
    expect({ path, file, afterFirstPaint: started > painted }).toEqual({ path, file, afterFirstPaint: true });
  }
}

/** When the page first painted content, on the page's clock. */
const firstContentfulPaint = (page: Page): Promise<number> =>
  page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity);

/** Whether `name` (a path and query) is a call to `call` (a path, or the start of one with a query when it ends with `?`). */
const isCall = (name: string, call: string) => name === `/api/v1${call}` || (call.endsWith('?') && name.startsWith(`/api/v1${call}`));

/** The page's calls to `call`. */
const asked = (loaded: Timing[], call: string) => loaded.filter((entry) => isCall(entry.name, call));

describe('a signed-in page’s first calls', () => {
  it.each(Object.keys(FIRST))('%s starts them all, and fetches its scripts, before the app’s code has loaded, and asks none again after', async (path) => {
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      const watch = await watchPage(page);
      const calls = trackCalls(page);
      await load(page, calls, path);
      const loaded = await expectAskedEarly(page, path, FIRST[path]!);
      await expectScriptsNamed(page, path, loaded);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the team page’s calls that depend on the role', () => {
  it('start with its first calls for an owner signed in before: members, invitations, usage and audit log, each once', async () => {
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      const watch = await watchPage(page);
      const calls = trackCalls(page);
      await load(page, calls, '/dashboard');
      await load(page, calls, '/team');
      await expectAskedEarly(page, '/team', TEAM_FIRST.owner);
      // What those answers hold is on the page, as the team chart would have drawn it.
      const main = page.getByRole('main');
      await main.getByRole('heading', { level: 2, name: messages.team.usageHeading }).waitFor();
      await main.getByRole('heading', { level: 2, name: messages.team.auditHeading }).waitFor();
      await main.getByText('Dorothy Vaughan').first().waitFor();
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('start for a plain member signed in before with the members only: no call an admin alone may make', async () => {
    const { context, page } = await openContext(live.browser, storedTokens(member.tokens));
    try {
      const watch = await watchPage(page);
      const calls = trackCalls(page);
      await load(page, calls, '/dashboard');
      await load(page, calls, '/team');
      const loaded = await expectAskedEarly(page, '/team', TEAM_FIRST.member);
      expect(ADMIN_ONLY.flatMap((call) => asked(loaded, call))).toEqual([]);
      const main = page.getByRole('main');
      await main.getByRole('heading', { level: 2, name: messages.team.membersHeading }).waitFor();
      await main.getByText('Katherine Johnson').first().waitFor();
      await expect(main.getByRole('heading', { level: 2, name: messages.team.usageHeading }).count()).resolves.toBe(0);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the locale’s date and number data', () => {
  // The worker starts in a task queued by the first script, as the early calls do. Whether that
  // task runs before the app's deferred scripts is the browser's choice: a check that it started
  // before them failed in one CI run, so it is not asserted.
  it('is loaded by a worker of the page, which ends by itself, on a page that formats dates and numbers at once; not on one that does not', async () => {
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      const watch = await watchPage(page);
      const workers: Array<{ url: string; closed: boolean }> = [];
      page.on('worker', (worker) => {
        const seen = { url: new URL(worker.url()).pathname, closed: false };
        workers.push(seen);
        worker.on('close', () => (seen.closed = true));
      });
      const calls = trackCalls(page);
      await load(page, calls, '/profile');
      // It ends by itself once the data is loaded (the page's thread then finds it there).
      for (let waited = 0; waited < 5_000 && !workers.every((worker) => worker.closed); waited += 100) await page.waitForTimeout(100);
      expect(workers).toEqual([{ url: expect.stringMatching(/^\/assets\/locale-data\.\w+\.js$/), closed: true }]);
      await load(page, calls, '/guide');
      expect(workers).toHaveLength(1);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/** The start of each largest-contentful-paint candidate the page reported so far, on the page's clock. */
const paints = (page: Page): Promise<number[]> =>
  page.evaluate(
    () =>
      new Promise<number[]>((resolve) => {
        new PerformanceObserver((entries, observer) => {
          observer.disconnect();
          resolve(entries.getEntries().map((entry) => entry.startTime));
        }).observe({ type: 'largest-contentful-paint', buffered: true });
      }),
  );

interface Commit {
  at: number;
  /** Components drawn again: their props or their hooks' state are not those they had at the last commit. */
  drawn: number;
  /** Whether the guard's spinner (or a page's, src/components/PageSpinner.tsx) is on the page. */
  spinner: boolean;
  /** How many of the cards named (the `cards` given) show their figures. */
  filled: number;
  /** How many of the `texts` given the page's main region shows. */
  shown: number;
  /** The top bar's account links, as drawn. */
  links: string[];
}

/**
 * Put in a page before its scripts: at each of React's commits, counts the components it drew again,
 * through the hook React DevTools use (React's production build calls it too), and notes whether
 * the guard's spinner is on the page, how many of the cards titled `cards` are filled and how many
 * of the `texts` are shown.
 */
function recordCommits({ cards: titles, texts, spinnerLabel }: { cards: string[]; texts: string[]; spinnerLabel: string }) {
  type Fiber = { tag: number; child: Fiber | null; sibling: Fiber | null; alternate: Fiber | null; memoizedProps: unknown; memoizedState: unknown };
  const last = new WeakMap<Fiber, { props: unknown; state: unknown }>();
  const commits: Commit[] = [];
  // Function components, forwardRef, memo and simple memo (React's work tags).
  const COMPONENTS = new Set([0, 11, 14, 15]);
  Object.assign(window, {
    commitsSeen: commits,
    __REACT_DEVTOOLS_GLOBAL_HOOK__: {
      supportsFiber: true,
      renderers: new Map(),
      inject: () => 1,
      checkDCE: () => undefined,
      onScheduleFiberRoot: () => undefined,
      onCommitFiberUnmount: () => undefined,
      onPostCommitFiberRoot: () => undefined,
      onCommitFiberRoot(_renderer: number, root: { current: Fiber }) {
        let drawn = 0;
        const stack = [root.current];
        for (let fiber = stack.pop(); fiber; fiber = stack.pop()) {
          if (COMPONENTS.has(fiber.tag)) {
            const before = last.get(fiber) ?? (fiber.alternate ? last.get(fiber.alternate) : undefined);
            if (!before || before.props !== fiber.memoizedProps || before.state !== fiber.memoizedState) drawn += 1;
            const now = { props: fiber.memoizedProps, state: fiber.memoizedState };
            last.set(fiber, now);
            if (fiber.alternate) last.set(fiber.alternate, now);
          }
          if (fiber.sibling) stack.push(fiber.sibling);
          if (fiber.child) stack.push(fiber.child);
        }
        const cards = [...document.querySelectorAll('section[aria-labelledby]')].filter((card) =>
          titles.includes(document.getElementById(card.getAttribute('aria-labelledby')!)?.textContent ?? ''),
        );
        const filled = cards.filter((card) => card.getAttribute('aria-busy') !== 'true' && /\d/.test(card.textContent ?? '')).length;
        const main = document.querySelector('main')?.textContent ?? '';
        const shown = texts.filter((text) => main.includes(text)).length;
        const links = [...document.querySelectorAll('header nav a')].map((link) => link.textContent ?? '');
        commits.push({ at: performance.now(), drawn, spinner: document.querySelector(`[role=status] [aria-label="${spinnerLabel}"]`) !== null, filled, shown, links });
      },
    },
  });
}

const commitsSeen = (page: Page): Promise<Commit[]> => page.evaluate(() => (window as unknown as { commitsSeen: Commit[] }).commitsSeen);

/**
 * The pages that start from their early answers, each with what its first render must show: the
 * cards filled (by title), or texts the answers hold. The team page is loaded after another page,
 * so that its calls for the owner's role go out with the first ones (TEAM_FIRST).
 */
const DRAWN_AT_ONCE: Record<string, { first: string[]; cards?: string[]; texts?: string[]; before?: string; path?: string }> = {
  '/dashboard': { first: FIRST['/dashboard']!, cards: [messages.dashboard.monthlyQueries, messages.dashboard.dailyTokens, messages.dashboard.overviewTitle] },
  '/team': { first: TEAM_FIRST.owner, texts: ['Dorothy Vaughan', messages.team.usageHeading, messages.team.auditHeading], before: '/dashboard' },
  // Loaded first in this browser, no role is known: the owner's calls follow the team's answer,
  // still while the app's code is held.
  '/team, first visit': { path: '/team', first: TEAM_FIRST.owner, texts: ['Dorothy Vaughan', messages.team.usageHeading, messages.team.auditHeading] },
  '/profile': { first: FIRST['/profile']!, texts: [messages.credentials.thisDevice, messages.credentials.noKeys, messages.security.off, messages.passkeys.none] },
};

describe('a signed-in page whose first answers are in before the app has booted', () => {
  it.each(Object.keys(DRAWN_AT_ONCE))('%s is drawn with its data in the app’s first render: no spinner, no placeholder, the top bar’s links as they stay, then the same page again; the API client comes after', async (path) => {
    const { first, cards = [], texts = [], before, path: address = path } = DRAWN_AT_ONCE[path]!;
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    try {
      if (before) await load(page, trackCalls(page), before);
      await page.addInitScript(recordCommits, { cards, texts, spinnerLabel: messages.loading });
      const watch = await watchPage(page);
      // The app's code is held until the page's early calls have all answered: as on a phone,
      // where the scripts take longer to come than the answers.
      const answered = new Set<string>();
      const allAnswered = new Promise<void>((resolve) =>
        page.on('requestfinished', (request) => {
          const url = new URL(request.url());
          answered.add(`${url.pathname}${url.search}`);
          if (first.every((call) => [...answered].some((name) => isCall(name, call)))) resolve();
        }),
      );
      await page.route(/\/assets\/main\.\w+\.js$/, async (route) => {
        // Not forever: a call that never goes out then shows as a spinner in the first commit.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([allAnswered, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
        clearTimeout(timer);
        await route.continue();
      });
      await page.goto(`${live.server.baseUrl}${address}`);
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      const commits = await commitsSeen(page);
      const firstCommit = { spinner: commits[0]?.spinner, filled: commits[0]?.filled, shown: commits[0]?.shown, links: commits[0]?.links };
      expect({ first: firstCommit, spinnerEver: commits.some((commit) => commit.spinner) }).toEqual({
        // A Team owner: the team page among the links from the start, a link added later moved the ones after it.
        first: { spinner: false, filled: cards.length, shown: texts.length, links: expect.arrayContaining([messages.layout.team]) },
        spinnerEver: false,
      });
      expect(new Set(commits.map((commit) => commit.links.join(' | ')))).toEqual(new Set([commits[0]!.links.join(' | ')]));
      // Drawn from its answers, the page needed no call of its own: the API client came after.
      await expectClientAfterFirstPaint(page, address);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/** Chunks that nothing a page first shows needs, by page, with what shows they still come. */
const LATER: Record<string, { chunks: RegExp[]; stillThere: (page: Page) => Promise<void> }> = {
  '/team': {
    chunks: [/^\/assets\/toaster\.\w+\.js$/, /^\/assets\/team-confirmation\.\w+\.js$/],
    async stillThere(page) {
      // The dialog asking before a removal opens, and Escape closes it.
      await page.getByRole('main').getByRole('button', { name: messages.team.remove, exact: false }).first().click();
      await page.getByRole('alertdialog').waitFor();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('alertdialog').count()).resolves.toBe(0);
    },
  },
  '/profile': {
    chunks: [/^\/assets\/toaster\.\w+\.js$/, /^\/assets\/webauthn\.\w+\.js$/],
    async stillThere(page) {
      await page.getByRole('main').getByRole('button', { name: messages.passkeys.add }).waitFor();
    },
  },
};

describe('code that nothing on a page needs at first', () => {
  it.each(Object.keys(LATER))('%s asks for it once the page has drawn its data, not while it loads, and does not draw the page again for it', async (path) => {
    const { chunks, stillThere } = LATER[path]!;
    const { context, page } = await openContext(live.browser, storedTokens(owner.tokens));
    await context.addInitScript(recordCommits, { cards: [], texts: [], spinnerLabel: messages.loading });
    try {
      const watch = await watchPage(page);
      const calls = trackCalls(page);
      await load(page, calls, '/dashboard');
      await load(page, calls, path);
      await page.waitForFunction(
        (patterns) => patterns.every((pattern) => performance.getEntriesByType('resource').some((entry) => new RegExp(pattern).test(new URL(entry.name).pathname))),
        chunks.map((pattern) => pattern.source),
      );
      const loaded = await timings(page);
      const lastPaint = Math.max(...(await paints(page)));
      const lastData = Math.max(...loaded.filter((entry) => entry.name.startsWith('/api/')).map((entry) => entry.responseEnd));
      for (const pattern of chunks) {
        const script = loaded.find((entry) => pattern.test(entry.name))!;
        expect({ script: script.name, afterPaint: script.startTime > lastPaint, afterData: script.startTime > lastData }).toEqual({ script: script.name, afterPaint: true, afterData: true });
      }
      // Nor is the page drawn again when they come, in one long task on a phone: only what mounts
      // them is (a few components; the page's own draw is some hundreds, which a state of the page
      // itself would draw again).
      const asked = Math.min(...chunks.map((pattern) => loaded.find((entry) => pattern.test(entry.name))!.startTime));
      const commits = await commitsSeen(page);
      const firstDraw = Math.max(...commits.filter((commit) => commit.at < asked).map((commit) => commit.drawn));
      const again = Math.max(0, ...commits.filter((commit) => commit.at >= asked).map((commit) => commit.drawn));
      expect({ page: firstDraw > 100, drawnAgain: again <= 25 ? 'a few' : again }).toEqual({ page: true, drawnAgain: 'a few' });
      // The toast region is there for the first toast, and what the page's chunk is for still works.
      await page.locator('[data-scope=toast][data-part=group]').waitFor({ state: 'attached' });
      await stillThere(page);
      expect(watch.consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
