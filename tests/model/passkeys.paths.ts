import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { passkeysMachine, type PasskeysEvent } from '../../machines/passkeys/passkeys.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type Passkey, type PasskeyCreationOptions, type RegistrationCredential } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { labelled, type Sight } from '../helpers/sights';

/**
 * The profile's passkeys chart as a test model, for the jsdom replay (passkeys.model.test.tsx):
 * the lists the API may answer, how each call and the browser's prompt can end (the person closing
 * the prompt among them), the generated paths, and what the section shows in each state. A person
 * can only do what the section offers: rename or delete a listed passkey, name one just made.
 */

const t = messages.passkeys;

const laptop: Passkey = { id: 'cred-laptop', name: 'Work laptop', created_at: '2026-11-20T09:00:00.000Z', last_used_at: '2026-11-25T08:30:00.000Z' };
const phone: Passkey = { id: 'cred-phone', name: 'Phone', created_at: '2026-11-22T18:00:00.000Z', last_used_at: null };
export const NEW_NAME = 'Home desktop';
export const RENAMED = 'Old laptop';
const options: PasskeyCreationOptions = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: 'localhost', name: 'SheetMind' },
  user: { id: 'dXNlcg', name: 'ada@example.com', displayName: 'Ada Lovelace' },
  pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
  authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
};
const credential: RegistrationCredential = {
  id: 'bmV3',
  rawId: 'bmV3',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'oA' },
  clientExtensionResults: {},
};

const failure = (status: number, code?: 'invalid_passkey') => new ApiRequestError(status ? `API Error: ${status}` : messages.api.network, status, code);
/** What the browser throws when the person closes its passkey prompt or lets it time out. */
export const closedPrompt = Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' });

export const passkeysOutcomes: ActorOutcome[] = [
  { type: 'xstate.done.actor.loadPasskeys', output: [laptop, phone] },
  { type: 'xstate.done.actor.loadPasskeys', output: [] },
  { type: 'xstate.error.actor.loadPasskeys', error: failure(0) },
  { type: 'xstate.done.actor.registrationOptions', output: options },
  { type: 'xstate.error.actor.registrationOptions', error: failure(500) },
  { type: 'xstate.done.actor.createPasskey', output: credential },
  { type: 'xstate.error.actor.createPasskey', error: closedPrompt },
  { type: 'xstate.done.actor.savePasskey', output: { ...phone, id: 'cred-new', name: NEW_NAME } },
  { type: 'xstate.error.actor.savePasskey', error: failure(400, 'invalid_passkey') },
  { type: 'xstate.done.actor.renamePasskey', output: { ...laptop, name: RENAMED } },
  { type: 'xstate.error.actor.renamePasskey', error: failure(500) },
  { type: 'xstate.done.actor.deletePasskey' },
  { type: 'xstate.error.actor.deletePasskey', error: failure(500) },
];

export type PasskeysSnapshot = SnapshotFrom<typeof passkeysMachine>;

/** What the person can do in the section as it stands: only what it shows. */
function userEvents(state: PasskeysSnapshot): PasskeysEvent[] {
  if (state.matches({ adding: 'naming' })) return [{ type: 'name.save', name: NEW_NAME }, { type: 'name.cancel' }];
  if (state.matches({ renaming: 'editing' })) return [{ type: 'rename.save', name: RENAMED }, { type: 'rename.cancel' }];
  if (state.matches('confirmingDelete')) return [{ type: 'delete.confirm' }, { type: 'delete.cancel' }];
  if (state.matches('failed')) return [{ type: 'passkeys.retry' }];
  if (!state.matches('idle')) return [];
  // One passkey of the list is enough for each action: the others behave alike.
  const first = state.context.passkeys[0];
  return [{ type: 'passkey.add' }, ...(first ? [{ type: 'passkey.rename' as const, id: first.id }, { type: 'passkey.delete' as const, id: first.id }] : [])];
}

const USER_EVENT_TYPES = new Set<string>(['passkeys.retry', 'passkey.add', 'name.save', 'name.cancel', 'passkey.rename', 'rename.save', 'rename.cancel', 'passkey.delete', 'delete.confirm', 'delete.cancel']);

