import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { serverFailure } from '../shared/failures';
import type { Message } from '../shared/messages';
import type { NotifyParams } from '../shared/notify';
import type { SecondFactorStatus, TotpSetup } from '../shared/api';
import { downloadCodes, knownStatus, takeKnownStatus, twoFactorActors } from './twoFactor.actors';

export interface TwoFactorContext {
  auth: AuthActorRef;
  status: SecondFactorStatus | null;
  /** The secret and its otpauth URI while set-up waits for the first code. */
  setup: TotpSetup | null;
  /** Recovery codes, shown this once. */
  codes: string[] | null;
  /** Whether the codes went to the clipboard (`copied`) or could not (`copyFailed`). */
  copied: 'copied' | 'copyFailed' | null;
  /** The last refusal, shown where it happened until the next try. */
  failure: Message | null;
}

export type TwoFactorEvent =
  | { type: 'twoFactor.retry' }
  | { type: 'twoFactor.setup' }
  | { type: 'twoFactor.confirm'; code: string }
  | { type: 'twoFactor.cancel' }
  | { type: 'twoFactor.askDisable' }
  | { type: 'twoFactor.askRenew' }
  | { type: 'twoFactor.password'; password: string }
  | { type: 'twoFactor.copy' }
  | { type: 'twoFactor.download' }
  | { type: 'twoFactor.codesSaved' };

type ErrorEvent = { event: { error: unknown } };

const twoFactorSetup = setup({
  types: {
    context: {} as TwoFactorContext,
    events: {} as TwoFactorEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy' | 'loading',
  },
  actors: twoFactorActors,
  actions: {
    fail: assign({ failure: (_, error: unknown) => serverFailure(error) }),
    clearFailure: assign({ failure: null }),
    download: ({ context }) => downloadCodes(context.codes ?? []),
    /** Shows a toast; the app provides the real one. */
    notify: (_, _params: NotifyParams) => undefined,
    /** The account has a second factor now; the app tells the auth chart. */
    secondFactorAdded: () => undefined,
    takeKnown: () => takeKnownStatus(),
  },
  guards: {
    isKnown: () => knownStatus() !== undefined,
    isOn: ({ context }) => Boolean(context.status?.totp_enabled),
    isOff: ({ context }) => context.status !== null && !context.status.totp_enabled,
  },
});

const passwordStep = (target: 'disabling' | 'renewing') => ({
  on: {
    'twoFactor.password': { target, actions: 'clearFailure' as const },
    'twoFactor.cancel': { target: '#twoFactor.ready', actions: 'clearFailure' as const },
  },
});

/**
 * The profile's "Two-step sign-in" (decisions.md, "Advanced security"): the status loads (or is
 * there at once, when the page's early call has it in already: `knownStatus`); set-up
 * shows a QR code and the secret and waits for the app's first code; turning it on shows ten
 * recovery codes once (copy, download), as does renewing them; turning it off and renewing ask
 * for the password. A refusal stays in the step it happened in, with what was typed.
 */
export const twoFactorMachine = twoFactorSetup.createMachine({
  id: 'twoFactor',
  context: ({ input }) => ({ auth: input.auth, status: null, setup: null, codes: null, copied: null, failure: null }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isKnown', target: 'ready', actions: [assign({ status: () => knownStatus()! }), 'takeKnown'] }, { target: 'loading' }],
    },
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadStatus',
        src: 'loadStatus',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'ready', actions: assign({ status: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    failed: { on: { 'twoFactor.retry': { target: 'loading', actions: 'clearFailure' } } },
    ready: {
      on: {
        'twoFactor.setup': { guard: 'isOff', target: 'startingSetup', actions: 'clearFailure' },
        'twoFactor.askDisable': { guard: 'isOn', target: 'askingDisable', actions: 'clearFailure' },
        'twoFactor.askRenew': { guard: 'isOn', target: 'askingRenew', actions: 'clearFailure' },
      },
    },
    startingSetup: {
      tags: ['busy'],
      invoke: {
        id: 'startSetup',
        src: 'startSetup',
        input: ({ context }) => ({ auth: context.auth }),
        onDone: { target: 'settingUp', actions: assign({ setup: ({ event }) => event.output }) },
        onError: { target: 'ready', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    settingUp: {
      on: {
        'twoFactor.confirm': { target: 'confirming', actions: 'clearFailure' },
        'twoFactor.cancel': { target: 'ready', actions: ['clearFailure', assign({ setup: null })] },
      },
    },
    confirming: {
      tags: ['busy'],
      invoke: {
        id: 'confirmSetup',
        src: 'confirmSetup',
        input: ({ context, event }) => ({ auth: context.auth, code: (event as Extract<TwoFactorEvent, { type: 'twoFactor.confirm' }>).code }),
        onDone: {
          target: 'showingCodes',
          actions: [
            assign({ codes: ({ event }) => event.output.recovery_codes, setup: null }),
            'secondFactorAdded',
            { type: 'notify', params: { type: 'success', title: 'security.turnedOn', description: 'security.turnedOnText' } },
          ],
        },
        onError: { target: 'settingUp', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    askingDisable: passwordStep('disabling'),
    disabling: {
      tags: ['busy'],
      invoke: {
        id: 'disable',
        src: 'disable',
        input: ({ context, event }) => ({ auth: context.auth, password: (event as Extract<TwoFactorEvent, { type: 'twoFactor.password' }>).password }),
        onDone: {
          target: 'loading',
          actions: { type: 'notify', params: { type: 'success', title: 'security.turnedOff', description: 'security.turnedOffText' } },
        },
        onError: { target: 'askingDisable', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    askingRenew: passwordStep('renewing'),
    renewing: {
      tags: ['busy'],
      invoke: {
        id: 'renewCodes',
        src: 'renewCodes',
        input: ({ context, event }) => ({ auth: context.auth, password: (event as Extract<TwoFactorEvent, { type: 'twoFactor.password' }>).password }),
        onDone: { target: 'showingCodes', actions: assign({ codes: ({ event }) => event.output.recovery_codes }) },
        onError: { target: 'askingRenew', actions: { type: 'fail', params: ({ event }: ErrorEvent) => event.error } },
      },
    },
    /** The codes, this once: copied or downloaded, then put away (they are never shown again). */
    showingCodes: {
      initial: 'shown',
      on: {
        'twoFactor.download': { actions: 'download' },
        'twoFactor.codesSaved': { target: 'loading', actions: assign({ codes: null, copied: null }) },
      },
      states: {
        shown: { on: { 'twoFactor.copy': 'copying' } },
        copying: {
          invoke: {
            id: 'copyCodes',
            src: 'copyCodes',
            input: ({ context }) => ({ codes: context.codes ?? [] }),
            onDone: { target: 'shown', actions: assign({ copied: 'copied' as const }) },
            onError: { target: 'shown', actions: assign({ copied: 'copyFailed' as const }) },
          },
        },
      },
    },
  },
});

export type TwoFactorMachine = typeof twoFactorMachine;
export type TwoFactorSnapshot = SnapshotFrom<TwoFactorMachine>;
