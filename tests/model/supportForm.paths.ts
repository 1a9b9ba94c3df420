import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { supportFormMachine, type SupportFormEvent, type SupportUser } from '../../machines/supportForm/supportForm.machine';
import { SUPPORT_FIELDS, type SupportValues } from '../../machines/supportForm/supportForm.schema';
import * as messages from '../../src/content/messages';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { labelled, type Sight } from '../helpers/sights';
import { SUPPORT_MAIL } from '../helpers/words';
import { word } from '../helpers/words';

/**
 * The support-form chart as a test model, shared by the jsdom replay
 * (tests/model/supportForm.model.test.tsx) and the Chromium replay against the real server
 * (tests/paths/supportForm.paths.test.ts): the events, the generated paths (signed in and signed
 * out) and what the page shows in each state.
 */

/** The signed-in user of the model; the Chromium runner signs in a real account with this email. */
export const supportUser: SupportUser = { id: 'u-7', full_name: 'Ada Lovelace', email: 'ada@example.com' };
export const SUPPORT_EMAIL = 'support@sheetmind.example';
export const savedDraft: Partial<SupportValues> = { title: 'Saved title', description: 'Saved description text' };

const t = messages.support;
export const SUPPORT_LABELS: Record<keyof SupportValues, string> = {
  title: t.titleLabel,
  description: t.descriptionLabel,
  email: t.emailLabel,
  telephone: t.telephoneLabel,
};

/** How the chart's actors can end: the draft read from storage, and the mail program opening. */
export const supportOutcomes = {
  noDraft: { type: 'xstate.done.actor.loadDraft', output: {} },
  draftRestored: { type: 'xstate.done.actor.loadDraft', output: savedDraft },
  draftCorrupt: { type: 'xstate.error.actor.loadDraft', error: new SyntaxError('Unexpected token') },
  mailOpened: { type: 'xstate.done.actor.submit', output: undefined },
  mailFailed: { type: 'xstate.error.actor.submit', error: new Error('no mail program') },
} satisfies Record<string, ActorOutcome>;
const formEvents: SupportFormEvent[] = [
  { type: 'draft.change', field: 'title', value: 'Broken totals' },
  { type: 'draft.change', field: 'description', value: 'Totals are off by one in row 2' },
  { type: 'draft.change', field: 'telephone', value: '+44 20 7946 0000' },
  { type: 'form.submit' },
];

export type SupportSnapshot = SnapshotFrom<typeof supportFormMachine>;

function modelOf(user: SupportUser | null) {
  const chart = supportFormMachine.provide({ actions: { saveDraft: () => undefined, removeDraft: () => undefined, logCorruptDraft: () => undefined } });
  return createTestModel(toTestModelMachine(chart), {
    input: { user, supportEmail: SUPPORT_EMAIL, mail: SUPPORT_MAIL },
    events: [...Object.values(supportOutcomes), ...formEvents],
    // The page follows the auth chart for the user; that event is covered by the chart tests. The
    // draft is read in a moment no replay can type into: typing before it is read is covered by
    // the chart tests and tests/e2e/earlyInput.test.ts.
    filterEvents: (state: SupportSnapshot, event: { type: string }) =>
      event.type !== 'session.update' && !(state.matches('restoring') && (event.type === 'draft.change' || event.type === 'form.submit')),
    // A state is its value, the signed-in user, the fields in error and the values (what the page
    // shows), plus the transition into it.
    serializeState: (state: SupportSnapshot, event: { type: string; field?: string; value?: string } | undefined, previous?: SupportSnapshot) => {
      const { context } = state;
      const key = {
        value: state.value,
        signedIn: context.user !== null,
        errors: Object.keys(context.errors).sort(),
        values: context.values,
      };
      return `${JSON.stringify(key)}|${event ? `${event.type}:${event.field ?? ''}:${event.value ?? ''}:${'output' in event ? JSON.stringify(event.output) : ''}` : ''}|${previous ? JSON.stringify(previous.value) : ''}`;
    },
  } as never);
}

export const supportPaths = [...modelOf(null).getShortestPaths(), ...modelOf(supportUser).getShortestPaths()].map((path) => ({
  title: path.description,
  path,
  signedIn: (path.steps[0]!.state as SupportSnapshot).context.user !== null,
}));

export const supportCoverage = chartCoverage(supportFormMachine, supportPaths.map(({ path }) => path));

const field = (name: keyof SupportValues) => labelled(SUPPORT_LABELS[name]);

/** What the page shows in each state: exactly the chart's values, errors and busy state. */
export const supportViews = {
  restoring: (): Sight[] => [{ label: field('title') }],
  editing: ({ context: { values, errors, user } }: SupportSnapshot): Sight[] => [
    ...SUPPORT_FIELDS.map((name): Sight => ({ label: field(name), value: values[name] })),
    ...SUPPORT_FIELDS.flatMap((name): Sight[] => (errors[name] ? [{ text: word(errors[name]) }] : [])),
    ...Object.values(t.validation)
      .filter((message) => !Object.values(errors).map(word).includes(message))
      .map((message): Sight => ({ text: message, absent: true })),
    { role: 'link', name: t.signInLink, ...(user ? { absent: true } : {}) },
    { role: 'button', name: t.submit, disabled: user === null },
  ],
  submitting: (): Sight[] => [{ role: 'button', name: t.busy }],
} satisfies Record<string, (state: SupportSnapshot) => Sight[]>;

/** After a submit with errors, the first field in error has the focus (spec §5). */
export function focusAfterSubmit({ context: { errors } }: SupportSnapshot): Sight[] {
  const first = SUPPORT_FIELDS.find((name) => errors[name]);
  return first ? [{ label: field(first), focused: true }] : [];
}
