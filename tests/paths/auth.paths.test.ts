import type { CDPSession, Page, Route } from 'playwright-core';
import type { EventObject } from 'xstate';
import type { AuthEvent } from '../../machines/auth/auth.machine';
import * as messages from '../../src/content/messages';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY, type TokenPair } from '../../machines/shared/tokenStorage';
import {
  answerChanged,
  answerError,
  answerFromServer,
  apiClient,
  authenticatorCode,
  cutOff,
  HeldCalls,
  openTab,
  setUpAuthenticator,
  storedTokens,
  uniqueAccount,
  type CallPattern,
  useServerAndPathsBrowser,
} from '../helpers/browserPaths';
import { afterEvent, describeChartPaths } from '../helpers/chartModel';
import { labelled } from '../helpers/sights';
import { SoftAuthenticator } from '../helpers/softAuthenticator';
import { inBrowser, seesInBrowser } from '../helpers/sightsInBrowser';
import { authCoverage, authOutcomes, authPaths, authUserEvents, authViews, credentials, registration, type AuthOutcome } from '../model/auth.paths';

/**
 * The auth chart's generated paths (tests/model/auth.paths.ts) replayed in Chromium against the
 * real server, one test per path. Each call the chart makes is held until the path says how it
 * ends: the real server answers wherever it can be made to (a real wrong password, a taken email,
 * a revoked session), and a changed or made-up answer stands in only where it cannot (a 500, a
 * broken connection, a login answer without its user). What the user sees is checked in every
 * state the path visits, with the same views as the jsdom replay.
 */

jest.setTimeout(60_000);

// Opened as localhost: a passkey's relying party is a domain, never an IP address.
const live = useServerAndPathsBrowser({}, { hostName: 'localhost' });
const layout = messages.layout;

/** The chart's calls, named by what they ask. */
const CALLS = {
  me: { method: 'GET', path: '/users/me' },
  login: { method: 'POST', path: '/auth/login/email' },
  mfa: { method: 'POST', path: '/auth/login/mfa' },
  passkey: { method: 'POST', path: '/auth/webauthn' },
  register: { method: 'POST', path: '/auth/register' },
  refresh: { method: 'POST', path: '/auth/refresh' },
  logout: { method: 'POST', path: '/auth/logout' },
} satisfies Record<string, CallPattern>;
type Call = keyof typeof CALLS;

type Account = ReturnType<typeof uniqueAccount> & TokenPair & { secondFactor?: { secret: string; recoveryCodes: string[]; used: number } };

/** One path's replay. */
interface Run {
  held: HeldCalls<Call>;
  /** Every session handed to the page, refresh token → access token, so a test can end one. */
  sessions: Map<string, string>;
  /** The path's own account, made through the API on first use. */
  account(): Promise<Account>;
  /** Whom the page signed in (or was signed in as). */
  signedInAs?: { email: string; password: string };
  /** A second tab of the same browser (same storage), opened on first use. */
  otherTab(): Promise<Page>;
  /** The passkey the path registered for its account, by credential id (base64url). */
  passkeyId?: string;
}

/** An access token of a session that has ended: the real server answers 401 to it. */
let revokedAccess = '';

beforeAll(async () => {
  const api = apiClient(live.server.baseUrl);
  const { access_token } = await api.register(uniqueAccount(registration.full_name, credentials.password));
  await api.logout(access_token);
  revokedAccess = access_token;
});

function remember(run: Run, body: unknown): void {
  const tokens = body as Partial<TokenPair> | null;
  if (tokens?.refresh_token && tokens.access_token) run.sessions.set(tokens.refresh_token, tokens.access_token);
}

type Answer = (route: Route, run: Run) => Promise<void>;
const fromServer: Answer = async (route, run) => remember(run, await answerFromServer(route));
const changed =
  <T>(change: (body: T) => unknown): Answer =>
  async (route, run) =>
    remember(run, await answerChanged(route, change));
const serverError: Answer = (route) => answerError(route, 500, 'internal_error', 'Something went wrong on our side.');
/** Ends the session first, so the real server refuses its refresh token. */
const afterSessionEnded: Answer = async (route, run) => {
  const { refresh_token } = route.request().postDataJSON() as { refresh_token: string };
  await apiClient(live.server.baseUrl).logout(run.sessions.get(refresh_token)!);
  await fromServer(route, run);
};

