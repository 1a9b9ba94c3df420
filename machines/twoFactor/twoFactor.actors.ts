import { fromPromise } from 'xstate';
import { request, type RecoveryCodes, type SecondFactorStatus, type TotpSetup } from '../shared/api';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';
import { saveFile } from '../shared/saveFile';

/** The recovery codes as a file: one a line, with what they are for. */
export function recoveryCodesFile(codes: string[], brand = 'SheetMind'): string {
  return [`${brand} recovery codes`, 'Each code signs you in once when your authenticator app is not at hand.', '', ...codes, ''].join('\n');
}

type Opts = { signal?: AbortSignal };

const STATUS = LOAD_PATHS.secondFactors;

/** Second factors on the profile (decisions.md, "Advanced security"). */
/** Its calls live with the chart: only the profile needs them, not every page's first load. */
const securityApi = {
  status: ({ signal }: Opts = {}) => request<SecondFactorStatus>({ method: 'GET', url: STATUS, signal }),
  startTotp: ({ signal }: Opts = {}) => request<TotpSetup>({ method: 'POST', url: '/mfa/totp/setup', data: {}, signal }),
  confirmTotp: (code: string, { signal }: Opts = {}) => request<RecoveryCodes>({ method: 'POST', url: '/mfa/totp/confirm', data: { code }, signal }),
  disableTotp: (password: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: '/mfa/totp', data: { password }, signal }),
  renewRecoveryCodes: (password: string, { signal }: Opts = {}) =>
    request<RecoveryCodes>({ method: 'POST', url: '/mfa/recovery-codes', data: { password }, signal }),
};

/** The status as the page's early call already answered it (machines/shared/earlyCalls.ts): the chart then starts ready. */
export const knownStatus = (): SecondFactorStatus | undefined => knownAnswer<SecondFactorStatus>(STATUS);

/** Spends the early answer the chart started from. */
export const takeKnownStatus = (): void => takeKnownAnswer(STATUS);

export const RECOVERY_CODES_FILE = 'sheetmind-recovery-codes.txt';

export const twoFactorActors = {
  loadStatus: fromPromise<SecondFactorStatus, AuthInput>(({ input, signal }) => withAuthRetry(input.auth, () => securityApi.status({ signal }))),
  startSetup: fromPromise<TotpSetup, AuthInput>(({ input, signal }) => withAuthRetry(input.auth, () => securityApi.startTotp({ signal }))),
  confirmSetup: fromPromise<RecoveryCodes, AuthInput & { code: string }>(({ input, signal }) =>
    withAuthRetry(input.auth, () => securityApi.confirmTotp(input.code, { signal })),
  ),
  disable: fromPromise<void, AuthInput & { password: string }>(({ input, signal }) =>
    withAuthRetry(input.auth, () => securityApi.disableTotp(input.password, { signal })),
  ),
  renewCodes: fromPromise<RecoveryCodes, AuthInput & { password: string }>(({ input, signal }) =>
    withAuthRetry(input.auth, () => securityApi.renewRecoveryCodes(input.password, { signal })),
  ),
  /** Copies the codes; answers whether the browser let it. */
  copyCodes: fromPromise<void, { codes: string[] }>(async ({ input }) => {
    await navigator.clipboard.writeText(input.codes.join('\n'));
  }),
};

/** Saves the codes as a text file (an action: the browser's download needs no answer). */
export function downloadCodes(codes: string[]): void {
  saveFile(recoveryCodesFile(codes), RECOVERY_CODES_FILE, 'text/plain');
}
