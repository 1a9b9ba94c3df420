import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { accountApi } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';

export interface ChangePasswordInput extends AuthInput {
  current_password: string;
  new_password: string;
}

export const changePasswordActors = {
  changePassword: fromPromise<void, ChangePasswordInput>(({ input: { auth, ...body }, signal }) =>
    withAuthRetry(auth, () => accountApi.changePassword(body, { signal })),
  ),
};
