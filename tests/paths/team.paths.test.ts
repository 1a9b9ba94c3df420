import type { Download, Route } from 'playwright-core';
import type { EventObject } from 'xstate';
import type { TeamEvent } from '../../machines/team/team.machine';
import * as messages from '../../src/content/messages';
import type { ApiRequestError } from '../../machines/shared/api';
import { answerError, answerFromServer, apiClient, cutOff, HeldCalls, makeTeam, openTab, setUpAuthenticator, signUp, storedTokens, type CallPattern, type LiveAccount, useServerAndPathsBrowser } from '../helpers/browserPaths';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import {
  INVITED,
  MEMBER_NAME,
  OWNER_NAME,
  TEAM_NAME,
  teamCoverage,
  teamPaths,
  teamViews,
  thisMonth,
  toastAfter,
  type Arrival,
  type TeamSnapshot,
} from '../model/team.paths';

/**
 * The team-page chart's generated paths (tests/model/team.paths.ts) replayed in Chromium on the
 * real team page against the real server, one test per path. Each path gets a real team like the
 * model's: Ada owns it, Grace is a member, Alan's invitation is pending, and more audit events
 * than one page holds. The page's calls are held until the path says how they end: the server's
 * own answer, or what it cannot be made to give at will (a refusal of the change, the team gone
 * while the page reloads) and a lost connection. A path whose first load finds no team signs in
 * an account that is in none.
 */

jest.setTimeout(90_000);

// Every path invites the model's one address again within the hour: past the product's bound of 5
// invitation mails an address an hour (tests/api/invitationMail.test.ts holds that bound).
const live = useServerAndPathsBrowser({ INVITATION_MAILS_PER_ADDRESS: '10000' });
const t = messages.team;
let teamless: LiveAccount;

beforeAll(async () => {
  teamless = await signUp(apiClient(live.server.baseUrl), OWNER_NAME);
});

/** A real team like the model's, for one path; for an admin's path Grace is an admin, for a held one the team requires a second factor she lacks. */
async function modelTeam(arrival: Arrival) {
  const api = apiClient(live.server.baseUrl);
  const owner = await signUp(api, OWNER_NAME);
  const member = await signUp(api, MEMBER_NAME);
  // As in the model, Grace pays for her own Professional plan too, where she views the page. Not
  // where Ada does: Ada's paths hand the team over to Grace, which a new owner paying for a plan of
  // their own cannot take (409 new_owner_has_subscription, tests/api/teamBilling.test.ts).
  if (arrival !== 'owner') await api.subscribe(member.tokens.access_token, 'professional');
  const pending = await makeTeam(api, live.server.dataDir, owner, [member], [INVITED]);
  // Renames fill the audit log past its first page (50 events), so there are older events to show.
  for (let i = 0; i < 50; i++) await api.call('PATCH', '/teams/me', { name: `${TEAM_NAME} ${i}` }, owner.tokens.access_token);
  await api.call('PATCH', '/teams/me', { name: TEAM_NAME }, owner.tokens.access_token);
  if (arrival === 'admin') await api.call('PATCH', `/teams/me/members/${member.id}`, { role: 'admin' }, owner.tokens.access_token);
  // Held: Ada, with an authenticator app, requires two-step sign-in of the team; Grace has none.
  if (arrival === 'held') {
    await setUpAuthenticator(api, owner.tokens.access_token);
    const required = await api.call('PATCH', '/teams/me/security', { require_two_factor: true }, owner.tokens.access_token);
    if (required.status !== 200) throw new Error(`requiring two-step sign-in answered ${required.status}`);
  }
  return { owner, member, invitationId: pending[INVITED]! };
}

