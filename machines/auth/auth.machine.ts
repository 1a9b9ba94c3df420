// The authentication chart (loading / signedIn / signedOut with refresh-and-retry). Over 300 lines
// because it is one statechart: splitting its states across files would hide the transitions that
// the visualizer and the generated paths read as one.
import { assign, setup } from 'xstate';
import { ApiRequestError, type AuthResponse, type User } from '../shared/api';
import { hasStoredSession, tokenStorage, type TokenPair } from '../shared/tokenStorage';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';
import type { MfaRequired, SecondFactorMethod } from '../../contract/security';
import { authActors, type LoginInput, type RegisterInput } from './auth.actors';
import { isExpiredSecondStep, loginFailure, passkeyLoginFailure, registrationFailure, secondFactorFailure, type Failure } from './auth.errors';
import { reportFailure } from '../shared/failures';
import type { NotifyParams } from '../shared/notify';

/** How long the "Welcome back!" moment lasts before the login page moves on (product spec §9). */
export const LOGIN_REDIRECT_DELAY_MS = 1000;
export const DEFAULT_AFTER_LOGIN = '/dashboard';

export interface AuthContext {
  user: User | null;
  /** The last sign-in or registration failure, shown until the next attempt. */
  failure: Failure | null;
  /** Where to go once signed in: the page the guard stopped, or the dashboard. */
  redirectTo: string;
  /** The access token the start-up fetch was sent with: a 401 refreshes only if it is still current. */
  startupToken: string | null;
  /** After the right password, for an account with a second factor: the sign-in's token, its methods and the one chosen. */
  secondFactor: { token: string; methods: SecondFactorMethod[]; method: SecondFactorMethod } | null;
}

export type AuthEvent =
  | ({ type: 'login.submit'; redirectTo?: string } & LoginInput)
  | ({ type: 'register.submit'; redirectTo?: string } & RegisterInput)
  /** The second step of a sign-in: a code of the chosen method (an app's or a recovery code). */
  | { type: 'mfa.submit'; code: string }
  | { type: 'mfa.method'; method: SecondFactorMethod }
  | { type: 'mfa.cancel' }
  /** The second step with one of the account's passkeys instead of a code. */
  | { type: 'mfa.passkey' }
  /** "Sign in with a passkey": the browser offers the passkeys it holds for this site. */
  | { type: 'passkey.submit'; redirectTo?: string }
  | { type: 'logout' }
  /** A request was refused with 401 while carrying `accessToken`. */
  | { type: 'session.expired'; accessToken: string | null }
  | { type: 'session.signedInElsewhere' }
  | { type: 'session.signedOutElsewhere' }
  /** The signed-in account's address was verified (the /verify-email page, the banner). */
  | { type: 'user.emailVerified' }
  /** A second factor was added in this session: the team's requirement no longer holds it back. */
  | { type: 'user.secondFactorAdded' }
  /** The account is in no team (it left one, or the team page found none): no team's requirement holds it back. */
  | { type: 'user.inNoTeam' };

// Guard parameters inside transition arrays are not inferred; these name the event shapes.
type ErrorEvent = { event: { error: unknown } };
type DoneEvent<T> = { event: { output: T } };

/** The spec's rule for a usable user: it has an id and an email. */
function isValidUser(user: unknown): user is User {
  const candidate = user as Partial<User> | null | undefined;
  return Boolean(candidate && typeof candidate.id === 'string' && candidate.id && typeof candidate.email === 'string' && candidate.email);
}

const invalidUser: Failure = { title: 'auth.loginFailed', description: 'auth.invalidUser' };

/** A sign-in answer that asks for a second factor rather than carrying tokens. */
function asksSecondFactor(response: unknown): response is MfaRequired {
  const candidate = response as Partial<MfaRequired> | null | undefined;
  return Boolean(candidate?.mfa_required && typeof candidate.mfa_token === 'string' && Array.isArray(candidate.methods) && candidate.methods.length > 0);
}

