import { fromPromise } from 'xstate';
import { authApi } from '../shared/api';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';

export const resendVerificationActors = {
  /** A new link to the signed-in account's address. */
  resendVerification: fromPromise<void, AuthInput>(async ({ input, signal }) => {
    await withAuthRetry(input.auth, () => authApi.resendVerification({ signal }));
  }),
};
