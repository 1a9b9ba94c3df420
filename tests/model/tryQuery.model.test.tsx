import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { tryQueryMachine } from '../../machines/tryQuery/tryQuery.machine';
import * as messages from '../../src/content/messages';
import GuidePage, { TryQueryChart } from '../../src/pages/GuidePage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { tryQueryCoverage, tryQueryPaths, tryQueryViews } from './tryQuery.paths';

/**
 * Model-based tests of the Quick Start Guide's try-it panel: `xstate/graph` yields the shortest
 * path to every transition (tryQuery.paths.ts); each path is replayed on the real /guide page in
 * jsdom, the sample query held until the path says how it ends, and in every state the panel must
 * show what the chart holds.
 */

const t = messages.guide;

describeChartPaths('try-it chart of the Quick Start Guide, generated paths', 'tryQuery', { coverage: tryQueryCoverage, paths: tryQueryPaths }, async ({ path }) => {
  localStorage.clear();
  const calls = new HeldActorCalls();
  let asked = 0;
  let write = (_text: string) => undefined as void;
  const machine = tryQueryMachine.provide({
    actors: {
      ask: calls.actor('ask', (input: { onDelta: (text: string) => void }) => {
        asked += 1;
        write = input.onDelta;
      }),
    } as never,
  });
  const { unmount } = renderSignedIn(
    '/guide',
    <TryQueryChart.Logic.Provider value={machine}>
      <GuidePage />
    </TryQueryChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const settle = ({ event }: { event: ActorOutcome }) => calls.settle('ask', event);
  try {
    await path.test({
      states: inJsdom(tryQueryViews),
      events: {
        ...outcomeHandlers(['ask'], () => settle),
        'query.delta': async ({ event }) => {
          await act(async () => write((event as unknown as { text: string }).text));
        },
        'query.ask': async () => {
          const before = asked;
          await browser.click(await screen.findByRole('button', { name: t.ask }));
          expect(asked).toBe(before + 1);
        },
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