/** Deletes the account's passkey first, so the real server refuses the browser's answer (401 `invalid_passkey`). */
const afterPasskeyDeleted: Answer = async (route, run) => {
  const { email, password } = run.signedInAs!;
  const { access_token } = await apiClient(live.server.baseUrl).login(email, password);
  await apiClient(live.server.baseUrl).call('DELETE', `/webauthn/credentials/${run.passkeyId}`, undefined, access_token);
  await fromServer(route, run);
};

type UserBody = { id: string; email: string };

/** How each outcome of the chart's actors comes about in the browser. */
const ANSWERS: Record<AuthOutcome, [Call, Answer]> = {
  userLoaded: ['me', fromServer],
  // The page was opened with the access token of an ended session.
  userTokenRefused: ['me', fromServer],
  userServerError: ['me', serverError],
  startupRefreshed: ['refresh', fromServer],
  startupRefreshRefused: ['refresh', afterSessionEnded],
  retriedUserLoaded: ['me', fromServer],
  retriedUserServerError: ['me', serverError],
  loggedIn: ['login', fromServer],
  loggedInWithoutUser: ['login', changed(({ access_token, refresh_token }: TokenPair) => ({ access_token, refresh_token }))],
  loggedInWithoutUserId: ['login', changed((body: { user: UserBody }) => ({ ...body, user: { ...body.user, id: '' } }))],
  // The form was sent with a wrong password.
  loginRefused: ['login', fromServer],
  passkeySignedIn: ['passkey', fromServer],
  passkeyRefused: ['passkey', afterPasskeyDeleted],
  loginUserLoaded: ['me', fromServer],
  loginUserWithoutEmail: ['me', changed((body: UserBody) => ({ ...body, email: '' }))],
  loginUserServerError: ['me', serverError],
  registered: ['register', fromServer],
  registeredWithoutUserId: ['register', changed((body: { user: UserBody }) => ({ ...body, user: { ...body.user, id: '' } }))],
  // The form was sent with the email of an existing account.
  registrationConflict: ['register', fromServer],
  // The path's account has an authenticator app (set up through the API when the path begins).
  loginAsksSecondFactor: ['login', fromServer],
  secondFactorPassed: ['mfa', fromServer],
  secondFactorWithoutUserId: ['mfa', changed((body: { user: UserBody }) => ({ ...body, user: { ...body.user, id: '' } }))],
  // The step was sent a wrong code.
  secondFactorRefused: ['mfa', fromServer],
  // Five minutes cannot pass in a test: the server's answer for a spent step stands in.
  secondFactorExpired: ['mfa', (route) => answerError(route, 401, 'mfa_token_invalid', 'This sign-in has expired or had too many tries. Please sign in again.')],
  loggedOut: ['logout', fromServer],
  logoutNetworkError: ['logout', cutOff],
  refreshed: ['refresh', fromServer],
  refreshRefused: ['refresh', afterSessionEnded],
};

const OUTCOME_NAMES = Object.keys(authOutcomes) as AuthOutcome[];
function outcomeOf(event: EventObject): AuthOutcome {
  const name = OUTCOME_NAMES.find((key) => authOutcomes[key] === event);
  if (!name) throw new Error(`not one of the model's outcomes: ${JSON.stringify(event)}`);
  return name;
}

/**
 * The model fixes whether a token is stored when the chart checks (`hasStoredToken`). In the family
 * without one, a sign-in in another tab must find no token: this listener, added before the app's,
 * takes away what the other tab wrote before the app reads it.
 */
/** The virtual authenticator of each tab (DevTools protocol, WebAuthn domain), made on first use. */
const authenticators = new WeakMap<Page, Promise<{ cdp: CDPSession; authenticatorId: string }>>();
function authenticatorOf(page: Page) {
  let made = authenticators.get(page);
  if (!made) {
    made = (async () => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      return { cdp, authenticatorId };
    })();
    authenticators.set(page, made);
  }
  return made;
}

/**
 * Registers a passkey for the account through the API (a software authenticator answers the
 * ceremony) and puts the same passkey in the tab's virtual authenticator, alone: the page's
 * "Sign in with a passkey" then finds it, as on a device the person added it from.
 */
