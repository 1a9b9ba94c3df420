import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import { inviteFormMachine, type InviteFormEvent } from '../../machines/inviteForm/inviteForm.machine';
import { InviteForm, InviteFormChart } from '../../src/components/team/TeamInvitations';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import type { InvitedRole, TeamInvitation } from '../../machines/shared/api';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fakeApi';
import { HeldActorCalls, renderPage } from '../helpers/renderApp';
import { inJsdom, seesInJsdom } from '../helpers/sightsInJsdom';
import { inviteCoverage, invitePaths, inviteViews, sendingEnded, type InviteFormSnapshot } from './inviteForm.paths';

/**
 * Model-based tests of the invite-form chart: `xstate/graph` yields the shortest path to every
 * transition (inviteForm.paths.ts); each path is replayed on the real form in jsdom, the sending
 * call held until the path says how it ends, and in every state the form must show the chart's
 * values, problem and busy state. tests/paths replays the same paths in Chromium.
 */

const t = messages.team;

describeChartPaths('invite-form chart, generated paths', 'invite-form', { coverage: inviteCoverage, paths: invitePaths }, async ({ path }) => {
  toaster.remove();
  const calls = new HeldActorCalls();
  const sentAs: Array<{ email: string; role: InvitedRole }> = [];
  const machine = inviteFormMachine.provide({
    actors: { invite: calls.actor<TeamInvitation, { email: string; role: InvitedRole }>('invite', ({ email, role }) => sentAs.push({ email, role })) } as never,
  });
  const reloads = jest.fn();
  const auth = authMachine.provide({ guards: { hasStoredToken: () => true }, actors: { fetchUser: fromPromise(async () => ada) } });
  const { unmount } = renderPage(
    '/team',
    auth,
    <InviteFormChart.Logic.Provider value={machine}>
      <InviteForm onSent={reloads} seatsLeft={8} />
    </InviteFormChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const ended = async ({ event }: { event: ActorOutcome }) => {
    await calls.settle('invite', event);
    await seesInJsdom(sendingEnded(event));
    // A sent invitation has the page reload its seats and pending invitations.
    expect(reloads).toHaveBeenCalledTimes(event.type === 'xstate.done.actor.invite' ? 1 : 0);
    reloads.mockClear();
  };
  try {
    await path.test({
      states: {
        ...inJsdom(inviteViews),
        sending: async (state) => {
          const { context } = state as InviteFormSnapshot;
          await seesInJsdom(inviteViews.sending(state as InviteFormSnapshot));
          // What is sent is what the form holds (the chart trims; the server lowers the case).
          expect(sentAs.at(-1)).toEqual({ email: context.email, role: context.role });
        },
      },
      events: {
        'xstate.done.actor.invite': ended,
        'xstate.error.actor.invite': ended,
        'draft.email': async ({ event }) => {
          const field = screen.getByLabelText(t.inviteEmail);
          await browser.clear(field);
          const { value } = event as Extract<InviteFormEvent, { type: 'draft.email' }>;
          if (value) await browser.type(field, value);
        },
        'draft.role': async ({ event }) => {
          await browser.selectOptions(screen.getByLabelText(t.inviteRole), (event as Extract<InviteFormEvent, { type: 'draft.role' }>).value);
        },
        'form.submit': async () => browser.click(screen.getByRole('button', { name: t.inviteSubmit })),
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