/** A sign-in or registration failed: the form keeps the failure, and it is reported (the error toast). */
function rejectAttempt<Args>(failure: Failure | ((args: Args) => Failure)) {
  return [{ type: 'assignFailure' as const, params: failure }, reportFailure(failure)];
}

/**
 * Authentication: loading → signedIn | signedOut. Refresh-and-retry is a state (`refreshing`)
 * both on start-up and while signed in; every effect is a named actor or action, so tests and
 * the app provide their own (`machine.provide`).
 */
export const authMachine = setup({
  types: {
    context: {} as AuthContext,
    events: {} as AuthEvent,
  },
  actors: authActors,
  actions: {
    storeTokens: (_, tokens: TokenPair) => tokenStorage.start(tokens),
    removeTokens: () => tokenStorage.clear(),
    assignUser: assign({ user: (_, user: User) => user }),
    /** The session check the page sent early has answered already (machines/shared/earlyCalls.ts): the chart starts signed in with it. */
    assignKnownUser: assign({ user: () => knownAnswer<User>(LOAD_PATHS.me)!, startupToken: () => tokenStorage.read().accessToken }),
    /** Spends that answer, and remembers the team role it gives, as the session check's own call does (auth.actors.ts, `fetchUser`). */
    takeKnownUser: ({ context }) => {
      takeKnownAnswer(LOAD_PATHS.me);
      if (context.user) tokenStorage.writeTeamRoleOf(context.user);
    },
    markEmailVerified: assign({ user: ({ context }) => (context.user ? { ...context.user, email_verified: true } : null) }),
    release: assign({ user: ({ context }) => (context.user ? { ...context.user, two_factor_required: false } : null) }),
    clearUser: assign({ user: null }),
    assignFailure: assign({ failure: (_, failure: Failure) => failure }),
    clearFailure: assign({ failure: null }),
    /** The app's code first when the account has one, else what it has. */
    startSecondStep: assign({
      secondFactor: (_, { mfa_token, methods }: MfaRequired) => ({
        token: mfa_token,
        methods,
        method: methods.includes('totp') ? ('totp' as const) : methods[0]!,
      }),
    }),
    chooseMethod: assign({
      secondFactor: ({ context }, method: SecondFactorMethod) => (context.secondFactor ? { ...context.secondFactor, method } : null),
    }),
    endSecondStep: assign({ secondFactor: null }),
    rememberRedirect: assign({ redirectTo: (_, to: string | undefined) => to || DEFAULT_AFTER_LOGIN }),
    /** Shows a toast; the app provides the real one. */
    notify: (_, _params: NotifyParams) => undefined,
    /** Moves to another page; the app provides the router's navigate. */
    navigate: (_, _params: { to: string }) => undefined,
  },
  guards: {
    hasStoredToken: () => hasStoredSession(),
    hasKnownUser: () => hasStoredSession() && isValidUser(knownAnswer(LOAD_PATHS.me)),
    isUnauthorized: (_, error: unknown) => error instanceof ApiRequestError && error.status === 401,
    isValidUser: (_, user: unknown) => isValidUser(user),
    hasNoUser: (_, response: AuthResponse) => response.user === undefined || response.user === null,
    asksSecondFactor: (_, response: unknown) => asksSecondFactor(response),
    /** The second step's token is spent (expired, used, out of tries): only a new sign-in helps. */
    isExpiredSecondStep: (_, error: unknown) => isExpiredSecondStep(error),
    offersMethod: ({ context }, method: SecondFactorMethod) => Boolean(context.secondFactor?.methods.includes(method)),
    /** Another method the account has than the one on screen. */
    offersOtherMethod: ({ context }, method: SecondFactorMethod) => Boolean(context.secondFactor?.methods.includes(method) && context.secondFactor.method !== method),
    /** A 401 for the token in use now; an older token's 401 needs no refresh, only a retry. */
    isCurrentToken: (_, accessToken: string | null) => accessToken === tokenStorage.read().accessToken,
  },
  delays: {
    loginRedirectDelay: LOGIN_REDIRECT_DELAY_MS,
  },
}).createMachine({
  id: 'auth',
  context: { user: null, failure: null, redirectTo: DEFAULT_AFTER_LOGIN, startupToken: null, secondFactor: null },
  invoke: { id: 'storageEvents', src: 'storageEvents' },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      initial: 'checking',
      states: {
        checking: {
          always: [
            { guard: 'hasKnownUser', target: '#auth.signedIn', actions: ['assignKnownUser', 'takeKnownUser'] },
            {
              guard: 'hasStoredToken',
              target: 'fetchingUser',
              actions: assign({ startupToken: () => tokenStorage.read().accessToken }),
            },
            { target: '#auth.signedOut' },
          ],
        },
        fetchingUser: {
          invoke: {
            id: 'fetchUser',
            src: 'fetchUser',
            onDone: {
              target: '#auth.signedIn',
              actions: { type: 'assignUser', params: ({ event }) => event.output },
            },
            onError: [
              { guard: { type: 'isUnauthorized', params: ({ event }: ErrorEvent) => event.error }, target: 'refreshing' },
              { target: '#auth.signedOut', actions: 'removeTokens' },
            ],
          },
        },
        refreshing: {
          tags: ['refreshing'],
          invoke: {
            id: 'startupRefresh',
            src: 'refreshTokens',
            // Another tab may have refreshed meanwhile: the lock then hands over its pair.
            input: ({ context }) => ({ failedAccessToken: context.startupToken }),
            onDone: 'retryingUser',
            onError: { target: '#auth.signedOut', actions: 'removeTokens' },
          },
        },
        retryingUser: {
          invoke: {
            id: 'retryUser',
            src: 'fetchUser',
            onDone: {
              target: '#auth.signedIn',
              actions: { type: 'assignUser', params: ({ event }) => event.output },
            },
            onError: { target: '#auth.signedOut', actions: 'removeTokens' },
          },
        },
      },
    },

    signedOut: {
      tags: ['signedOut'],
      entry: 'clearUser',
      initial: 'idle',
      on: {
        // What this tab was in the middle of (a failure shown, a second step) ends with it.
        'session.signedInElsewhere': { target: '#auth.loading', actions: ['clearFailure', 'endSecondStep'] },
      },
      states: {
        idle: {
          on: {
            'login.submit': {
              target: 'signingIn',
              actions: ['clearFailure', { type: 'rememberRedirect', params: ({ event }) => event.redirectTo }],
            },
            'register.submit': {
              target: 'registering',
              actions: ['clearFailure', { type: 'rememberRedirect', params: ({ event }) => event.redirectTo }],
            },
            'passkey.submit': {
              target: 'signingInWithPasskey',
              actions: ['clearFailure', { type: 'rememberRedirect', params: ({ event }) => event.redirectTo }],
            },
          },
        },
        /** The server's options, the browser's passkey prompt, then the answer checked: a sign-in like the password's from there. */
        signingInWithPasskey: {
          tags: ['busy'],
          invoke: {
            id: 'passkeySignIn',
            src: 'passkeySignIn',
            onDone: [
              {
                guard: { type: 'isValidUser', params: ({ event }: DoneEvent<AuthResponse>) => event.output.user },
                target: '#auth.signedIn.welcoming',
                actions: [
                  { type: 'storeTokens', params: ({ event }) => event.output },
                  { type: 'assignUser', params: ({ event }) => event.output.user as User },
                ],
              },
              { target: 'idle', actions: rejectAttempt(invalidUser) },
            ],
            onError: { target: 'idle', actions: rejectAttempt(({ event }: ErrorEvent) => passkeyLoginFailure(event.error)) },
          },
        },
        signingIn: {
          tags: ['busy'],
          invoke: {
            id: 'login',
            src: 'login',
            input: ({ event }) => {
              const { email, password } = event as Extract<AuthEvent, { type: 'login.submit' }>;
              return { email, password };
            },
            onDone: [
              {
                guard: { type: 'asksSecondFactor', params: ({ event }: DoneEvent<AuthResponse>) => event.output },
                target: 'secondFactor',
                actions: { type: 'startSecondStep', params: ({ event }) => event.output as unknown as MfaRequired },
              },
              {
                guard: { type: 'isValidUser', params: ({ event }: DoneEvent<AuthResponse>) => event.output.user },
                target: '#auth.signedIn.welcoming',
                actions: [
                  { type: 'storeTokens', params: ({ event }) => event.output },
                  { type: 'assignUser', params: ({ event }) => event.output.user as User },
                ],
              },
              {
                guard: { type: 'hasNoUser', params: ({ event }) => event.output },
                target: 'fetchingLoginUser',
                actions: { type: 'storeTokens', params: ({ event }) => event.output },
              },
              { target: 'idle', actions: rejectAttempt(invalidUser) },
            ],
            onError: { target: 'idle', actions: rejectAttempt(({ event }: ErrorEvent) => loginFailure(event.error)) },
          },
        },
        /** The right password of an account with a second factor: its code (or a passkey) finishes the sign-in. */
        secondFactor: {
          tags: ['secondFactor'],
          on: {
            'mfa.submit': { target: 'verifyingSecondFactor', actions: 'clearFailure' },
            'mfa.passkey': { guard: { type: 'offersMethod', params: 'webauthn' }, target: 'verifyingSecondFactor', actions: 'clearFailure' },
            'mfa.method': {
              guard: { type: 'offersOtherMethod', params: ({ event }) => event.method },
              actions: ['clearFailure', { type: 'chooseMethod', params: ({ event }) => event.method }],
            },
            'mfa.cancel': { target: 'idle', actions: ['clearFailure', 'endSecondStep'] },
          },
        },
        verifyingSecondFactor: {
          tags: ['busy', 'secondFactor'],
          invoke: {
            id: 'secondFactor',
            src: 'loginSecondFactor',
            input: ({ context, event }) =>
              event.type === 'mfa.passkey'
                ? { mfa_token: context.secondFactor!.token, method: 'webauthn' as const, code: '' }
                : { mfa_token: context.secondFactor!.token, method: context.secondFactor!.method, code: (event as Extract<AuthEvent, { type: 'mfa.submit' }>).code },
            onDone: [
              {
                guard: { type: 'isValidUser', params: ({ event }: DoneEvent<AuthResponse>) => event.output.user },
                target: '#auth.signedIn.welcoming',
                actions: [
                  'endSecondStep',
                  { type: 'storeTokens', params: ({ event }) => event.output },
                  { type: 'assignUser', params: ({ event }) => event.output.user as User },
                ],
              },
              { target: 'idle', actions: ['endSecondStep', ...rejectAttempt(invalidUser)] },
            ],
            onError: [
              {
                guard: { type: 'isExpiredSecondStep', params: ({ event }: ErrorEvent) => event.error },
                target: 'idle',
                actions: ['endSecondStep', ...rejectAttempt(({ event }: ErrorEvent) => secondFactorFailure(event.error))],
              },
              { target: 'secondFactor', actions: rejectAttempt(({ event }: ErrorEvent) => secondFactorFailure(event.error)) },
            ],
          },
        },
        fetchingLoginUser: {
          tags: ['busy'],
          invoke: {
            id: 'loginUser',
            src: 'fetchUser',
            onDone: [
              {
                guard: { type: 'isValidUser', params: ({ event }: DoneEvent<User>) => event.output },
                target: '#auth.signedIn.welcoming',
                actions: { type: 'assignUser', params: ({ event }) => event.output },
              },
              {
                target: 'idle',
                actions: ['removeTokens', ...rejectAttempt(invalidUser)],
              },
            ],
            onError: {
              target: 'idle',
              actions: ['removeTokens', ...rejectAttempt(({ event }: ErrorEvent) => loginFailure(event.error))],
            },
          },
        },
        registering: {
          tags: ['busy'],
          invoke: {
            id: 'register',
            src: 'register',
            input: ({ event }) => {
              const { email, password, full_name, username } = event as Extract<AuthEvent, { type: 'register.submit' }>;
              return { email, password, full_name, username };
            },
            onDone: [
              {
                guard: { type: 'isValidUser', params: ({ event }: DoneEvent<AuthResponse>) => event.output.user },
                target: '#auth.signedIn.active',
                actions: [
                  { type: 'storeTokens', params: ({ event }) => event.output },
                  { type: 'assignUser', params: ({ event }) => event.output.user as User },
                  { type: 'notify', params: { type: 'success', title: 'auth.accountCreated', description: 'auth.accountCreatedText' } },
                  // An invitation link sent the visitor here: back to it, to accept.
                  { type: 'navigate', params: ({ context }) => ({ to: context.redirectTo }) },
                ],
              },
              { target: 'idle', actions: rejectAttempt({ title: 'auth.registrationFailed', description: 'auth.invalidUser' }) },
            ],
            onError: { target: 'idle', actions: rejectAttempt(({ event }: ErrorEvent) => registrationFailure(event.error)) },
          },
        },
      },
    },

    signedIn: {
      tags: ['signedIn'],
      initial: 'active',
      on: {
        'session.signedOutElsewhere': {
          target: 'signedOut',
          actions: { type: 'notify', params: { type: 'info', title: 'auth.loggedOut', description: 'auth.loggedOutText' } },
        },
        'user.emailVerified': { actions: 'markEmailVerified' },
        'user.secondFactorAdded': { actions: 'release' },
        'user.inNoTeam': { actions: 'release' },
      },
      states: {
        /** Just signed in: the welcome toast shows, then the login page moves on; until it has, the sign-in is not over. */
        welcoming: {
          tags: ['busy'],
          on: { logout: 'loggingOut' },
          entry: { type: 'notify', params: { type: 'success', title: 'auth.welcomeBack', description: 'auth.welcomeBackText' } },
          after: {
            loginRedirectDelay: {
              target: 'active',
              actions: { type: 'navigate', params: ({ context }) => ({ to: context.redirectTo }) },
            },
          },
        },
        active: {
          on: {
            logout: 'loggingOut',
            'session.expired': {
              guard: { type: 'isCurrentToken', params: ({ event }) => event.accessToken },
              target: 'refreshing',
            },
          },
        },
        /** One refresh for every request that was refused meanwhile (they wait, then retry once). */
        refreshing: {
          tags: ['refreshing'],
          on: { logout: 'loggingOut' },
          invoke: {
            id: 'refresh',
            src: 'refreshTokens',
            input: ({ event }) => ({
              failedAccessToken: (event as Extract<AuthEvent, { type: 'session.expired' }>).accessToken ?? null,
            }),
            onDone: 'active',
            onError: {
              target: '#auth.signedOut',
              actions: [
                'removeTokens',
                { type: 'notify', params: { type: 'info', title: 'auth.sessionEnded', description: 'auth.sessionEndedText' } },
              ],
            },
          },
        },
        loggingOut: {
          tags: ['busy'],
          invoke: {
            id: 'logout',
            src: 'logout',
            // Whatever the server answers, this browser forgets the session (product spec §4).
            onDone: {
              target: '#auth.signedOut',
              actions: ['removeTokens', { type: 'notify', params: { type: 'success', title: 'auth.loggedOut', description: 'auth.loggedOutText' } }],
            },
            onError: {
              target: '#auth.signedOut',
              actions: ['removeTokens', { type: 'notify', params: { type: 'success', title: 'auth.loggedOut', description: 'auth.loggedOutText' } }],
            },
          },
        },
      },
    },
  },
});

export type AuthMachine = typeof authMachine;
