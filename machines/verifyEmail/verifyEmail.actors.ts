import { fromPromise } from 'xstate';
import { authApi } from '../shared/api';

export const verifyEmailActors = {
  /** The mailed link's token, sent as it is: no sign-in needed. */
  verifyEmail: fromPromise<void, { token: string }>(async ({ input, signal }) => {
    await authApi.verifyEmail(input.token, { signal });
  }),
};
