import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import { resendVerificationMachine } from '../../machines/resendVerification/resendVerification.machine';
import { verifyEmailMachine } from '../../machines/verifyEmail/verifyEmail.machine';
import type { AuthInput } from '../../machines/shared/authRetry';
import { UnverifiedEmailBanner } from '../../src/app/Layout';
import { ResendVerificationChart } from '../../src/components/VerifyEmailBanner';
import * as messages from '../../src/content/messages';
import VerifyEmailPage, { VerifyEmailChart } from '../../src/pages/VerifyEmailPage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, renderPage } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { resendCoverage, resendNoticeOf, resendPaths, resendViews, TOKEN, unverifiedAda, verifyEmailCoverage, verifyEmailPaths, verifyEmailViews, verifyFailureOf } from './verifyEmail.paths';

/**
 * Model-based tests of verified email's charts: `xstate/graph` yields the shortest path to every
 * transition (verifyEmail.paths.ts); each is replayed in jsdom for a signed-in account whose
 * address is not verified yet, under the real auth chart, with the banner of signed-in pages: the
 * /verify-email page (its call held until the path says how it ends) and the banner's "Resend
 * link". Once the address is verified, by the page or found so by a resend, the banner goes.
 */

const t = messages.verifyEmail;
/** The real auth chart, signed in (a stored token) as an account that has not verified its address. */
const signedInUnverified = () => authMachine.provide({ guards: { hasStoredToken: () => true }, actors: { fetchUser: fromPromise(async () => unverifiedAda) } });

describeChartPaths('verify-email page chart, generated paths', 'verifyEmail', { coverage: verifyEmailCoverage, paths: verifyEmailPaths }, async ({ path, token }) => {
  localStorage.clear();
  const calls = new HeldActorCalls();
  const sent: string[] = [];
  const machine = verifyEmailMachine.provide({ actors: { verifyEmail: calls.actor<void, { token: string }>('verifyEmail', (input) => sent.push(input.token)) } });
  const page = (
    <VerifyEmailChart.Logic.Provider value={machine}>
      <UnverifiedEmailBanner />
      <VerifyEmailPage />
    </VerifyEmailChart.Logic.Provider>
  );
  const { unmount } = renderPage('/verify-email', signedInUnverified(), page, token ? `/verify-email?token=${TOKEN}` : '/verify-email');
  try {
    await path.test({
      states: {
        ...inJsdom(verifyEmailViews),
        verifying: async (state) => {
          await inJsdom(verifyEmailViews).verifying!(state);
          // The link's own token, sent as it opens.
          expect(sent).toEqual([TOKEN]);
        },
        failed: async (state) => {
          await inJsdom(verifyEmailViews).failed!(state);
          const last = path.steps.at(-1)!.event as ActorOutcome;
          expect(await screen.findByText(verifyFailureOf(last.type.startsWith('xstate.error.') ? last : null))).toBeInTheDocument();
          if (!token) expect(sent).toEqual([]);
        },
      },
      events: outcomeHandlers(['verifyEmail'], () => async ({ event }: { event: ActorOutcome }) => {
        await calls.settle('verifyEmail', event);
      }),
    });
  } finally {
    unmount();
  }
});

describeChartPaths('banner resend chart, generated paths', 'resendVerification', { coverage: resendCoverage, paths: resendPaths }, async ({ path }) => {
  localStorage.clear();
  const calls = new HeldActorCalls();
  let requests = 0;
  const machine = resendVerificationMachine.provide({ actors: { resendVerification: calls.actor<void, AuthInput>('resendVerification', () => requests++) } });
  const page = (
    <ResendVerificationChart.Logic.Provider value={machine}>
      <UnverifiedEmailBanner />
    </ResendVerificationChart.Logic.Provider>
  );
  const { unmount } = renderPage('/dashboard', signedInUnverified(), page);
  const browser = userEvent.setup();
  try {
    await path.test({
      states: {
        ...inJsdom(resendViews),
        idle: async (state) => {
          await inJsdom(resendViews).idle!(state);
          // Nothing is sent before the person asks.
          expect(requests).toBe(0);
        },
      },
      events: {
        ...outcomeHandlers(['resendVerification'], () => async ({ event }: { event: ActorOutcome }) => {
          await calls.settle('resendVerification', event);
          if (event.type.includes('error') && (event.error as { code?: string }).code === 'email_already_verified') return;
          expect(await screen.findByText(resendNoticeOf(event))).toBeInTheDocument();
        }),
        'resend.start': async () => {
          const before = requests;
          await browser.click(await screen.findByRole('button', { name: t.resend }));
          expect(requests).toBe(before + 1);
        },
      },
    });
  } finally {
    unmount();
  }
});