async function passkeyInBrowser(page: Page, account: { email: string; password: string }): Promise<string> {
  const api = apiClient(live.server.baseUrl);
  const { access_token } = await api.login(account.email, account.password);
  const device = new SoftAuthenticator(live.server.baseUrl);
  const options = await api.call<never>('POST', '/webauthn/register/options', {}, access_token);
  const added = await api.call<{ id: string }>('POST', '/webauthn/register', { credential: device.register(options.body), name: 'Laptop' }, access_token);
  if (added.status !== 201) throw new Error(`POST /webauthn/register answered ${added.status}`);
  const { cdp, authenticatorId } = await authenticatorOf(page);
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: device.forBrowser() });
  return added.body.id;
}

function forgetSignInsElsewhere(keys: string[]): void {
  window.addEventListener('storage', (event) => {
    if (event.key === keys[0] && event.oldValue === null && event.newValue !== null) keys.forEach((key) => localStorage.removeItem(key));
  });
}

/** Tokens stored as the app stores them on signing in: the access token, then the refresh token. */
function writeTokens({ tokens, keys }: { tokens: TokenPair; keys: string[] }): void {
  // Pages hear "signed in elsewhere" only when an access token appears where there was none.
  if (localStorage.getItem(keys[0]!) !== null) localStorage.removeItem(keys[0]!);
  localStorage.setItem(keys[0]!, tokens.access_token);
  localStorage.setItem(keys[1]!, tokens.refresh_token);
}

