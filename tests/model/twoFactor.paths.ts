import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { twoFactorMachine, type TwoFactorEvent } from '../../machines/twoFactor/twoFactor.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../../machines/shared/api';
import type { ErrorCode } from '../../contract/errors';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { labelled, type Sight } from '../helpers/sights';

/**
 * The profile's "Two-step sign-in" as a test model, for the jsdom replay
 * (tests/model/twoFactor.model.test.tsx): how each of its calls may end, the generated paths, and
 * what the section shows in each state.
 */

const t = messages.security;
export const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const setup = { secret: SECRET, otpauth_url: `otpauth://totp/SheetMind:ada%40example.com?secret=${SECRET}&issuer=SheetMind` };
export const CODES = Array.from({ length: 10 }, (_, i) => `abcde-${String(i).padStart(5, '0')}`);
const off = { totp_enabled: false, totp_enabled_at: null, recovery_codes_left: 0, passkeys: 0 };
const on = { totp_enabled: true, totp_enabled_at: '2026-11-20T10:00:00.000Z', recovery_codes_left: 7, passkeys: 0 };
export const WRONG_CODE = 'That code is not valid. Enter the current code from your authenticator app.';
export const WRONG_PASSWORD = 'The password is not correct.';
const wrong = (code: ErrorCode, message: string) => new ApiRequestError('API Error: Bad Request', 400, code, message);

export const twoFactorOutcomes = {
  statusOff: { type: 'xstate.done.actor.loadStatus', output: off },
  statusOn: { type: 'xstate.done.actor.loadStatus', output: on },
  statusFailed: { type: 'xstate.error.actor.loadStatus', error: new ApiRequestError(messages.api.network, 0) },
  setupStarted: { type: 'xstate.done.actor.startSetup', output: setup },
  setupRefused: { type: 'xstate.error.actor.startSetup', error: new ApiRequestError('API Error: Conflict', 409, 'totp_already_enabled', 'Two-step sign-in with an authenticator app is already on.') },
  confirmed: { type: 'xstate.done.actor.confirmSetup', output: { recovery_codes: CODES } },
  codeRefused: { type: 'xstate.error.actor.confirmSetup', error: wrong('invalid_code', WRONG_CODE) },
  disabled: { type: 'xstate.done.actor.disable', output: undefined },
  disableRefused: { type: 'xstate.error.actor.disable', error: wrong('invalid_password', WRONG_PASSWORD) },
  renewed: { type: 'xstate.done.actor.renewCodes', output: { recovery_codes: CODES } },
  renewRefused: { type: 'xstate.error.actor.renewCodes', error: wrong('invalid_password', WRONG_PASSWORD) },
  copied: { type: 'xstate.done.actor.copyCodes', output: undefined },
  copyRefused: { type: 'xstate.error.actor.copyCodes', error: new Error('NotAllowedError') },
} satisfies Record<string, ActorOutcome>;

export const twoFactorUserEvents = {
  retry: { type: 'twoFactor.retry' },
  setup: { type: 'twoFactor.setup' },
  confirm: { type: 'twoFactor.confirm', code: '123456' },
  cancel: { type: 'twoFactor.cancel' },
  askDisable: { type: 'twoFactor.askDisable' },
  askRenew: { type: 'twoFactor.askRenew' },
  password: { type: 'twoFactor.password', password: 'Analytical-Engine-1843' },
  copy: { type: 'twoFactor.copy' },
  download: { type: 'twoFactor.download' },
  codesSaved: { type: 'twoFactor.codesSaved' },
} satisfies Record<string, TwoFactorEvent>;

export type TwoFactorSnapshot = SnapshotFrom<typeof twoFactorMachine>;

const userEvents = Object.values(twoFactorUserEvents) as TwoFactorEvent[];
const model = createTestModel(toTestModelMachine(twoFactorMachine.provide({ actions: { notify: () => undefined, download: () => undefined } })), {
  input: { auth: null },
  // A person only sends what the section offers: the guarded buttons show only when they apply.
  events: (state: TwoFactorSnapshot) => [...Object.values(twoFactorOutcomes), ...userEvents.filter((event) => state.can(event))],
  // What the section shows: the state, whether the app is on, whether a refusal or a copy stands.
  serializeState: (state: TwoFactorSnapshot) =>
    JSON.stringify([state.value, state.context.status?.totp_enabled ?? null, state.context.failure !== null, state.context.copied]),
} as never);

export const twoFactorPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const twoFactorCoverage = chartCoverage(twoFactorMachine, twoFactorPaths.map(({ path }) => path));

const section = { role: 'region', name: t.title } as const;

/** What the section shows in each state of the chart. */
export const twoFactorViews = {
  loading: () => [{ in: section, text: t.loading }],
  failed: () => [{ in: section, role: 'button', name: t.retry }, { in: section, text: messages.auth.networkFailure }],
  ready: (state) =>
    state.context.status?.totp_enabled
      ? [
          { in: section, text: t.codesLeft(7) },
          { in: section, role: 'button', name: t.turnOff },
          { in: section, role: 'button', name: t.newCodes },
          { in: section, role: 'button', name: t.setUp, absent: true },
        ]
      : [{ in: section, text: t.off }, { in: section, role: 'button', name: t.setUp }, { in: section, role: 'button', name: t.turnOff, absent: true }],
  startingSetup: () => [{ in: section, role: 'button', name: t.settingUpBusy }],
  settingUp: (state) => [
    { in: section, role: 'img', name: t.qrLabel },
    { in: section, text: 'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP' },
    { in: section, label: labelled(t.codeLabel) },
    ...(state.context.failure ? [{ in: section, text: WRONG_CODE }] : []),
  ],
  confirming: () => [{ in: section, role: 'button', name: t.turningOn }],
  askingDisable: (state) => [{ in: section, label: labelled(t.password) }, { in: section, text: t.turnOffLead }, ...(state.context.failure ? [{ in: section, text: WRONG_PASSWORD }] : [])],
  disabling: () => [{ in: section, role: 'button', name: t.turningOff }],
  askingRenew: (state) => [{ in: section, label: labelled(t.password) }, { in: section, text: t.newCodesLead }, ...(state.context.failure ? [{ in: section, text: WRONG_PASSWORD }] : [])],
  renewing: () => [{ in: section, role: 'button', name: t.newCodesBusy }],
  'showingCodes.shown': (state) => [
    { in: section, text: t.codesTitle },
    { in: section, text: CODES[0]! },
    { in: section, text: CODES[9]! },
    ...(state.context.copied === 'copied' ? [{ in: section, text: t.copied }] : state.context.copied === 'copyFailed' ? [{ in: section, text: t.copyFailed }] : []),
  ],
  'showingCodes.copying': () => [{ in: section, text: CODES[0]! }],
} satisfies Record<string, (state: TwoFactorSnapshot) => Sight[]>;
