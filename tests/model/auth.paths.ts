import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { authMachine, type AuthEvent } from '../../machines/auth/auth.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type User } from '../../machines/shared/api';
import type { TokenPair } from '../../machines/shared/tokenStorage';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { ada } from '../helpers/fixtures';
import { labelled, type Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * The auth chart as a test model, shared by the two runners that replay its paths: on the real
 * pages in jsdom (tests/model/auth.model.test.tsx) and in Chromium against the real server
 * (tests/paths/auth.paths.test.ts). Both take the paths, the events and what the user sees in
 * each state from here, so they cannot drift apart.
 */

const user: User = ada;
export const pair: TokenPair = { access_token: 'access-current', refresh_token: 'refresh-current' };
export const credentials = { email: 'ada@example.com', password: 'Analytical-Engine-1843' };
export const registration = { ...credentials, full_name: 'Ada Lovelace', username: 'ada' };
const unauthorized = new ApiRequestError('API Error: Unauthorized', 401, 'invalid_token');
const serverError = new ApiRequestError('API Error: Internal Server Error', 500);
const conflict = new ApiRequestError('API Error: Conflict', 409, 'email_taken');
const network = new ApiRequestError(messages.api.network, 0);
const wrongCode = new ApiRequestError('API Error: Unauthorized', 401, 'invalid_code');
const spentSecondStep = new ApiRequestError('API Error: Unauthorized', 401, 'mfa_token_invalid');
/** The right password of an account with an authenticator app: the second step is asked. */
export const secondStepAsked = { mfa_required: true, mfa_token: 'mfa-token', methods: ['totp', 'recovery_code'] };

/**
 * How each of the chart's actors can end, one entry per branch the chart tells apart; named, so a
 * runner must say how it brings about every one of them.
 */
export const authOutcomes = {
  userLoaded: { type: 'xstate.done.actor.fetchUser', output: user },
  userTokenRefused: { type: 'xstate.error.actor.fetchUser', error: unauthorized },
  userServerError: { type: 'xstate.error.actor.fetchUser', error: serverError },
  startupRefreshed: { type: 'xstate.done.actor.startupRefresh', output: pair },
  startupRefreshRefused: { type: 'xstate.error.actor.startupRefresh', error: unauthorized },
  retriedUserLoaded: { type: 'xstate.done.actor.retryUser', output: user },
  retriedUserServerError: { type: 'xstate.error.actor.retryUser', error: serverError },
  loggedIn: { type: 'xstate.done.actor.login', output: { ...pair, user } },
  loggedInWithoutUser: { type: 'xstate.done.actor.login', output: pair },
  loggedInWithoutUserId: { type: 'xstate.done.actor.login', output: { ...pair, user: { ...user, id: '' } } },
  loginRefused: { type: 'xstate.error.actor.login', error: unauthorized },
  loginAsksSecondFactor: { type: 'xstate.done.actor.login', output: secondStepAsked },
  secondFactorPassed: { type: 'xstate.done.actor.secondFactor', output: { ...pair, user } },
  secondFactorWithoutUserId: { type: 'xstate.done.actor.secondFactor', output: { ...pair, user: { ...user, id: '' } } },
  secondFactorRefused: { type: 'xstate.error.actor.secondFactor', error: wrongCode },
  secondFactorExpired: { type: 'xstate.error.actor.secondFactor', error: spentSecondStep },
  loginUserLoaded: { type: 'xstate.done.actor.loginUser', output: user },
  loginUserWithoutEmail: { type: 'xstate.done.actor.loginUser', output: { ...user, email: '' } },
  loginUserServerError: { type: 'xstate.error.actor.loginUser', error: serverError },
  passkeySignedIn: { type: 'xstate.done.actor.passkeySignIn', output: { ...pair, user } },
  passkeyRefused: { type: 'xstate.error.actor.passkeySignIn', error: new ApiRequestError('API Error: Unauthorized', 401, 'invalid_passkey') },
  registered: { type: 'xstate.done.actor.register', output: { ...pair, user } },
  registeredWithoutUserId: { type: 'xstate.done.actor.register', output: { ...pair, user: { ...user, id: '' } } },
  registrationConflict: { type: 'xstate.error.actor.register', error: conflict },
  loggedOut: { type: 'xstate.done.actor.logout', output: undefined },
  logoutNetworkError: { type: 'xstate.error.actor.logout', error: network },
  refreshed: { type: 'xstate.done.actor.refresh', output: pair },
  refreshRefused: { type: 'xstate.error.actor.refresh', error: unauthorized },
} satisfies Record<string, ActorOutcome>;
export type AuthOutcome = keyof typeof authOutcomes;

export const STALE_ACCESS_TOKEN = 'access-stale';

/** What the user (or another tab) does. */
export const authUserEvents = {
  login: { type: 'login.submit', ...credentials },
  register: { type: 'register.submit', ...registration },
  passkey: { type: 'passkey.submit' },
  logout: { type: 'logout' },
  secondFactorCode: { type: 'mfa.submit', code: '123456' },
  useRecoveryCode: { type: 'mfa.method', method: 'recovery_code' },
  useAuthenticatorApp: { type: 'mfa.method', method: 'totp' },
  cancelSecondStep: { type: 'mfa.cancel' },
  /** A request refused with 401 while carrying the access token in use. */
  expired: { type: 'session.expired', accessToken: pair.access_token },
  /** A request refused with 401 while carrying a token that has been replaced since. */
  expiredStale: { type: 'session.expired', accessToken: STALE_ACCESS_TOKEN },
  signedOutElsewhere: { type: 'session.signedOutElsewhere' },
  signedInElsewhere: { type: 'session.signedInElsewhere' },
} satisfies Record<string, AuthEvent>;

/** `xstate.done.actor.login` → `login`. */
export const invokeIdOf = (type: string) => type.replace(/^xstate\.(done|error)\.actor\./, '');

const noop = () => undefined;

/** The model fixes whether a token is stored when the chart checks; each setting is one family of paths. */
function modelOf(storedToken: boolean) {
  const chart = authMachine.provide({
    guards: {
      hasStoredToken: () => storedToken,
      isCurrentToken: (_, accessToken) => accessToken === pair.access_token,
    },
    actions: { storeTokens: noop, removeTokens: noop, notify: noop, navigate: noop },
  });
  return createTestModel(toTestModelMachine(chart), {
    // A person can only switch to the method the second step offers besides the one on screen.
    events: (state) =>
      [...Object.values(authOutcomes), ...Object.values(authUserEvents)].filter((event) => event.type !== 'mfa.method' || state.can(event as AuthEvent)),
    // States differ by value and by the transition into them; the context (user, last failure)
    // would only multiply the same screens.
    serializeState: (state, event, previous) =>
      `${JSON.stringify(state.value)}|${event ? JSON.stringify(event) : ''}|${previous ? JSON.stringify(previous.value) : ''}`,
  });
}

export type AuthSnapshot = SnapshotFrom<typeof authMachine>;

export const authPaths = [false, true].flatMap((storedToken) =>
  modelOf(storedToken)
    .getShortestPaths()
    .map((path) => ({ title: `${storedToken ? '[stored token] ' : ''}${path.description}`, path, storedToken })),
);

export const authCoverage = chartCoverage(authMachine, authPaths.map(({ path }) => path));

const layout = messages.layout;
const banner = { role: 'banner' } as const;
const welcome = layout.welcome(user.full_name);

/** What the user sees in each state of the chart. */
export const authViews = {
  // Nothing signed-in shows while the session is checked (a guarded page shows a spinner).
  loading: () => [{ role: 'banner' }, { role: 'button', name: layout.logout, in: banner, absent: true }, { text: welcome, in: banner, absent: true }],
  'signedOut.idle': (state) => [
    { role: 'link', name: layout.login, in: banner },
    { role: 'link', name: layout.signUp, in: banner },
    { role: 'button', name: messages.login.busy, absent: true },
    { role: 'button', name: messages.register.busy, absent: true },
    // The last failed attempt, until the next one.
    ...(state.context.failure ? [{ text: word(state.context.failure.title) }, { text: word(state.context.failure.description) }] : []),
  ],
  'signedOut.signingIn': () => [{ role: 'button', name: messages.login.busy }],
  'signedOut.secondFactor': (state) => [
    { role: 'heading', level: 1, name: messages.secondStep.heading },
    { label: labelled(state.context.secondFactor?.method === 'recovery_code' ? messages.secondStep.recoveryLabel : messages.secondStep.totpLabel) },
    { role: 'button', name: messages.secondStep.back },
    // The last refused code, until the next try.
    ...(state.context.failure ? [{ text: word(state.context.failure.description) }] : []),
  ],
  'signedOut.verifyingSecondFactor': () => [{ role: 'button', name: messages.secondStep.busy }],
  'signedOut.fetchingLoginUser': () => [{ role: 'button', name: messages.login.busy }],
  'signedOut.signingInWithPasskey': () => [{ role: 'button', name: messages.login.passkeyBusy }],
  'signedOut.registering': () => [{ role: 'button', name: messages.register.busy }],
  'signedIn.welcoming': () => [{ text: messages.auth.welcomeBack }, { text: welcome, in: banner }],
  'signedIn.active': () => [
    { text: welcome, in: banner },
    { role: 'button', name: layout.logout, in: banner, disabled: false },
  ],
  'signedIn.refreshing': () => [{ text: welcome, in: banner }],
  'signedIn.loggingOut': () => [{ role: 'button', name: layout.logout, in: banner, disabled: true }],
} satisfies Record<string, (state: AuthSnapshot) => Sight[]>;
