import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { verifyEmailMachine } from '../../machines/verifyEmail/verifyEmail.machine';
import { resendVerificationMachine, type ResendVerificationEvent } from '../../machines/resendVerification/resendVerification.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fixtures';
import type { Sight } from '../helpers/sights';

/**
 * Verified email's two charts as test models, for the jsdom replays (tests/model/verifyEmail.model.test.tsx)
 * and the Chromium ones against the real server (tests/paths/verifyEmail.paths.test.ts):
 * the /verify-email page (with a token or without) and the banner's "Resend link"; how each call
 * may end, the generated paths and what the person sees in each state.
 */

const t = messages.verifyEmail;
export const TOKEN = 'mailed-token';
export const unverifiedAda = { ...ada, email_verified: false };

/** The server's words for a link it refuses (server/domain/emailVerification.ts). */
export const USED_SENTENCE = 'This verification link was already used. Ask for a new one from the banner on your dashboard.';
export const verifyOutcomes = {
  verified: { type: 'xstate.done.actor.verifyEmail', output: undefined },
  used: { type: 'xstate.error.actor.verifyEmail', error: new ApiRequestError('API Error: Bad Request', 400, 'invalid_verification_token', USED_SENTENCE) },
  offline: { type: 'xstate.error.actor.verifyEmail', error: new ApiRequestError(messages.api.network, 0) },
} satisfies Record<string, ActorOutcome>;

/** The sentence the page shows when the link did not verify. */
export function verifyFailureOf(outcome: ActorOutcome | null): string {
  if (outcome === null) return t.missingToken;
  return (outcome.error as ApiRequestError).status === 0 ? messages.auth.networkFailure : USED_SENTENCE;
}

export type VerifyEmailSnapshot = SnapshotFrom<typeof verifyEmailMachine>;

export const verifyEmailPaths = [TOKEN, ''].flatMap((token) =>
  createTestModel(toTestModelMachine(verifyEmailMachine), { input: { token }, events: Object.values(verifyOutcomes) } as never)
    .getShortestPaths()
    .map((path) => ({ title: `${token ? '' : '[no token] '}${path.description}`, path, token })),
);
export const verifyEmailCoverage = chartCoverage(verifyEmailMachine, verifyEmailPaths.map(({ path }) => path));

/** What the page shows in each state, signed in as `email`: the banner goes once the address is verified. */
export function verifyEmailViewsOf(email: string) {
  const banner = t.bannerText(email);
  return {
    verifying: (): Sight[] => [{ text: t.verifying }, { text: banner }, { text: t.verifiedTitle, absent: true }],
    verified: (): Sight[] => [{ text: t.verifiedTitle }, { text: t.verifiedText }, { text: banner, absent: true }, { role: 'link', name: t.toDashboard }],
    failed: (): Sight[] => [{ text: t.failedTitle }, { text: banner }, { text: t.verifiedTitle, absent: true }],
  } satisfies Record<string, (state: VerifyEmailSnapshot) => Sight[]>;
}
export const verifyEmailViews = verifyEmailViewsOf(unverifiedAda.email);

/** The wait the server names in Retry-After when 5 links went out this hour. */
export const RETRY_AFTER = 1800;
export const resendOutcomes = {
  sent: { type: 'xstate.done.actor.resendVerification', output: undefined },
  throttled: { type: 'xstate.error.actor.resendVerification', error: new ApiRequestError('API Error: Too Many Requests', 429, 'rate_limited', 'Too many verification mails.', RETRY_AFTER) },
  offline: { type: 'xstate.error.actor.resendVerification', error: new ApiRequestError(messages.api.network, 0) },
  alreadyVerified: {
    type: 'xstate.error.actor.resendVerification',
    error: new ApiRequestError('API Error: Conflict', 409, 'email_already_verified', 'Your email address is already verified.'),
  },
} satisfies Record<string, ActorOutcome>;

/** The sentence beside the button after each ending (none once verified: the banner is gone). */
export function resendNoticeOf(outcome: ActorOutcome): string {
  const status = outcome.error instanceof ApiRequestError ? outcome.error.status : null;
  if (status === null) return t.sent;
  return status === 429 ? messages.auth.tooManyAttempts(RETRY_AFTER) : messages.auth.networkFailure;
}
const NOTICES = [resendOutcomes.sent, resendOutcomes.throttled, resendOutcomes.offline].map(resendNoticeOf);

export type ResendVerificationSnapshot = SnapshotFrom<typeof resendVerificationMachine>;
const resendEvents: ResendVerificationEvent[] = [{ type: 'resend.start' }];

export const resendPaths = createTestModel(toTestModelMachine(resendVerificationMachine), {
  input: { auth: null },
  events: [...Object.values(resendOutcomes), ...resendEvents],
  // The notice before counts: a refusal's sentence must give way to the next one's.
  serializeState: (state: ResendVerificationSnapshot, _event: unknown, previous?: ResendVerificationSnapshot) => JSON.stringify([state.value, state.context.notice, previous?.context.notice ?? null]),
} as never)
  .getShortestPaths()
  .map((path) => ({ title: path.description, path }));
export const resendCoverage = chartCoverage(resendVerificationMachine, resendPaths.map(({ path }) => path));

/** What the banner shows in each state of its chart, signed in as `email`. */
export function resendViewsOf(email: string) {
  const banner = t.bannerText(email);
  /** The banner at rest: its button, and no notice before the first request (each ending's own is checked as it comes). */
  const atRest = ({ context: { notice } }: ResendVerificationSnapshot): Sight[] => [
    { text: banner },
    { role: 'button', name: t.resend, disabled: false },
    ...(notice === null ? NOTICES.map((text): Sight => ({ text, absent: true })) : []),
  ];
  return {
    idle: atRest,
    sending: (): Sight[] => [{ text: banner }, { role: 'button', name: t.resendBusy, disabled: true }, ...NOTICES.map((text): Sight => ({ text, absent: true }))],
    sent: (): Sight[] => [{ text: banner }, { text: t.sent }, { role: 'button', name: t.resend, disabled: false }],
    failed: atRest,
    // Verified meanwhile: the app's user says so, and the banner goes.
    verified: (): Sight[] => [{ text: banner, absent: true }, { role: 'button', name: t.resend, absent: true }],
  } satisfies Record<string, (state: ResendVerificationSnapshot) => Sight[]>;
}
export const resendViews = resendViewsOf(unverifiedAda.email);