describeChartPaths('team chart, generated paths, in Chromium against the real server', 'team', { coverage: teamCoverage, paths: teamPaths }, async ({ arrival, path }) => {
  const { baseUrl } = live.server;
  const noTeam = (path.steps[1]?.event as ActorOutcome | undefined)?.error instanceof Error && (path.steps[1]!.event as { error: ApiRequestError }).error.code === 'not_in_team';
  const { owner, member, invitationId } = await modelTeam(arrival);
  const viewer = noTeam ? teamless : arrival === 'owner' ? owner : member;
  const { page, close } = await openTab(live.browser, storedTokens(viewer.tokens));
  try {
    const calls = {
      team: { method: 'GET', path: '/teams/me' },
      remove: { method: 'DELETE', path: `/teams/me/members/${member.id}` },
      update: { method: 'PATCH', path: `/teams/me/members/${member.id}` },
      transfer: { method: 'POST', path: '/teams/me/transfer' },
      settings: { method: 'PATCH', path: '/teams/me' },
      security: { method: 'PATCH', path: '/teams/me/security' },
      resend: { method: 'POST', path: `/teams/me/invitations/${invitationId}/resend` },
      revoke: { method: 'DELETE', path: `/teams/me/invitations/${invitationId}` },
      // The first load asks for this month's usage and the newest events itself; these are the later calls.
      usage: { method: 'GET', path: '/teams/me/usage', when: (url: URL) => url.searchParams.get('month') !== thisMonth },
      csv: { method: 'GET', path: '/teams/me/usage.csv' },
      older: { method: 'GET', path: '/teams/me/audit-log', when: (url: URL) => url.searchParams.has('before') },
    } satisfies Record<string, CallPattern>;
    const held = await HeldCalls.on(page, calls);
    let download: Promise<Download> | null = null;

    /** Ends the held call as the outcome says: passed on to the server, refused, or cut off. */
    const end = async (name: keyof typeof calls, outcome: ActorOutcome) => answer(await held.take(name), outcome);
    const answer = async (route: Route, outcome: ActorOutcome) => {
      const error = outcome.error as ApiRequestError | undefined;
      if (!error) return void (await answerFromServer(route));
      if (error.status === 0) return cutOff(route);
      // A team that is really gone, or the account's own, is the server's answer; the rest is made up.
      if (error.code === 'not_in_team' && noTeam) return void (await answerFromServer(route));
      return answerError(route, error.status, error.code!, error.code!);
    };
    /** The change the path makes goes out as one of these calls. */
    const changeCall = (state: TeamSnapshot): keyof typeof calls => {
      const kind = state.context.changing!.kind;
      return kind === 'cap' || kind === 'role' ? 'update' : kind === 'rename' || kind === 'defaultCap' ? 'settings' : kind;
    };
    const settle = (name: keyof typeof calls | ((state: TeamSnapshot) => keyof typeof calls)) => async ({ event, state }: { event: EventObject; state: unknown }) => {
      const snapshot = state as TeamSnapshot;
      const outcome = event as ActorOutcome;
      if (outcome.type === 'xstate.done.actor.downloadCsv') download = page.waitForEvent('download');
      // The change's call went out in the state before; `state` is the one after, still naming the change.
      await end(typeof name === 'function' ? name(snapshot) : name, outcome);
      await seesInBrowser(page, toastAfter(outcome, snapshot));
      if (download) {
        expect((await download).suggestedFilename()).toBe(`team-usage-${snapshot.context.month}.csv`);
        download = null;
      }
    };
    const click = (name: string) => page.getByRole('button', { name, exact: true }).click();

    await page.goto(`${baseUrl}/team`);
    // A held member's banner (a chunk of its own) comes in above the page once the session check has
    // answered; until then a click on the page could land where the page was a moment before.
    if (arrival === 'held' && !noTeam) await page.getByText(messages.security.requiredText).waitFor();
    await path.test({
      states: inBrowser(page, teamViews),
      events: {
        'xstate.done.actor.load': settle('team'),
        'xstate.error.actor.load': settle('team'),
        'xstate.done.actor.reload': settle('team'),
        'xstate.error.actor.reload': settle('team'),
        'xstate.done.actor.change': settle(changeCall),
        'xstate.error.actor.change': settle(changeCall),
        'xstate.done.actor.loadUsage': settle('usage'),
        'xstate.error.actor.loadUsage': settle('usage'),
        'xstate.done.actor.downloadCsv': settle('csv'),
        'xstate.error.actor.downloadCsv': settle('csv'),
        'xstate.done.actor.loadOlder': settle('older'),
        'xstate.error.actor.loadOlder': settle('older'),
        'team.retry': () => click(t.retry),
        'team.reload': async () => {
          await page.getByLabel(t.inviteEmail, { exact: true }).fill('new.person@example.com');
          await click(t.inviteSubmit);
          await seesInBrowser(page, [{ text: t.inviteSent('new.person@example.com') }]);
        },
        'member.remove': () => click(arrival === 'owner' ? `${t.remove}: ${MEMBER_NAME}` : t.leave),
        'member.transfer': () => click(`${t.makeOwner}: ${MEMBER_NAME}`),
        'change.confirm': ({ state }) => click((state as TeamSnapshot).context.changing!.kind === 'transfer' ? t.transferAction : t.confirm),
        'change.cancel': () => click(t.cancel),
        'team.rename': async ({ event }) => {
          await page.getByLabel(t.teamName, { exact: true }).fill((event as Extract<TeamEvent, { type: 'team.rename' }>).name);
          await click(t.saveName);
        },
        'team.defaultCap': async ({ event }) => {
          await page.getByLabel(t.defaultCap, { exact: true }).fill(String((event as Extract<TeamEvent, { type: 'team.defaultCap' }>).cap));
          await click(t.saveDefaultCap);
        },
        'team.security': async ({ event }) => {
          const { requireTwoFactor, sessionMaxAgeHours } = event as Extract<TeamEvent, { type: 'team.security' }>;
          if ((await page.getByRole('checkbox', { name: t.requireTwoFactor }).isChecked()) !== requireTwoFactor) await page.getByText(t.requireTwoFactor, { exact: true }).click();
          await page.getByLabel(t.sessionMaxAge, { exact: true }).fill(sessionMaxAgeHours === null ? '' : String(sessionMaxAgeHours));
          await click(t.saveSecurity);
        },
        'member.cap': async ({ event }) => {
          await click(`${t.setCap}: ${MEMBER_NAME}`);
          await page.getByLabel(t.capLabel(MEMBER_NAME), { exact: true }).fill(String((event as Extract<TeamEvent, { type: 'member.cap' }>).cap));
          await click(t.saveCap);
        },
        'member.role': () => click(`${t.makeAdmin}: ${MEMBER_NAME}`),
        'invitation.resend': () => click(`${t.resend}: ${INVITED}`),
        'invitation.revoke': () => click(`${t.revoke}: ${INVITED}`),
        'usage.month': async ({ event }) => page.getByLabel(t.month, { exact: true }).fill((event as Extract<TeamEvent, { type: 'usage.month' }>).month),
        'usage.download': () => click(t.downloadCsv),
        'audit.older': () => click(t.olderEvents),
      },
    });
  } finally {
    await close();
  }
});
