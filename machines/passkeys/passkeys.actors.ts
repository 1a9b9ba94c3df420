import { fromPromise } from 'xstate';
import { withAuthRetry, type AuthInput } from '../shared/authRetry';
import { request, type Opts, type Passkey, type PasskeyCreationOptions, type RegistrationCredential } from '../shared/api';
import { knownAnswer, takeKnownAnswer } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';
import { createPasskey } from '../shared/passkeyCeremony';

const LIST = LOAD_PATHS.passkeys;

/** The list as the page's early call already answered it (machines/shared/earlyCalls.ts): the chart then starts idle. */
export const knownPasskeys = (): Passkey[] | undefined => knownAnswer<{ credentials: Passkey[] }>(LIST)?.credentials;

/** Spends the early answer the chart started from. */
export const takeKnownPasskeys = (): void => takeKnownAnswer(LIST);

/** The profile's "Passkeys" calls (decisions.md, "Advanced security"): here, in the profile's chunk, not in every page's. */
const passkeysApi = {
  list: ({ signal }: Opts = {}) => request<{ credentials: Passkey[] }>({ method: 'GET', url: LIST, signal }),
  registrationOptions: ({ signal }: Opts = {}) => request<PasskeyCreationOptions>({ method: 'POST', url: '/webauthn/register/options', data: {}, signal }),
  register: (credential: RegistrationCredential, name: string, { signal }: Opts = {}) =>
    request<Passkey>({ method: 'POST', url: '/webauthn/register', data: { credential, name }, signal }),
  rename: (id: string, name: string, { signal }: Opts = {}) =>
    request<Passkey>({ method: 'PATCH', url: `/webauthn/credentials/${encodeURIComponent(id)}`, data: { name }, signal }),
  remove: (id: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: `/webauthn/credentials/${encodeURIComponent(id)}`, signal }),
};

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
