import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { credentialsMachine, type CredentialsEvent } from '../../machines/credentials/credentials.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type ApiKeyInfo, type CreatedApiKey, type NewApiKey, type SessionInfo } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';

/**
 * The profile's credentials chart ("Sessions and devices" and "API keys") as a test model, for the
 * jsdom replay (tests/model/credentials.model.test.tsx): the lists the API may answer (a browser
 * and the add-on signed in with a key, or only this browser and no key), the generated paths, and
 * what the sections show in each state. A person can only ask for what the page offers: ending a
 * session that is listed, revoking a listed key, dismissing a key that is shown.
 */

const t = messages.credentials;

const thisBrowser: SessionInfo = {
  id: 'session-web',
  kind: 'web',
  client: null,
  created_at: '2026-11-20T09:00:00.000Z',
  last_used_at: '2026-11-23T10:00:00.000Z',
  ip: '198.51.100.4',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  current: true,
};
/** The browser as the list names it: a browser's User-Agent by its name and system, anything else as it is. */
const BROWSER_SHOWN: Record<string, string> = { [thisBrowser.user_agent!]: 'Chrome on Linux', 'Google-Apps-Script': 'Google-Apps-Script' };
const addOn: SessionInfo = {
  id: 'session-addon',
  kind: 'addon',
  client: 'SheetMind add-on',
  created_at: '2026-11-22T15:00:00.000Z',
  last_used_at: null,
  ip: '203.0.113.7',
  user_agent: 'Google-Apps-Script',
  current: false,
};
const nightly: ApiKeyInfo = {
  id: 'key-nightly',
  name: 'Nightly report',
  prefix: 'sm_live_Ab3d',
  last4: 'x9Qz',
  scopes: ['query'],
  created_at: '2026-11-21T08:00:00.000Z',
  expires_at: null,
  last_used_at: '2026-11-23T02:00:00.000Z',
};
export const newKey: NewApiKey = { name: 'Weekly export', scopes: ['query', 'usage:read'], expires_in_days: 90 };
const created: CreatedApiKey = {
  ...nightly,
  id: 'key-weekly',
  name: newKey.name,
  scopes: newKey.scopes,
  prefix: 'sm_live_Wk7p',
  key: 'sm_live_Wk7pR2mN8qL4vT6yH1cJ5bX3zF9dG0sAeKuYo',
  last4: 'KuYo',
};

const failure = (status: number) => new ApiRequestError(status ? `API Error: ${status}` : messages.api.network, status);

export const credentialsOutcomes: ActorOutcome[] = [
  { type: 'xstate.done.actor.loadCredentials', output: { sessions: [thisBrowser, addOn], apiKeys: [nightly] } },
  { type: 'xstate.done.actor.loadCredentials', output: { sessions: [thisBrowser], apiKeys: [] } },
  { type: 'xstate.error.actor.loadCredentials', error: failure(0) },
  { type: 'xstate.done.actor.endSession' },
  { type: 'xstate.error.actor.endSession', error: failure(500) },
  { type: 'xstate.done.actor.endOtherSessions', output: { ended: 1 } },
  { type: 'xstate.error.actor.endOtherSessions', error: failure(0) },
  { type: 'xstate.done.actor.createApiKey', output: created },
  { type: 'xstate.error.actor.createApiKey', error: failure(500) },
  { type: 'xstate.done.actor.revokeApiKey' },
  { type: 'xstate.error.actor.revokeApiKey', error: failure(500) },
];

export type CredentialsSnapshot = SnapshotFrom<typeof credentialsMachine>;

/** What the person can do on the page as it stands: only what it shows. */
function userEvents(state: CredentialsSnapshot): CredentialsEvent[] {
  const { sessions, apiKeys, createdKey } = state.context;
  // While a session or key asks "are you sure?", its answer is what the person gives next.
  if (state.matches('confirmingEnd') || state.matches('confirmingRevoke')) return [{ type: 'change.confirm' }, { type: 'change.cancel' }];
  const others = sessions.filter((session) => !session.current);
  return [
    ...others.map((session) => ({ type: 'session.end' as const, id: session.id })),
    ...(others.length ? [{ type: 'sessions.endOthers' as const }] : []),
    { type: 'key.create', key: newKey },
    ...apiKeys.map((apiKey) => ({ type: 'key.revoke' as const, id: apiKey.id })),
    ...(createdKey ? [{ type: 'key.dismiss' as const }] : []),
    { type: 'credentials.retry' },
  ];
}

const USER_EVENT_TYPES = new Set<string>(['session.end', 'sessions.endOthers', 'key.create', 'key.revoke', 'key.dismiss', 'credentials.retry', 'change.confirm', 'change.cancel']);

const model = createTestModel(toTestModelMachine(credentialsMachine.provide({ actions: { notify: () => undefined } })), {
  input: { auth: null },
  events: (state: CredentialsSnapshot) => [...credentialsOutcomes, ...userEvents(state)],
  // The walk adds a bare event for each type the chart accepts and the list leaves out: those are
  // what the page does not offer in that state.
  filterEvents: (state: CredentialsSnapshot, event: { type: string }) =>
    !USER_EVENT_TYPES.has(event.type) || userEvents(state).some((offered) => JSON.stringify(offered) === JSON.stringify(event)),
  // A state is what the sections show (the chart's state, how many sessions and keys, whether a
  // new key is on show) and the transition into it, so every transition is walked.
  serializeState: (state: CredentialsSnapshot, event: ActorOutcome | undefined, previous?: CredentialsSnapshot) =>
    JSON.stringify([state.value, state.context.sessions.length, state.context.apiKeys.length, state.context.createdKey !== null, event?.type ?? null, previous?.value ?? null]),
} as never);

