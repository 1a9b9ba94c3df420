import * as messages from '../../src/content/messages';
import { ApiRequestError } from '../shared/api';
import { commonFailure, type Failure as ReportedFailure } from '../shared/failures';

/** What a failed sign-in or registration shows: a toast title and its sentence. */
export type Failure = Required<ReportedFailure>;

const t = messages.auth;

/** Product-spec section 8, "Login failure". A 429 asks to wait instead of blaming the password. */
export function loginFailure(error: unknown): Failure {
  const description = (() => {
    if (!(error instanceof ApiRequestError)) return error instanceof Error ? error.message : t.loginOther;
    return commonFailure(error) ?? (error.status === 401 ? t.loginUnauthorized : error.status === 400 ? t.loginBadRequest : t.loginOther);
  })();
  return { title: t.loginFailed, description };
}

/** Product-spec section 8, "Registration failure"; a taken username gets its own sentence. */
export function registrationFailure(error: unknown): Failure {
  const description = (() => {
    if (!(error instanceof ApiRequestError)) return t.registerOther;
    const common = commonFailure(error);
    if (common) return common;
    if (error.status === 409) return error.code === 'username_taken' ? t.usernameTaken : t.registerConflict;
    if (error.status === 400) return error.serverMessage ? `${t.registerBadRequest} ${error.serverMessage}` : t.registerBadRequest;
    return t.registerOther;
  })();
  return { title: t.registrationFailed, description };
}