const model = createTestModel(toTestModelMachine(passkeysMachine.provide({ actions: { notify: () => undefined } })), {
  input: { auth: null },
  events: (state: PasskeysSnapshot) => [...passkeysOutcomes, ...userEvents(state)],
  filterEvents: (state: PasskeysSnapshot, event: { type: string }) =>
    !USER_EVENT_TYPES.has(event.type) || userEvents(state).some((offered) => JSON.stringify(offered) === JSON.stringify(event)),
  // A state is what the section shows (the chart's state, how many passkeys) and the transition into it.
  serializeState: (state: PasskeysSnapshot, event: ActorOutcome | undefined, previous?: PasskeysSnapshot) =>
    JSON.stringify([state.value, state.context.passkeys.length, event?.type ?? null, previous?.value ?? null]),
} as never);

export const passkeysPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const passkeysCoverage = chartCoverage(passkeysMachine, passkeysPaths.map(({ path }) => path));

/** The toast each outcome shows: its title, and the sentence that says why where it failed. */
export const toastOf: Record<string, string[]> = {
  'xstate.error.actor.registrationOptions': [t.addFailed],
  'xstate.error.actor.createPasskey': [t.addFailed, t.cancelled],
  'xstate.done.actor.savePasskey': [t.added],
  'xstate.error.actor.savePasskey': [t.addFailed, t.refused],
  'xstate.done.actor.renamePasskey': [t.renamed],
  'xstate.error.actor.renamePasskey': [t.renameFailed],
  'xstate.done.actor.deletePasskey': [t.deleted],
  'xstate.error.actor.deletePasskey': [t.deleteFailed],
};

const area = { role: 'region', name: t.title } as const;

/** The section as the chart holds it: every passkey with its buttons, the add button or the naming form. */
function section(state: PasskeysSnapshot): Sight[] {
  const { passkeys, pendingId } = state.context;
  const idle = state.matches('idle');
  const naming = state.matches({ adding: 'naming' }) || state.matches({ adding: 'saving' });
  const prompting = state.matches({ adding: 'preparing' }) || state.matches({ adding: 'prompting' });
  return [
    { role: 'heading', level: 2, name: t.title },
    { in: area, text: t.none, ...(passkeys.length || state.matches('failed') || state.matches('loading') ? { absent: true } : {}) },
    ...passkeys.flatMap((passkey): Sight[] => {
      const item = { role: 'listitem', name: passkey.name } as const;
      if (state.matches('renaming') && pendingId === passkey.id) {
        return [{ in: item, label: labelled(t.name), value: state.context.name }, { in: item, role: 'button', name: state.matches({ renaming: 'saving' }) ? t.saving : t.saveName }, { in: item, role: 'button', name: t.rename, absent: true }];
      }
      if (state.matches('confirmingDelete') && pendingId === passkey.id) {
        return [{ in: item, text: t.deleteConfirm }, { in: item, role: 'button', name: t.confirmDelete }, { in: item, role: 'button', name: t.delete, absent: true }];
      }
      return [
        { in: item, role: 'button', name: t.rename, disabled: !idle },
        { in: item, role: 'button', name: t.delete, disabled: !idle },
      ];
    }),
    ...(naming
      ? ([
          { in: area, role: 'heading', level: 3, name: t.nameTitle },
          { in: area, label: labelled(t.name), value: state.context.name || undefined },
          { in: area, role: 'button', name: state.matches({ adding: 'saving' }) ? t.saving : t.save },
          { in: area, role: 'button', name: t.add, absent: true },
        ] satisfies Sight[])
      : ([
          { in: area, role: 'button', name: prompting ? t.adding : t.add, disabled: !idle },
          { in: area, role: 'heading', level: 3, name: t.nameTitle, absent: true },
        ] satisfies Sight[])),
  ];
}

/** What the section shows in each state of the chart. */
export const passkeysViews = {
  loading: (state: PasskeysSnapshot): Sight[] => [...section(state), { role: 'region', name: t.title, busy: true }],
  idle: (state: PasskeysSnapshot): Sight[] => [...section(state), { text: t.loadFailed, absent: true }],
  failed: (state: PasskeysSnapshot): Sight[] => [...section(state), { in: area, text: t.loadFailed }, { in: area, role: 'button', name: t.retry }],
  'adding.preparing': section,
  'adding.prompting': section,
  'adding.naming': section,
  'adding.saving': section,
  'renaming.editing': section,
  'renaming.saving': section,
  confirmingDelete: section,
  deleting: section,
} satisfies Record<string, (state: PasskeysSnapshot) => Sight[]>;
