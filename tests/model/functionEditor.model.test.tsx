import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import type { SaveInput } from '../../machines/functionEditor/functionEditor.actors';
import { functionEditorMachine, type FunctionEditorEvent } from '../../machines/functionEditor/functionEditor.machine';
import type { FunctionList } from '../../machines/functions/functions.actors';
import type { AuthInput } from '../../machines/shared/authRetry';
import { functionsMachine } from '../../machines/functions/functions.machine';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import type { CustomFunction } from '../../machines/shared/api';
import FunctionsPage, { FunctionEditorChart, FunctionsChart } from '../../src/pages/FunctionsPage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, pasteInto, renderSignedIn } from '../helpers/renderApp';
import { labelled } from '../helpers/sights';
import { inJsdom } from '../helpers/sightsInJsdom';
import { EDITOR_LABELS, editorCoverage, editorPaths, editorViews, type EditorSnapshot } from './functionEditor.paths';

/**
 * Model-based tests of the function editor: `xstate/graph` yields the shortest path to every
 * transition (functionEditor.paths.ts); each is replayed on the real /functions page in jsdom, as a
 * team admin who opened "New function", the save held until the path says how it ends; in every
 * state the editor must show exactly the chart's values and errors.
 */

const t = messages.functions;

describeChartPaths('function editor chart, generated paths', 'functionEditor', { coverage: editorCoverage, paths: editorPaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const sent: SaveInput[] = [];
  const list = functionsMachine.provide({
    actors: { loadFunctions: fromPromise<FunctionList, AuthInput>(async () => ({ functions: [], teamRole: 'admin' })) },
  });
  const editor = functionEditorMachine.provide({ actors: { save: calls.actor<CustomFunction, SaveInput>('save', (input) => sent.push(input)) } });
  const { unmount } = renderSignedIn(
    '/functions',
    <FunctionsChart.Logic.Provider value={list}>
      <FunctionEditorChart.Logic.Provider value={editor}>
        <FunctionsPage />
      </FunctionEditorChart.Logic.Provider>
    </FunctionsChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  await browser.click(await screen.findByRole('button', { name: t.newFunction }));
  try {
    await path.test({
      states: {
        ...inJsdom(editorViews),
        saving: async (state) => {
          await inJsdom(editorViews).saving!(state);
          // What is sent is what the editor holds.
          expect(sent.at(-1)).toMatchObject({ id: null, values: (state as EditorSnapshot).context.values });
        },
      },
      events: {
        ...outcomeHandlers(['save'], () => ({ event }: { event: ActorOutcome }) => calls.settle('save', event)),
        'field.change': async ({ event }) => {
          const { field, value } = event as Extract<FunctionEditorEvent, { type: 'field.change' }>;
          await pasteInto(browser, screen.getByLabelText(labelled(EDITOR_LABELS[field as 'name' | 'prompt'])), value);
        },
        'form.submit': async () => {
          await browser.click(screen.getByRole('button', { name: t.editor.save }));
        },
        'form.cancel': async () => {
          await browser.click(screen.getByRole('button', { name: t.editor.cancel }));
        },
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
