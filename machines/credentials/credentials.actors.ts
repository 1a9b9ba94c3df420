import { fromPromise } from 'xstate';
import { withAuthRetry } from '../shared/authRetry';
import { credentialsApi, type ApiKeyInfo, type CreatedApiKey, type NewApiKey, type SessionInfo } from '../shared/api';
import type { AuthInput } from '../shared/authRetry';
import { knownAnswers, takeKnownAnswers } from '../shared/earlyCalls';
import { LOAD_PATHS } from '../shared/loadPaths';

export interface Credentials {
  sessions: SessionInfo[];
  apiKeys: ApiKeyInfo[];
}

/** The calls the lists load with. */
const LISTS = [LOAD_PATHS.sessions, LOAD_PATHS.apiKeys] as const;

/** Both lists as the page's early calls already answered them (machines/shared/earlyCalls.ts), or null: the chart then loads them. */
export function knownCredentials(): Credentials | null {
  const known = knownAnswers<[{ sessions: SessionInfo[] }, { api_keys: ApiKeyInfo[] }]>(LISTS);
  return known && { sessions: known[0].sessions, apiKeys: known[1].api_keys };
}

/** Spends the early answers the chart started from. */
export const takeKnownCredentials = (): void => takeKnownAnswers(LISTS);

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
