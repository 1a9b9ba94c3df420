import { fromPromise } from 'xstate';
import { authApi } from '../shared/api';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';

export const verifyEmailActors = {
  /** The mailed link's token, sent as it is: no sign-in needed. */
  verifyEmail: fromPromise<void, { token: string }>(async ({ input, signal }) => {
    await authApi.verifyEmail(input.token, { signal });
  }),
  /** A new link to the signed-in account's address. */
  resendVerification: fromPromise<void, AuthInput>(async ({ input, signal }) => {
    await withAuthRetry(input.auth, () => authApi.resendVerification({ signal }));
  }),
};
