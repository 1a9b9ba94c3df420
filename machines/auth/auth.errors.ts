import { ApiRequestError } from '../shared/api';
import type { Message } from '../shared/messages';
import { commonFailure, type Failure as ReportedFailure } from '../shared/failures';
import { passkeyFailureText } from '../shared/passkeyFailures';

/** What a failed sign-in or registration shows: a toast title and its sentence. */
export type Failure = Required<ReportedFailure>;

/** Product-spec section 8, "Login failure". A 429 asks to wait instead of blaming the password. */
export function loginFailure(error: unknown): Failure {
  const description = ((): Message => {
    if (!(error instanceof ApiRequestError)) return error instanceof Error ? { text: error.message } : 'auth.loginOther';
    return commonFailure(error) ?? (error.status === 401 ? 'auth.loginUnauthorized' : error.status === 400 ? 'auth.loginBadRequest' : 'auth.loginOther');
  })();
  return { title: 'auth.loginFailed', description };
}

/** A sign-in with a passkey that failed: the prompt closed, a passkey the server does not take, or as a login fails. */
export function passkeyLoginFailure(error: unknown): Failure {
  const description = passkeyFailureText(error, {
    cancelled: 'passkeys.signInCancelled',
    exists: 'passkeys.signInRefused',
    unsupported: 'passkeys.signInUnsupported',
    refused: 'passkeys.signInRefused',
  });
  return { title: 'auth.loginFailed', description };
}

/** Product-spec section 8, "Registration failure"; a taken username gets its own sentence. */
export function registrationFailure(error: unknown): Failure {
  const description = ((): Message => {
    if (!(error instanceof ApiRequestError)) return 'auth.registerOther';
    const common = commonFailure(error);
    if (common) return common;
    if (error.status === 409) return error.code === 'username_taken' ? 'auth.usernameTaken' : 'auth.registerConflict';
    if (error.status === 400) return error.serverMessage ? { join: ['auth.registerBadRequest', { text: error.serverMessage }] } : 'auth.registerBadRequest';
    return 'auth.registerOther';
  })();
  return { title: 'auth.registrationFailed', description };
}

/** The second step's token is spent: expired (5 minutes), used, or out of its five tries. */
export function isExpiredSecondStep(error: unknown): boolean {
  return error instanceof ApiRequestError && error.status === 401 && error.code === 'mfa_token_invalid';
}

/** A refused second factor: a wrong code keeps the step; a spent step asks for a new sign-in. */
export function secondFactorFailure(error: unknown): Failure {
  const description = ((): Message => {
    // The browser's passkey prompt closed or refused: its own words (machines/shared/passkeyFailure).
    if (!(error instanceof ApiRequestError) || error.code === 'invalid_passkey') return passkeyLoginFailure(error).description;
    if (isExpiredSecondStep(error)) return 'auth.secondStepExpired';
    const common = commonFailure(error);
    if (common) return common;
    if (error.code === 'invalid_code') return 'auth.invalidCode';
    return error.status === 400 ? 'auth.loginBadRequest' : 'auth.loginOther';
  })();
  return { title: 'auth.secondStepFailed', description };
}
