import { fromPromise } from 'xstate';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { passkeysApi, type Passkey, type PasskeyCreationOptions, type RegistrationCredential } from '../shared/api';
import { createPasskey } from '../shared/passkeyCeremony';

export const passkeysActors = {
  loadPasskeys: fromPromise<Passkey[], AuthInput>(async ({ input: { auth }, signal }) => (await withAuthRetry(auth, () => passkeysApi.list({ signal }))).credentials),
  registrationOptions: fromPromise<PasskeyCreationOptions, AuthInput>(({ input: { auth }, signal }) => withAuthRetry(auth, () => passkeysApi.registrationOptions({ signal }))),
  /** The browser's prompt: the person confirms with their device, or closes it (NotAllowedError). */
  createPasskey: fromPromise<RegistrationCredential, { options: PasskeyCreationOptions }>(({ input: { options }, signal }) => createPasskey(options, signal)),
  savePasskey: fromPromise<Passkey, AuthInput & { credential: RegistrationCredential; name: string }>(({ input: { auth, credential, name }, signal }) =>
    withAuthRetry(auth, () => passkeysApi.register(credential, name, { signal })),
  ),
  renamePasskey: fromPromise<Passkey, AuthInput & { id: string; name: string }>(({ input: { auth, id, name }, signal }) => withAuthRetry(auth, () => passkeysApi.rename(id, name, { signal }))),
  deletePasskey: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => passkeysApi.remove(id, { signal }))),
};
