import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { deviceApi, type DeviceGrant } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';

export interface CodeInput extends AuthInput {
  code: string;
  /** The key of the add-on's link, while the code is the one it carried. */
  linkKey: string | null;
}

export const linkActors = {
  lookUp: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code, linkKey }, signal }) => withAuthRetry(auth, () => deviceApi.lookup(code, linkKey, { signal }))),
  approve: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code, linkKey }, signal }) =>
    withAuthRetry(auth, () => deviceApi.decide('approve', code, linkKey, { signal })),
  ),
  deny: fromPromise<DeviceGrant, CodeInput>(({ input: { auth, code, linkKey }, signal }) =>
    withAuthRetry(auth, () => deviceApi.decide('deny', code, linkKey, { signal })),
  ),
};
