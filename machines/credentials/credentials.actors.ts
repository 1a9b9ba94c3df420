import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { credentialsApi, type ApiKeyInfo, type CreatedApiKey, type NewApiKey, type SessionInfo } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';

export interface Credentials {
  sessions: SessionInfo[];
  apiKeys: ApiKeyInfo[];
}

export const credentialsActors = {
  loadCredentials: fromPromise<Credentials, AuthInput>(async ({ input: { auth }, signal }) => {
    const [sessions, keys] = await Promise.all([
      withAuthRetry(auth, () => credentialsApi.sessions({ signal })),
      withAuthRetry(auth, () => credentialsApi.apiKeys({ signal })),
    ]);
    return { sessions: sessions.sessions, apiKeys: keys.api_keys };
  }),
  endSession: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => credentialsApi.endSession(id, { signal }))),
  endOtherSessions: fromPromise<unknown, AuthInput>(({ input: { auth }, signal }) => withAuthRetry(auth, () => credentialsApi.endOtherSessions({ signal }))),
  createApiKey: fromPromise<CreatedApiKey, AuthInput & { key: NewApiKey }>(({ input: { auth, key }, signal }) =>
    withAuthRetry(auth, () => credentialsApi.createApiKey(key, { signal })),
  ),
  revokeApiKey: fromPromise<void, AuthInput & { id: string }>(({ input: { auth, id }, signal }) => withAuthRetry(auth, () => credentialsApi.revokeApiKey(id, { signal }))),
};
