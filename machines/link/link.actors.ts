import { fromPromise } from 'xstate';
import { withAuthRetry } from '../auth/auth.retry';
import { deviceApi, type DeviceGrant } from '../../src/lib/api';
import type { AuthInput } from '../subscription/subscription.actors';

export interface CodeInput extends AuthInput {
  code: string;
}

export const linkActors = {
  lookUp: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code }, signal }) => withAuthRetry(auth, () => deviceApi.lookup(code, { signal }))),
  approve: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code }, signal }) =>
    withAuthRetry(auth, () => deviceApi.decide('approve', code, { signal })),
  ),
  deny: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code }, signal }) => withAuthRetry(auth, () => deviceApi.decide('deny', code, { signal }))),
};
