import type { Route } from 'playwright-core';
import * as messages from '../../src/content/messages';
import type { ApiRequestError } from '../../machines/shared/api';
import { answerFromServer, apiClient, cutOff, HeldCalls, newVerificationLink, openTab, storedTokens, uniqueAccount, useServerAndPathsBrowser } from '../helpers/browserPaths';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { outboxOf } from '../helpers/server';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import {
  resendCoverage,
  resendNoticeOf,
  resendOutcomes,
  resendPaths,
  resendViewsOf,
  verifyEmailCoverage,
  verifyEmailPaths,
  verifyEmailViewsOf,
  verifyFailureOf,
  verifyOutcomes,
} from '../model/verifyEmail.paths';

/**
 * Verified email's two charts (tests/model/verifyEmail.paths.ts) replayed in Chromium against the
 * real server, one test per path, each for a new account that has not verified its address: the
 * /verify-email page opened from the link mailed to it (the outbox), and the banner's "Resend
 * link". Each call is held until the path says how it ends: the server's own answer (the link
 * verifies; the link was really used already; the address was really verified meanwhile; a new
 * mail goes out), or what it cannot be made to give at will (the hour's mails spent) and a lost
 * connection.
 */

jest.setTimeout(60_000);

const live = useServerAndPathsBrowser();
const t = messages.verifyEmail;
const CALLS = {
  verify: { method: 'POST', path: '/auth/verify-email' },
  resend: { method: 'POST', path: '/auth/verify-email/resend' },
};

/**
 * A path's tab, signed in as a new account whose address is not verified (with the token of the
 * link mailed to it), its verification calls held.
 */
async function signedInUnverified() {
  const api = apiClient(live.server.baseUrl);
  const details = uniqueAccount('Ada Lovelace', 'Analytical-Engine-1843');
  const tokens = await api.register(details, { verified: false });
  const link = await newVerificationLink(outboxOf.get(live.server.baseUrl)!, details.email);
  const account = { email: details.email, token: new URL(link).searchParams.get('token')! };
  const { page, close } = await openTab(live.browser, storedTokens(tokens));
  return { api, account, page, close, held: await HeldCalls.on(page, CALLS) };
}

describeChartPaths('verify-email page chart, generated paths, in Chromium against the real server', 'verifyEmail', { coverage: verifyEmailCoverage, paths: verifyEmailPaths }, async ({ path, token }) => {
  const { api, account, page, close, held } = await signedInUnverified();
  try {
    const views = verifyEmailViewsOf(account.email);
    await page.goto(`${live.server.baseUrl}/verify-email${token ? `?token=${encodeURIComponent(account.token)}` : ''}`);
    await path.test({
      states: {
        ...inBrowser(page, views),
        verifying: async (state) => {
          await inBrowser(page, views).verifying!(state);
          // The link's own token, sent as it opens.
          expect((await held.peek('verify')).request().postDataJSON()).toEqual({ token: account.token });
        },
        failed: async (state) => {
          await inBrowser(page, views).failed!(state);
          const last = path.steps.at(-1)!.event as ActorOutcome;
          await seesInBrowser(page, [{ text: verifyFailureOf(last.type.startsWith('xstate.error.') ? last : null) }]);
        },
      },
      events: outcomeHandlers(['verifyEmail'], () => async ({ event }) => {
        const route = await held.take('verify');
        if (event === verifyOutcomes.offline) return cutOff(route);
        // A used link: the address was verified with it before the page's call reaches the server.
        if (event === verifyOutcomes.used) expect((await api.call('POST', '/auth/verify-email', { token: account.token })).status).toBe(200);
        await answerFromServer(route);
      }),
    });
  } finally {
    await close();
  }
});

/** The hour's verification mails spent: the server's 429 with its wait, which a test cannot make it give at will. */
function answerThrottled(route: Route, error: ApiRequestError): Promise<void> {
  return route.fulfill({
    status: 429,
    contentType: 'application/json',
    headers: { 'retry-after': String(error.retryAfter) },
    body: JSON.stringify({ error: { code: error.code, message: error.serverMessage } }),
  });
}

describeChartPaths('banner resend chart, generated paths, in Chromium against the real server', 'resendVerification', { coverage: resendCoverage, paths: resendPaths }, async ({ path }) => {
  const { api, account, page, close, held } = await signedInUnverified();
  try {
    await page.goto(`${live.server.baseUrl}/dashboard`);
    await path.test({
      states: inBrowser(page, resendViewsOf(account.email)),
      events: {
        ...outcomeHandlers(['resendVerification'], () => async ({ event }) => {
          const outcome = event as ActorOutcome;
          const route = await held.take('resend');
          if (outcome === resendOutcomes.offline) await cutOff(route);
          else if (outcome === resendOutcomes.throttled) await answerThrottled(route, outcome.error as ApiRequestError);
          else {
            // Verified meanwhile (in another tab, say): the server answers 409 email_already_verified.
            if (outcome === resendOutcomes.alreadyVerified) expect((await api.call('POST', '/auth/verify-email', { token: account.token })).status).toBe(200);
            await answerFromServer(route);
          }
          if (outcome !== resendOutcomes.alreadyVerified) await seesInBrowser(page, [{ text: resendNoticeOf(outcome) }]);
        }),
        'resend.start': () => page.getByRole('button', { name: t.resend, exact: true }).click(),
      },
    });
  } finally {
    await close();
  }
});
