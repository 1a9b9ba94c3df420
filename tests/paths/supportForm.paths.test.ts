import type { EventObject } from 'xstate';
import { DRAFT_KEY, supportMailto } from '../../machines/supportForm/supportForm.actors';
import type { SupportFormEvent } from '../../machines/supportForm/supportForm.machine';
import * as messages from '../../src/content/messages';
import { apiClient, openTab, storedTokens, useServerAndPathsBrowser } from '../helpers/browserPaths';
import { describeChartPaths } from '../helpers/chartModel';
import { labelled } from '../helpers/sights';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import { SUPPORT_MAIL } from '../helpers/words';
import {
  focusAfterSubmit,
  savedDraft,
  SUPPORT_EMAIL,
  SUPPORT_LABELS,
  supportCoverage,
  supportOutcomes,
  supportPaths,
  supportUser,
  supportViews,
  type SupportSnapshot,
} from '../model/supportForm.paths';

/**
 * The support-form chart's generated paths (tests/model/supportForm.paths.ts) replayed in Chromium
 * on the real support page served by the real server, one test per path. The draft the page
 * restores is put in local storage before it opens (an empty one, a saved one, a corrupt one);
 * signed-in paths use a real account with the model user's email. Submitting hands a mail link to
 * the browser; the test records it instead of starting a mail program, and makes that hand-over
 * fail where the path says so.
 */

jest.setTimeout(60_000);

const live = useServerAndPathsBrowser();
const t = messages.support;
const password = 'Analytical-Engine-1843';
let userId = '';
/** The signed-in paths' session (no path ends it, and the file takes far less than its 15 minutes). */
let session: Record<string, string> = {};

beforeAll(async () => {
  const registered = await apiClient(live.server.baseUrl).register({ email: supportUser.email, full_name: supportUser.full_name, username: 'ada', password });
  userId = registered.user.id;
  session = storedTokens(registered);
});

/** What local storage holds when the page opens, for the path's first step (the draft it restores). */
function draftFor(first: EventObject | undefined): Record<string, string> {
  if (first === supportOutcomes.draftRestored) return { [DRAFT_KEY]: JSON.stringify(savedDraft) };
  if (first === supportOutcomes.draftCorrupt) return { [DRAFT_KEY]: '{"title": "Broken' };
  return {};
}

/**
 * Stands in for the mail program: records every mail link the page hands over, keeps the browser
 * from opening it, and throws (as the hand-over can) once `__mailFails` is set.
 */
function recordMailLinks(): void {
  const page = window as unknown as { __mailLinks: string[]; __mailFails: boolean };
  page.__mailLinks = [];
  page.__mailFails = false;
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    if (this.href.startsWith('mailto:')) {
      page.__mailLinks.push(this.href);
      if (page.__mailFails) throw new Error('no mail program');
    }
    click.call(this);
  };
  document.addEventListener('click', (event) => (event.target as Element).closest?.('a[href^="mailto:"]') && event.preventDefault(), true);
}

/** A mail link as its parts (`+` is a plus in a mailto query, not a space). */
function mailParts(link: string) {
  const url = new URL(link);
  const params = new URLSearchParams(url.search.replace(/\+/g, '%2B'));
  return { to: url.pathname, subject: params.get('subject'), body: params.get('body') };
}

describeChartPaths('support-form chart, generated paths, in Chromium against the real server', 'support-form', { coverage: supportCoverage, paths: supportPaths }, async ({ path, signedIn }) => {
  const { baseUrl } = live.server;
  const { page, close } = await openTab(live.browser, { ...(signedIn ? session : {}), ...draftFor(path.steps[1]?.event) });
  try {
    await page.addInitScript(recordMailLinks);
    const field = (name: keyof typeof SUPPORT_LABELS) => page.getByLabel(labelled(SUPPORT_LABELS[name]));
    const nextEvent = (step: { event: EventObject }) => path.steps[path.steps.findIndex((s) => s === step) + 1]?.event;
    const opened = () => page.evaluate(() => (window as unknown as { __mailLinks: string[] }).__mailLinks);

    await page.goto(`${baseUrl}/support`);
    await path.test({
      states: {
        ...inBrowser(page, supportViews),
        // Handing the link to the mail program takes no time in a real browser: the busy button
        // never paints. What the state does is what the user gets: the mail, with the chart's values.
        submitting: async (state) => {
          const { values, user } = (state as SupportSnapshot).context;
          const expected = supportMailto({ values, submitter: user && { id: userId, full_name: user.full_name }, supportEmail: SUPPORT_EMAIL, mail: SUPPORT_MAIL });
          const links = await opened();
          expect(links.length).toBeGreaterThan(0);
          expect(mailParts(links.at(-1)!)).toEqual(mailParts(expected));
        },
      },
      events: {
        // The draft was read when the page opened, from what the path put in local storage.
        'xstate.done.actor.loadDraft': async () => undefined,
        'xstate.error.actor.loadDraft': async () => undefined,
        'xstate.done.actor.submit': () => seesInBrowser(page, [{ text: t.submittedText }]),
        'xstate.error.actor.submit': () => seesInBrowser(page, [{ text: t.failedText }]),
        'draft.change': async ({ event }) => {
          const { field: name, value } = event as Extract<SupportFormEvent, { type: 'draft.change' }>;
          await field(name).fill(value);
        },
        'form.submit': async (step) => {
          if (signedIn) {
            if (nextEvent(step) === supportOutcomes.mailFailed) await page.evaluate(() => ((window as unknown as { __mailFails: boolean }).__mailFails = true));
            await page.getByRole('button', { name: t.submit, exact: true }).click();
            await seesInBrowser(page, focusAfterSubmit(step.state as SupportSnapshot));
          } else {
            // The button is disabled for visitors; Enter in a field still says why nothing was sent.
            await field('title').press('Enter');
            await seesInBrowser(page, [{ text: t.authRequiredText }]);
          }
        },
      },
    });
  } finally {
    await close();
  }
});
