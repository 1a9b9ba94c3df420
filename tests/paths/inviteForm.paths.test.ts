import type { EventObject } from 'xstate';
import type { InviteFormEvent } from '../../machines/inviteForm/inviteForm.machine';
import * as messages from '../../src/content/messages';
import type { ApiRequestError } from '../../machines/shared/api';
import { answerError, answerFromServer, apiClient, cutOff, HeldCalls, makeTeam, openTab, signUp, storedTokens, type LiveAccount, useServerAndPathsBrowser } from '../helpers/browserPaths';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import { INVITEE, inviteCoverage, inviteOutcomes, invitePaths, inviteViews, sendingEnded, type InviteFormSnapshot } from '../model/inviteForm.paths';

/**
 * The invite-form chart's generated paths (tests/model/inviteForm.paths.ts) replayed in Chromium
 * on the real team page of a real team's owner, one test per path. Sending is held until the path
 * says how it ends: the server's own answer (a new invitation; 409 invitation_pending once the
 * address really has one), or a refusal it cannot be made to give for this address at will
 * (already in a team, seats taken) and a lost connection. Each path's invitations are revoked after it.
 */

jest.setTimeout(60_000);

// Every path invites the model's one address again within the hour: past the product's bound of 5
// invitation mails an address an hour (tests/api/invitationMail.test.ts holds that bound).
const live = useServerAndPathsBrowser({ INVITATION_MAILS_PER_ADDRESS: '10000' });
const t = messages.team;
const CALLS = { invite: { method: 'POST', path: '/teams/me/invitations' } };
let owner: LiveAccount;

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  owner = await signUp(api, 'Ada Lovelace');
  await makeTeam(api, live.server.dataDir, owner);
});

async function revokeAll(): Promise<void> {
  const api = apiClient(live.server.baseUrl);
  const { body } = await api.call<{ invitations: Array<{ id: string }> }>('GET', '/teams/me/invitations', undefined, owner.tokens.access_token);
  for (const { id } of body.invitations) await api.call('DELETE', `/teams/me/invitations/${id}`, undefined, owner.tokens.access_token);
}

describeChartPaths('invite-form chart, generated paths, in Chromium against the real server', 'invite-form', { coverage: inviteCoverage, paths: invitePaths }, async ({ path }) => {
  const { baseUrl } = live.server;
  const api = apiClient(baseUrl);
  const { page, close } = await openTab(live.browser, storedTokens(owner.tokens));
  try {
    const held = await HeldCalls.on(page, CALLS);
    const ended = async ({ event }: { event: EventObject }) => {
      const outcome = event as ActorOutcome;
      const route = await held.take('invite');
      if (outcome === inviteOutcomes.sent) await answerFromServer(route);
      else if (outcome === inviteOutcomes.pending) {
        // The address really has an invitation waiting by the time the server reads this one.
        await api.call('POST', '/teams/me/invitations', { email: INVITEE, role: 'member' }, owner.tokens.access_token);
        const body = (await answerFromServer(route)) as { error: { code: string } };
        expect(body.error.code).toBe('invitation_pending');
      } else if (outcome === inviteOutcomes.offline) await cutOff(route);
      else {
        const error = outcome.error as ApiRequestError;
        await answerError(route, error.status, error.code!, error.code!);
      }
      await seesInBrowser(page, sendingEnded(outcome));
      // A sent invitation is on the page's pending list at once.
      if (outcome === inviteOutcomes.sent) await seesInBrowser(page, [{ role: 'button', name: `${t.revoke}: ${INVITEE}` }]);
    };
    await page.goto(`${baseUrl}/team`);
    await path.test({
      states: {
        ...inBrowser(page, inviteViews),
        sending: async (state) => {
          const { context: form } = state as InviteFormSnapshot;
          await seesInBrowser(page, inviteViews.sending(state as InviteFormSnapshot));
          expect((await held.peek('invite')).request().postDataJSON()).toEqual({ email: form.email.trim(), role: form.role });
        },
      },
      events: {
        'xstate.done.actor.invite': ended,
        'xstate.error.actor.invite': ended,
        'draft.email': async ({ event }) => page.getByLabel(t.inviteEmail, { exact: true }).fill((event as Extract<InviteFormEvent, { type: 'draft.email' }>).value),
        'draft.role': async ({ event }) => {
          await page.getByLabel(t.inviteRole, { exact: true }).selectOption((event as Extract<InviteFormEvent, { type: 'draft.role' }>).value);
        },
        'form.submit': () => page.getByRole('button', { name: t.inviteSubmit, exact: true }).click(),
      },
    });
  } finally {
    await close();
    await revokeAll();
  }
});
