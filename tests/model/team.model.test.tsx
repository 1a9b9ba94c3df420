import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import type { TeamChange } from '../../machines/team/team.actors';
import { teamMachine, type TeamEvent } from '../../machines/team/team.machine';
import { inviteFormMachine } from '../../machines/inviteForm/inviteForm.machine';
import { useAuthSelector } from '../../src/app/auth';
import { InviteFormChart } from '../../src/components/team/TeamInvitations';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import TeamPage, { TeamChart } from '../../src/pages/TeamPage';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fakeApi';
import { HeldActorCalls, renderPage } from '../helpers/renderApp';
import { inJsdom, seesInJsdom } from '../helpers/sightsInJsdom';
import { ARRIVALS, INVITED, leftTeam, MEMBER_NAME, teamCoverage, teamPaths, teamViews, toastAfter, type TeamSnapshot } from './team.paths';

/**
 * Model-based tests of the team-page chart: `xstate/graph` yields the shortest path to every
 * transition, as the owner and as a plain member (team.paths.ts); each path is replayed on the real
 * page in jsdom, every call held until the path says how it ends, and in every state the page must
 * show what the chart holds. tests/paths replays the same paths in Chromium.
 */

const t = messages.team;

describeChartPaths('team chart, generated paths', 'team', { coverage: teamCoverage, paths: teamPaths }, async ({ arrival, path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const changes: TeamChange[] = [];
  const months: string[] = [];
  const machine = teamMachine.provide({
    actors: {
      load: calls.actor('load', ({ month }: { month: string }) => months.push(month)),
      change: calls.actor('change', ({ change }: { change: TeamChange }) => changes.push(change)),
      loadUsage: calls.actor('loadUsage', ({ month }: { month: string }) => months.push(month)),
      downloadCsv: calls.actor('downloadCsv'),
      loadOlder: calls.actor('loadOlder'),
    } as never,
    actions: { logFailure: () => undefined },
  });
  // The invite form's sending is its own chart's business (inviteForm.model.test.tsx): here it is sent at once.
  const inviteForm = inviteFormMachine.provide({
    actors: { invite: fromPromise(async ({ input }) => ({ id: 'i-new', email: input.email, role: input.role, expires_at: new Date().toISOString() })) },
  });
  const auth = authMachine.provide({
    guards: { hasStoredToken: () => true },
    actors: { fetchUser: fromPromise(async () => ({ ...ada, id: ARRIVALS[arrival].userId })) },
  });
  // As behind the app's sign-in gate: the page starts once the user is known.
  function Gate() {
    return useAuthSelector((s) => s.hasTag('signedIn')) ? <TeamPage /> : null;
  }
  const { unmount, router } = renderPage(
    '/team',
    auth,
    <TeamChart.Logic.Provider value={machine}>
      <InviteFormChart.Logic.Provider value={inviteForm}>
        <Gate />
      </InviteFormChart.Logic.Provider>
    </TeamChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const settle = (name: string) => async ({ event, state }: { event: ActorOutcome; state: unknown }) => {
    await calls.settle(name, event);
    // Someone who left is on their dashboard, where the toasts are not rendered here.
    if (!(leftTeam(state as TeamSnapshot) && (state as TeamSnapshot).matches('notInTeam'))) await seesInJsdom(toastAfter(event, state as TeamSnapshot));
  };
  const click = async (name: string) => browser.click(screen.getByRole('button', { name }));
  try {
    await path.test({
      states: {
        ...inJsdom(teamViews),
        notInTeam: async (state) => {
          const snapshot = state as TeamSnapshot;
          // Someone who left goes on to their dashboard (not rendered here, nor the toasts with the page).
          if (leftTeam(snapshot)) await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
          else await seesInJsdom(teamViews.notInTeam(snapshot));
        },
        'ready.changes.changing': async (state) => {
          await seesInJsdom(teamViews.ready(state as TeamSnapshot));
          expect(changes.at(-1)).toEqual((state as TeamSnapshot).context.changing);
        },
        'ready.usage.loading': async (state) => {
          await seesInJsdom(teamViews.ready(state as TeamSnapshot));
          expect(months.at(-1)).toBe((state as TeamSnapshot).context.month);
        },
      },
      events: {
        'xstate.done.actor.load': settle('load'),
        'xstate.error.actor.load': settle('load'),
        'xstate.done.actor.reload': settle('load'),
        'xstate.error.actor.reload': settle('load'),
        'xstate.done.actor.change': settle('change'),
        'xstate.error.actor.change': settle('change'),
        'xstate.done.actor.loadUsage': settle('loadUsage'),
        'xstate.error.actor.loadUsage': settle('loadUsage'),
        'xstate.done.actor.downloadCsv': settle('downloadCsv'),
        'xstate.error.actor.downloadCsv': settle('downloadCsv'),
        'xstate.done.actor.loadOlder': settle('loadOlder'),
        'xstate.error.actor.loadOlder': settle('loadOlder'),
        'team.retry': () => click(t.retry),
        'team.reload': async () => {
          await browser.type(screen.getByLabelText(t.inviteEmail), 'new.person@example.com');
          await click(t.inviteSubmit);
          await screen.findByText(t.inviteSent('new.person@example.com'));
        },
        'member.remove': () => click(arrival === 'owner' ? `${t.remove}: ${MEMBER_NAME}` : t.leave),
        'member.transfer': () => click(`${t.makeOwner}: ${MEMBER_NAME}`),
        'change.confirm': ({ state }) => click((state as TeamSnapshot).context.changing!.kind === 'transfer' ? t.transferAction : t.confirm),
        'change.cancel': () => click(t.cancel),
        'team.rename': async ({ event }) => {
          const field = screen.getByLabelText(t.teamName);
          await browser.clear(field);
          await browser.type(field, (event as Extract<TeamEvent, { type: 'team.rename' }>).name);
          await click(t.saveName);
        },
        'team.defaultCap': async ({ event }) => {
          await browser.type(screen.getByLabelText(t.defaultCap), String((event as Extract<TeamEvent, { type: 'team.defaultCap' }>).cap));
          await click(t.saveDefaultCap);
        },
        'team.security': async ({ event }) => {
          const { requireTwoFactor, sessionMaxAgeHours } = event as Extract<TeamEvent, { type: 'team.security' }>;
          if ((screen.getByLabelText(t.requireTwoFactor) as HTMLInputElement).checked !== requireTwoFactor) await browser.click(screen.getByText(t.requireTwoFactor));
          const hours = screen.getByLabelText(t.sessionMaxAge);
          await browser.clear(hours);
          if (sessionMaxAgeHours !== null) await browser.type(hours, String(sessionMaxAgeHours));
          await click(t.saveSecurity);
        },
        'member.cap': async ({ event }) => {
          await click(`${t.setCap}: ${MEMBER_NAME}`);
          await browser.type(screen.getByLabelText(t.capLabel(MEMBER_NAME)), String((event as Extract<TeamEvent, { type: 'member.cap' }>).cap));
          await click(t.saveCap);
        },
        'member.role': () => click(`${t.makeAdmin}: ${MEMBER_NAME}`),
        'invitation.resend': () => click(`${t.resend}: ${INVITED}`),
        'invitation.revoke': () => click(`${t.revoke}: ${INVITED}`),
        'usage.month': async ({ event }) => {
          fireEvent.change(screen.getByLabelText(t.month), { target: { value: (event as Extract<TeamEvent, { type: 'usage.month' }>).month } });
        },
        'usage.download': () => click(t.downloadCsv),
        'audit.older': () => click(t.olderEvents),
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
