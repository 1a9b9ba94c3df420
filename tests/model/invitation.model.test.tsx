import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import { invitationMachine } from '../../machines/invitation/invitation.machine';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import InvitePage, { InvitationChart } from '../../src/pages/InvitePage';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fakeApi';
import { HeldActorCalls, renderPage } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { ARRIVALS, invitationCoverage, invitationPaths, invitationViews } from './invitation.paths';

/**
 * Model-based tests of the invitation chart: `xstate/graph` yields the shortest path to every
 * transition from each way of arriving (invitation.paths.ts); each path is replayed on the real
 * page in jsdom, the preview and acceptance held until the path says how they end, and in every
 * state the page must show what the chart holds for the person standing there.
 * tests/paths replays the same paths in Chromium.
 */

const t = messages.invitation;

describeChartPaths('invitation chart, generated paths', 'invitation', { coverage: invitationCoverage, paths: invitationPaths }, async ({ arrival, path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const tokens: string[] = [];
  const machine = invitationMachine.provide({
    actors: {
      preview: calls.actor('preview', ({ token }: { token: string }) => tokens.push(token)),
      accept: calls.actor('accept', ({ token }: { token: string }) => tokens.push(token)),
    } as never,
  });
  const email = ARRIVALS[arrival];
  const auth = authMachine.provide({
    guards: { hasStoredToken: () => email !== null },
    actors: { fetchUser: fromPromise(async () => ({ ...ada, email: email ?? ada.email })) },
  });
  const { unmount, router } = renderPage(
    '/invite/:token',
    auth,
    <InvitationChart.Logic.Provider value={machine}>
      <InvitePage />
    </InvitationChart.Logic.Provider>,
    '/invite/model-token',
  );
  const browser = userEvent.setup();
  const settle = (name: string) => async ({ event }: { event: ActorOutcome }) => {
    await calls.settle(name, event);
    // Every call is about the token in the address.
    expect(new Set(tokens)).toEqual(new Set(['model-token']));
  };
  try {
    await path.test({
      states: {
        ...inJsdom(invitationViews(arrival)),
        // The page (and, here, the toasts rendered with it) gives way to the team page.
        joined: async () => waitFor(() => expect(router.state.location.pathname).toBe('/team')),
      },
      events: {
        'xstate.done.actor.preview': settle('preview'),
        'xstate.error.actor.preview': settle('preview'),
        'xstate.done.actor.accept': settle('accept'),
        'xstate.error.actor.accept': settle('accept'),
        'invitation.accept': async () => browser.click(screen.getByRole('button', { name: t.accept })),
        'invitation.retry': async () => browser.click(screen.getByRole('button', { name: t.retry })),
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
