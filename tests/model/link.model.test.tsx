import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import type { CodeInput } from '../../machines/link/link.actors';
import { linkMachine, type LinkEvent } from '../../machines/link/link.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../machines/shared/api';
import LinkPage, { LinkChart } from '../../src/pages/LinkPage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fakeApi';
import { HeldActorCalls, pasteInto, renderPage } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { CODE, grant, linkCoverage, linkPaths, linkViews } from './link.paths';

/**
 * Model-based tests of the /link chart: `xstate/graph` yields the shortest path to every
 * transition from each way of arriving (link.paths.ts); each path is replayed on the real page in
 * jsdom, the approval calls held until the path says how they end, and in every state the page
 * must show what the chart holds.
 */

const t = messages.link;

/** The real page at `address` with the chart's calls held (and what each was sent: the code and the link's key). */
function renderLinkPage(address: string, signedIn: boolean) {
  localStorage.clear();
  const calls = new HeldActorCalls();
  const sent: Array<[string, string, string | null]> = [];
  const held = (name: 'lookUp' | 'approve' | 'deny') => calls.actor<unknown, CodeInput>(name, (input) => sent.push([name, input.code, input.linkKey]));
  const machine = linkMachine.provide({ actors: { lookUp: held('lookUp'), approve: held('approve'), deny: held('deny') } as never });
  const auth = authMachine.provide({ guards: { hasStoredToken: () => signedIn }, actors: { fetchUser: fromPromise(async () => ada) } });
  const { unmount } = renderPage(
    '/link',
    auth,
    <LinkChart.Logic.Provider value={machine}>
      <LinkPage />
    </LinkChart.Logic.Provider>,
    address,
  );
  return { calls, sent, unmount };
}

describeChartPaths('link chart, generated paths', 'link', { coverage: linkCoverage, paths: linkPaths }, async ({ arrival, path }) => {
  const { calls, unmount } = renderLinkPage(arrival === 'signedIn' ? '/link' : `/link?code=${CODE}`, arrival !== 'signedOut');
  const browser = userEvent.setup();
  const settle = (name: string) => ({ event }: { event: ActorOutcome }) => calls.settle(name, event);
  try {
    await path.test({
      states: inJsdom(linkViews),
      events: {
        ...outcomeHandlers(['lookUp', 'approve', 'deny'], settle),
        'code.change': async ({ event }) => {
          const field = screen.getByLabelText(t.codeLabel);
          await pasteInto(browser, field, (event as Extract<LinkEvent, { type: 'code.change' }>).code);
        },
        'code.submit': async () => browser.click(screen.getByRole('button', { name: t.continue })),
        'code.reenter': async () => browser.click(screen.getByRole('button', { name: t.otherCode })),
        'link.approve': async () => browser.click(screen.getByRole('button', { name: t.approve })),
        'link.deny': async () => browser.click(screen.getByRole('button', { name: t.deny })),
      },
    });
  } finally {
    unmount();
  }
}, 20_000);

describe('link page, from the add-on’s link', () => {
  it('sends the link’s key with its code until another code is typed, and says which account approves and what the device reported', async () => {
    const { calls, sent, unmount } = renderLinkPage(`/link?code=${CODE}&key=the-link-key`, true);
    const browser = userEvent.setup();
    try {
      await calls.settle('lookUp', { type: 'xstate.done.actor.lookUp', output: grant });
      expect(await screen.findByText(t.approvesAs(ada.email))).toBeInTheDocument();
      expect(screen.getByText(`reported as “${grant.user_agent}” (the device’s own words, not checked)`)).toBeInTheDocument();
      expect(screen.queryByText(grant.user_agent!)).not.toBeInTheDocument();
      await browser.click(screen.getByRole('button', { name: t.approve }));
      await calls.settle('approve', { type: 'xstate.error.actor.approve', error: new ApiRequestError('API Error: 410', 410, 'user_code_expired', 'user_code_expired') });
      await browser.click(await screen.findByRole('button', { name: t.otherCode }));
      await pasteInto(browser, screen.getByLabelText(t.codeLabel), CODE);
      await browser.click(screen.getByRole('button', { name: t.continue }));
      await waitFor(() => expect(sent).toHaveLength(3));
      expect(sent).toEqual([
        ['lookUp', CODE, 'the-link-key'],
        ['approve', CODE, 'the-link-key'],
        // Typed by the person: no longer the link's code, whatever it reads.
        ['lookUp', CODE, null],
      ]);
    } finally {
      unmount();
    }
  });
});