describeChartPaths('auth chart, generated paths, in Chromium against the real server', 'auth', { coverage: authCoverage, paths: authPaths }, async ({ path, storedToken }) => {
  const { baseUrl } = live.server;
  const api = apiClient(baseUrl);
  const sessions = new Map<string, string>();
  let account: Promise<Account> | undefined;
  // A path through the second step signs in to an account with an authenticator app.
  const withSecondFactor = path.steps.some((step) => step.event === authOutcomes.loginAsksSecondFactor);
  const accountOnce = () =>
    (account ??= (async () => {
      const details = uniqueAccount(registration.full_name, credentials.password);
      const tokens = await api.register(details);
      sessions.set(tokens.refresh_token, tokens.access_token);
      const made: Account = { ...details, access_token: tokens.access_token, refresh_token: tokens.refresh_token };
      if (withSecondFactor) {
        made.secondFactor = { ...(await setUpAuthenticator(api, tokens.access_token)), used: 0 };
      }
      return made;
    })());

  // A stored session to start from: refused at once when the path's first step says so.
  let seed: Record<string, string> = {};
  if (storedToken) {
    const { access_token, refresh_token } = await accountOnce();
    const refused = path.steps[1]?.event === authOutcomes.userTokenRefused;
    seed = storedTokens({ access_token: refused ? revokedAccess : access_token, refresh_token });
  }
  const { context, page, close } = await openTab(live.browser, seed);
  try {
    let other: Page | undefined;
    const run: Run = {
      held: await HeldCalls.on(page, CALLS),
      sessions,
      account: accountOnce,
      otherTab: async () => {
        if (!other) {
          other = await context.newPage();
          await other.goto(`${baseUrl}/api/v1/health`);
        }
        return other;
      },
    };
    if (storedToken) run.signedInAs = await accountOnce();
    else await page.addInitScript(forgetSignInsElsewhere, [ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY]);

    const nextEvent = (step: { event: EventObject }) => path.steps[path.steps.findIndex((s) => s === step) + 1]?.event;
    /** Goes to a signed-out page the way a user does: through the top bar's link. */
    const showPage = async (pathname: string, link: string) => {
      if (new URL(page.url()).pathname !== pathname) await page.getByRole('banner').getByRole('link', { name: link, exact: true }).click();
    };
    const field = (label: string) => page.getByLabel(labelled(label));

    const events: Record<string, (step: { event: EventObject }) => Promise<void>> = {
      'login.submit': async (step) => {
        const { email, password } = await run.account();
        run.signedInAs = { email, password };
        await showPage('/login', layout.login);
        await field(messages.login.email).fill(email);
        await field(messages.login.password).fill(nextEvent(step) === authOutcomes.loginRefused ? `Not-${password}` : password);
        await page.getByRole('button', { name: messages.login.submit, exact: true }).click();
      },
      'passkey.submit': async () => {
        const account = await run.account();
        run.signedInAs = account;
        run.passkeyId = await passkeyInBrowser(page, account);
        await showPage('/login', layout.login);
        await page.getByRole('button', { name: messages.login.passkey, exact: true }).click();
      },
      'register.submit': async (step) => {
        const details = uniqueAccount(registration.full_name, credentials.password);
        if (nextEvent(step) === authOutcomes.registrationConflict) details.email = (await run.account()).email;
        run.signedInAs = details;
        await showPage('/register', layout.signUp);
        const t = messages.register;
        await field(t.fullName).fill(details.full_name);
        await field(t.username).fill(details.username);
        await field(t.email).fill(details.email);
        await field(t.password).fill(details.password);
        await field(t.confirmPassword).fill(details.password);
        await page.getByRole('button', { name: t.submit, exact: true }).click();
      },
      logout: async () => {
        await page.getByRole('banner').getByRole('button', { name: layout.logout, exact: true }).click();
      },
      // The right code when the step passes (the app's next one, or an unused recovery code), a wrong one when it is refused.
      'mfa.submit': async (step) => {
        const { secondFactor } = await run.account();
        const t = messages.secondStep;
        const recovery = await page.getByLabel(labelled(t.recoveryLabel)).isVisible();
        const right = nextEvent(step) === authOutcomes.secondFactorPassed || nextEvent(step) === authOutcomes.secondFactorWithoutUserId;
        const code = !right ? (recovery ? 'wrong-code' : '000000') : recovery ? secondFactor!.recoveryCodes[secondFactor!.used++]! : authenticatorCode(secondFactor!.secret, 30_000);
        await field(recovery ? t.recoveryLabel : t.totpLabel).fill(code);
        await page.getByRole('button', { name: t.submit, exact: true }).click();
      },
      'mfa.method': async ({ event }) => {
        const t = messages.secondStep;
        const { method } = event as Extract<AuthEvent, { type: 'mfa.method' }>;
        await page.getByRole('button', { name: method === 'recovery_code' ? t.useRecovery : t.useTotp, exact: true }).click();
      },
      'mfa.cancel': async () => {
        await page.getByRole('button', { name: messages.secondStep.back, exact: true }).click();
      },
      // A request of the next page is refused with 401 (the server's own, for a token of an ended
      // session). For the stale case the tokens have been replaced meanwhile: by signing in again,
      // since a refresh within the same second can hand out the very same access token.
      'session.expired': async ({ event }) => {
        const stale = event === authUserEvents.expiredStale;
        expect(new URL(page.url()).pathname).not.toBe('/subscription');
        let refused = false;
        await page.route('**/api/v1/subscription/me', async (route) => {
          if (refused || new URL(page.url()).pathname !== '/subscription') return route.fallback();
          refused = true;
          if (stale) {
            const tokens = await api.login(run.signedInAs!.email, run.signedInAs!.password);
            remember(run, tokens);
            await page.evaluate(writeTokens, { tokens, keys: [ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY] });
          }
          await route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${revokedAccess}` } });
        });
        await page.getByRole('navigation', { name: layout.mainNav }).getByRole('link', { name: layout.subscription, exact: true }).click();
        // Stale: the request is simply sent again with the new token. Current: the page asks for new tokens.
        if (stale) await seesInBrowser(page, [{ role: 'heading', level: 1, name: messages.subscription.heading }]);
        else await run.held.arrived('refresh');
      },
      'session.signedOutElsewhere': async () => {
        const tab = await run.otherTab();
        await tab.evaluate((keys) => keys.forEach((key) => localStorage.removeItem(key)), [ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY]);
      },
      'session.signedInElsewhere': async () => {
        const { email, password } = await run.account();
        const tokens = await api.login(email, password);
        remember(run, tokens);
        const tab = await run.otherTab();
        await tab.evaluate(writeTokens, { tokens, keys: [ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY] });
        // With a token stored, the page asks the server who is signed in now.
        if (storedToken) await run.held.arrived('me');
      },
      [afterEvent('loginRedirectDelay')]: async () => {
        await page.waitForURL(`${baseUrl}/dashboard`);
      },
    };
    for (const { type } of Object.values(authOutcomes)) {
      events[type] ??= async ({ event }) => {
        const [call, answer] = ANSWERS[outcomeOf(event)];
        await answer(await run.held.take(call), run);
      };
    }

    await page.goto(`${baseUrl}/dashboard`);
    await path.test({ states: inBrowser(page, authViews), events });
  } finally {
    await close();
  }
});
