import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { functionEditorMachine, type FunctionEditorEvent } from '../../machines/functionEditor/functionEditor.machine';
import type { FunctionField } from '../../machines/functionEditor/functionEditor.schema';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type CustomFunction } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import { labelled, type Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * The function editor of /functions as a test model, for the jsdom replay
 * (tests/model/functionEditor.model.test.tsx): a team admin making a new function, what they type
 * (a name that breaks the rules, a good one, a prompt), the server's answers (saved, the name
 * taken, the team scope refused, the limit reached, no connection), the generated paths, and what
 * the editor shows in each state.
 */

const t = messages.functions;
const e = t.editor;

export const EDITOR_LABELS: Record<Exclude<FunctionField, 'scope'>, string> = { name: e.name, task: e.task, prompt: e.prompt, description: e.description };

export const savedFunction: CustomFunction = {
  id: 'fn-1',
  name: 'TOTAL_BY_REGION',
  task: 'analyze',
  prompt: 'Total {{input}} by region',
  description: '',
  scope: 'personal',
  created_at: '2026-11-26T09:00:00.000Z',
  updated_at: '2026-11-26T09:00:00.000Z',
};

const refusal = (status: number, code: string, sentence: string) => new ApiRequestError(`API Error: ${status}`, status, code as never, sentence);

export const editorOutcomes: ActorOutcome[] = [
  { type: 'xstate.done.actor.save', output: savedFunction },
  { type: 'xstate.error.actor.save', error: refusal(409, 'function_exists', 'There is already a function named TOTAL_BY_REGION. Choose another name.') },
  { type: 'xstate.error.actor.save', error: refusal(403, 'forbidden', 'Only the team’s owner or an admin can make a team function.') },
  { type: 'xstate.error.actor.save', error: refusal(409, 'function_limit_reached', 'You have 25 functions, the most there can be.') },
  { type: 'xstate.error.actor.save', error: new ApiRequestError(messages.api.network, 0) },
];

const typed: FunctionEditorEvent[] = [
  { type: 'field.change', field: 'name', value: 'total by region' },
  { type: 'field.change', field: 'name', value: 'TOTAL_BY_REGION' },
  { type: 'field.change', field: 'prompt', value: 'Total {{input}} by region' },
  { type: 'form.submit' },
  { type: 'form.cancel' },
];

export type EditorSnapshot = SnapshotFrom<typeof functionEditorMachine>;

const model = createTestModel(toTestModelMachine(functionEditorMachine), {
  input: { auth: null },
  events: [...editorOutcomes, ...typed],
  // A state is its value, the values and the fields in error (what the editor shows), plus the transition into it.
  serializeState: (state: EditorSnapshot, event: { type: string; field?: string; value?: string; error?: unknown } | undefined, previous?: EditorSnapshot) =>
    JSON.stringify([
      state.value,
      state.context.values.name,
      state.context.values.prompt,
      Object.entries(state.context.errors).sort(),
      event ? [event.type, event.field ?? null, event.value ?? null, event.error instanceof ApiRequestError ? event.error.code : null] : null,
      previous?.value ?? null,
    ]),
} as never);

export const editorPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const editorCoverage = chartCoverage(functionEditorMachine, editorPaths.map(({ path }) => path));

const editor = { role: 'region', name: e.newTitle } as const;
const ALL_MESSAGES = [...Object.values(t.validation), ...Object.values(t.errors)];

/** What the editor shows while open: exactly the chart's values and errors, each on its field (a refusal of no one field above the form). */
function editing({ context: { values, errors } }: EditorSnapshot): Sight[] {
  const shown = Object.values(errors).map(word);
  return [
    { in: editor, role: 'heading', name: e.newTitle },
    { in: editor, label: labelled(EDITOR_LABELS.name), value: values.name },
    { in: editor, label: labelled(EDITOR_LABELS.prompt), value: values.prompt },
    ...shown.map((text): Sight => ({ in: editor, text })),
    ...(errors.form ? [{ in: editor, role: 'alert', name: undefined } as Sight] : []),
    ...ALL_MESSAGES.filter((text) => !shown.includes(text)).map((text): Sight => ({ text, absent: true })),
    { in: editor, role: 'button', name: e.save },
  ];
}

export const editorViews = {
  editing,
  saving: (): Sight[] => [{ in: editor, role: 'button', name: e.saving }],
  // Saved: the editor closes and the list is read again; the toast says so.
  saved: (): Sight[] => [{ role: 'region', name: e.newTitle, absent: true }, { text: t.saved }, { role: 'button', name: t.newFunction }],
  cancelled: (): Sight[] => [{ role: 'region', name: e.newTitle, absent: true }, { role: 'button', name: t.newFunction }],
} satisfies Record<string, (state: EditorSnapshot) => Sight[]>;
