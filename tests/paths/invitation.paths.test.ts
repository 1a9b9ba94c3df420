import type { EventObject } from 'xstate';
import type { ApiRequestError, InvitationPreview } from '../../machines/shared/api';
import { formatDate } from '../../src/lib/planDisplay';
import {
  answerError,
  answerFromServer,
  apiClient,
  cutOff,
  HeldCalls,
  inviteByMail,
  makeTeam,
  openTab,
  signUp,
  storedTokens,
  type LiveAccount,
  useServerAndPathsBrowser,
} from '../helpers/browserPaths';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { inBrowser } from '../helpers/sightsInBrowser';
import * as messages from '../../src/content/messages';
import {
  INVITED_EMAIL,
  INVITER,
  invitationCoverage,
  invitationOutcomes,
  invitationPaths,
  invitationViews,
  OTHER_EMAIL,
  preview,
} from '../model/invitation.paths';

/**
 * The invitation chart's generated paths (tests/model/invitation.paths.ts) replayed in Chromium on
 * the real invitation page against the real server, one test per path: for each path a real team
 * of the model's inviter invites the model's address, and the page opens at the mailed link,
 * signed in as the invited account, as another one, or signed out. The preview and acceptance are
 * the server's own answers (a revoked link really answers 404); a mismatch and "already in a team"
 * for the invited account, and a lost connection, are made up.
 */

jest.setTimeout(60_000);

// Every path invites the model's one address again within the hour: past the product's bound of 5
// invitation mails an address an hour (tests/api/invitationMail.test.ts holds that bound).
const live = useServerAndPathsBrowser({ INVITATION_MAILS_PER_ADDRESS: '10000' });
const t = messages.invitation;
const accounts = {} as Record<'invited' | 'other', LiveAccount>;

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  accounts.invited = await signUp(api, 'Ada Lovelace', INVITED_EMAIL);
  accounts.other = await signUp(api, 'Alan Turing', OTHER_EMAIL);
});

describeChartPaths('invitation chart, generated paths, in Chromium against the real server', 'invitation', { coverage: invitationCoverage, paths: invitationPaths }, async ({ arrival, path }) => {
  const { baseUrl, dataDir } = live.server;
  const api = apiClient(baseUrl);
  const inviter = await signUp(api, INVITER);
  await makeTeam(api, dataDir, inviter);
  const sent = await inviteByMail(api, dataDir, inviter.tokens.access_token, INVITED_EMAIL, preview.role);
  const token = new URL(sent.link).pathname.split('/').at(-1)!;
  const revoke = () => api.call('DELETE', `/teams/me/invitations/${sent.id}`, undefined, inviter.tokens.access_token);

  const signedIn = arrival === 'signedOut' ? {} : storedTokens(accounts[arrival].tokens);
  const { page, close } = await openTab(live.browser, signedIn);
  try {
    const held = await HeldCalls.on(page, {
      preview: { method: 'GET', path: `/invitations/${token}` },
      accept: { method: 'POST', path: `/invitations/${token}/accept` },
    });
    const answer = (name: 'preview' | 'accept') => async ({ event }: { event: EventObject }) => {
      const outcome = event as ActorOutcome;
      const route = await held.take(name);
      const error = outcome.error as ApiRequestError | undefined;
      if (outcome === invitationOutcomes.previewed) {
        const real = (await answerFromServer(route)) as InvitationPreview;
        // The model's invitation is the one the server shows (sent today, so the same expiry date).
        expect({ ...real, expires_at: formatDate(real.expires_at) }).toEqual({ ...preview, expires_at: formatDate(preview.expires_at) });
      } else if (outcome === invitationOutcomes.joined) {
        await answerFromServer(route);
      } else if (error?.code === 'invalid_invitation') {
        // Revoked while the page was open: the server itself now refuses the link.
        await revoke();
        await answerFromServer(route);
      } else if (error?.status === 0) {
        await cutOff(route);
      } else {
        await answerError(route, error!.status, error!.code!, error!.code!);
      }
    };
    await page.goto(sent.link);
    await path.test({
      states: inBrowser(page, invitationViews(arrival)),
      events: {
        'xstate.done.actor.preview': answer('preview'),
        'xstate.error.actor.preview': answer('preview'),
        'xstate.done.actor.accept': async (step) => {
          await answer('accept')(step);
          await page.waitForURL(/\/team$/);
        },
        'xstate.error.actor.accept': answer('accept'),
        'invitation.accept': () => page.getByRole('button', { name: t.accept, exact: true }).click(),
        'invitation.retry': () => page.getByRole('button', { name: t.retry, exact: true }).click(),
      },
    });
  } finally {
    await close();
    // Whoever joined leaves again, for the next path's invitation.
    await api.call('DELETE', `/teams/me/members/${accounts.invited.id}`, undefined, accounts.invited.tokens.access_token);
  }
});