export const credentialsPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const credentialsCoverage = chartCoverage(credentialsMachine, credentialsPaths.map(({ path }) => path));

/** A session's name on the page: the add-on's client, or the web. */
export const sessionName = (session: SessionInfo) => (session.kind === 'addon' ? (session.client ?? t.kindAddon) : t.kindWeb);

/** The toast each change's outcome shows. */
export const toastOf: Record<string, string> = {
  'xstate.done.actor.endSession': t.sessionEnded,
  'xstate.error.actor.endSession': t.sessionEndFailed,
  'xstate.done.actor.endOtherSessions': t.othersEnded,
  'xstate.error.actor.endOtherSessions': t.sessionEndFailed,
  'xstate.error.actor.createApiKey': t.keyCreateFailed,
  'xstate.done.actor.revokeApiKey': t.keyRevoked,
  'xstate.error.actor.revokeApiKey': t.keyRevokeFailed,
};

const sessionsArea = { role: 'region', name: t.sessionsTitle } as const;
const keysArea = { role: 'region', name: t.keysTitle } as const;

/** Both sections as the chart holds them: every session and key listed, with its buttons. */
function sections(state: CredentialsSnapshot): Sight[] {
  const asking = state.matches('confirmingEnd') || state.matches('confirmingRevoke');
  const busy = state.hasTag('busy') || state.hasTag('loading') || asking;
  const { sessions, apiKeys, createdKey, pendingId } = state.context;
  const endAsked = state.matches('confirmingEnd') ? pendingId : null;
  const revokeAsked = state.matches('confirmingRevoke') ? pendingId : null;
  const question = (item: Sight['in'], text: string, yes: string): Sight[] => [
    { in: item, text },
    { in: item, role: 'button', name: yes },
    { in: item, role: 'button', name: t.cancel },
  ];
  const others = sessions.filter((session) => !session.current).length;
  return [
    { role: 'heading', level: 2, name: t.sessionsTitle },
    { role: 'heading', level: 2, name: t.keysTitle },
    { role: 'listitem', in: sessionsArea, name: /./, ...(sessions.length ? {} : { absent: true }) },
    ...sessions.flatMap((session): Sight[] => {
      const item = { role: 'listitem', name: sessionName(session) } as const;
      return [
        { in: item, text: session.ip! },
        { in: item, text: BROWSER_SHOWN[session.user_agent!]! },
        ...(session.current
          ? [{ in: item, text: t.thisDevice } satisfies Sight]
          : endAsked === session.id
            ? [...question(item, t.endSessionConfirm, t.confirmEnd), { in: item, role: 'button', name: t.endSession, absent: true } satisfies Sight]
            : [{ in: item, role: 'button', name: t.endSession, disabled: busy } satisfies Sight]),
      ];
    }),
    { in: sessionsArea, role: 'button', name: t.endOthers, ...(others ? { disabled: busy } : { absent: true }) },
    ...apiKeys.flatMap((apiKey): Sight[] => {
      const item = { role: 'listitem', name: apiKey.name } as const;
      return [
        { in: item, text: `${apiKey.prefix}…${apiKey.last4}` },
        { in: item, text: apiKey.scopes.join(', ') },
        ...(revokeAsked === apiKey.id
          ? [...question(item, t.revokeConfirm, t.confirmRevoke), { in: item, role: 'button', name: t.revoke, absent: true } satisfies Sight]
          : [{ in: item, role: 'button', name: t.revoke, disabled: busy } satisfies Sight]),
      ];
    }),
    // Not before the keys have answered: someone with keys would read that they have none.
    { in: keysArea, text: t.noKeys, ...(apiKeys.length || state.matches('failed') || !state.context.loaded ? { absent: true } : {}) },
    ...(createdKey
      ? ([
          { in: keysArea, role: 'status' },
          { label: t.keyCreatedTitle },
          { in: keysArea, text: createdKey },
          { in: keysArea, role: 'button', name: t.done },
        ] satisfies Sight[])
      : [{ in: keysArea, text: t.keyCreatedText, absent: true } satisfies Sight]),
    { in: keysArea, role: 'button', name: state.matches('creatingKey') ? t.creatingKey : t.createKey },
  ];
}

/** What the sections show in each state of the chart. */
export const credentialsViews = {
  loading: sections,
  idle: (state: CredentialsSnapshot): Sight[] => [...sections(state), { text: t.loadFailed, absent: true }],
  failed: (state: CredentialsSnapshot): Sight[] => [...sections(state), { text: t.loadFailed, count: 2 }, { in: sessionsArea, role: 'button', name: t.retry }],
  endingSession: sections,
  endingOthers: sections,
  creatingKey: sections,
  revokingKey: sections,
  confirmingEnd: sections,
  confirmingRevoke: sections,
} satisfies Record<string, (state: CredentialsSnapshot) => Sight[]>;
