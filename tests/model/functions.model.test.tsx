import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import type { SaveInput } from '../../machines/functionEditor/functionEditor.actors';
import { functionEditorMachine } from '../../machines/functionEditor/functionEditor.machine';
import type { FunctionList } from '../../machines/functions/functions.actors';
import { functionsMachine, type FunctionsEvent } from '../../machines/functions/functions.machine';
import type { AuthInput } from '../../machines/shared/authRetry';
import type { CustomFunction } from '../../machines/shared/api';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import FunctionsPage, { FunctionEditorChart, FunctionsChart } from '../../src/pages/FunctionsPage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, pasteInto, renderSignedIn } from '../helpers/renderApp';
import { labelled } from '../helpers/sights';
import { inJsdom } from '../helpers/sightsInJsdom';
import { functionsCoverage, functionsPaths, functionsViews, NEW_FUNCTION, toastOf, type FunctionsSnapshot } from './functions.paths';

/**
 * Model-based tests of the list chart of /functions: `xstate/graph` yields the shortest path to
 * every transition (functions.paths.ts); each path is replayed on the real page in jsdom, the list's
 * and the deletion's calls held until the path says how they end, and in every state the page must
 * show what the chart holds: the spinner, the list with what the caller may do with each function,
 * the question before a deletion, the failure with its retry, the Professional offer. Nothing is
 * deleted before the person confirms, and saving a new function reads the list again.
 */

const t = messages.functions;

describeChartPaths('functions chart, generated paths', 'functions', { coverage: functionsCoverage, paths: functionsPaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  let loads = 0;
  const deleted: string[] = [];
  const machine = functionsMachine.provide({
    actors: {
      loadFunctions: calls.actor<FunctionList, AuthInput>('loadFunctions', () => loads++),
      deleteFunction: calls.actor<void, AuthInput & { id: string }>('deleteFunction', (input) => deleted.push(input.id)),
    },
  });
  // The editor's save is the function editor chart's own (tests/model/functionEditor.*): here it is saved at once.
  const editor = functionEditorMachine.provide({
    actors: { save: fromPromise<CustomFunction, SaveInput>(async ({ input }) => ({ ...(input.values as CustomFunction), id: 'fn-new', created_at: '', updated_at: '' })) },
  });
  const { unmount } = renderSignedIn(
    '/functions',
    <FunctionsChart.Logic.Provider value={machine}>
      <FunctionEditorChart.Logic.Provider value={editor}>
        <FunctionsPage />
      </FunctionEditorChart.Logic.Provider>
    </FunctionsChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const nameOf = (state: unknown, id: string) => (state as FunctionsSnapshot).context.functions.find((fn) => fn.id === id)!.name;
  const settle = async ({ event }: { event: ActorOutcome }) => {
    await calls.settle(event.type.replace(/^xstate\.(done|error)\.actor\./, ''), event);
    if (toastOf[event.type]) await screen.findByText(toastOf[event.type]!);
  };

  try {
    await path.test({
      states: inJsdom(functionsViews),
      events: {
        ...outcomeHandlers(['loadFunctions', 'deleteFunction'], () => settle),
        'function.delete': async ({ event, state }) => {
          const name = nameOf(state, (event as Extract<FunctionsEvent, { type: 'function.delete' }>).id);
          await browser.click(screen.getByRole('button', { name: `${t.delete}: ${name}` }));
          // Nothing is deleted before the person confirms.
          expect(deleted).toEqual([]);
        },
        'change.confirm': async ({ state }) => {
          // `state` is the one the confirmation leads to.
          const { pendingId } = (state as FunctionsSnapshot).context;
          const item = within(screen.getByRole('listitem', { name: nameOf(state, pendingId!) }));
          await browser.click(item.getByRole('button', { name: t.confirmDelete }));
          expect(deleted).toEqual([pendingId]);
        },
        'change.cancel': async () => {
          await browser.click(screen.getByRole('button', { name: t.cancel }));
          expect(deleted).toEqual([]);
        },
        'functions.retry': async () => {
          const before = loads;
          await browser.click(screen.getByRole('button', { name: t.retry }));
          expect(loads).toBe(before + 1);
        },
        // The editor saves a new function: the list is read again.
        'functions.reload': async () => {
          const before = loads;
          await browser.click(screen.getByRole('button', { name: t.newFunction }));
          const form = within(screen.getByRole('region', { name: t.editor.newTitle }));
          await pasteInto(browser, form.getByLabelText(labelled(t.editor.name)), NEW_FUNCTION.name);
          await pasteInto(browser, form.getByLabelText(labelled(t.editor.prompt)), NEW_FUNCTION.prompt);
          await browser.click(form.getByRole('button', { name: t.editor.save }));
          await screen.findByText(t.saved);
          await waitFor(() => expect(loads).toBe(before + 1));
        },
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
