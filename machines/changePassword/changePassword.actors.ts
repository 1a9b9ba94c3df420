import { fromPromise } from 'xstate';
import { withAuthRetry } from '../auth/auth.retry';
import { accountApi } from '../../src/lib/api';
import type { AuthInput } from '../subscription/subscription.actors';

export interface ChangePasswordInput extends AuthInput {
  current_password: string;
  new_password: string;
}

export const changePasswordActors = {
  changePassword: fromPromise<void, ChangePasswordInput>(({ input: { auth, ...body }, signal }) =>
    withAuthRetry(auth, () => accountApi.changePassword(body, { signal })),
  ),
};
