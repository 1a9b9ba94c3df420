import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RangeInput } from '../../machines/usage/usage.actors';
import { usageMachine, type UsageEvent } from '../../machines/usage/usage.machine';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import UsagePage, { UsageChart } from '../../src/pages/UsagePage';
import type { UsageAnalytics } from '../../machines/shared/api';
import { afterEvent, describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { FIRST_DRAW_WAIT_MS } from '../../machines/shared/firstDraw';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { answerFor, usageCoverage, usagePaths, usageViews } from './usage.paths';

/**
 * Model-based tests of the /usage chart: `xstate/graph` yields the shortest path to every
 * transition (usage.paths.ts); each path is replayed on the real page in jsdom, the chart's calls
 * held until the path says how they end, and in every state the page must show what the chart
 * holds: the loading status, the figures, chart and tables (kept, busy, while a new range loads),
 * the empty range, the failure with its retry, the Professional offer, a refused custom range's
 * reason under its field.
 */

const t = messages.usage;
const noop = () => undefined;

describeChartPaths('usage chart, generated paths', 'usage', { coverage: usageCoverage, paths: usagePaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const asked: RangeInput['range'][] = [];
  const downloads: RangeInput['range'][] = [];
  const machine = usageMachine.provide({
    actors: {
      loadAnalytics: calls.actor<UsageAnalytics, RangeInput>('loadAnalytics', (input) => asked.push(input.range)),
      downloadCsv: calls.actor<void, RangeInput>('downloadCsv', (input) => downloads.push(input.range)),
    },
    actions: { logFailure: noop },
    // The first draw's wait is the chart's own timer, on a real clock (FIRST_DRAW_WAIT_MS, 1 s): a
    // path that does not wait for it must not see it fire, which it did on a loaded machine while
    // a custom range was being typed (the page then showed what only comes after the wait).
    ...(path.steps.some((step) => step.event.type === afterEvent('firstDraw')) ? {} : { delays: { firstDraw: 600_000 } }),
  });
  const { unmount } = renderSignedIn(
    '/usage',
    <UsageChart.Logic.Provider value={machine}>
      <UsagePage />
    </UsageChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  // The figures answer the range the page asked for.
  const load = async ({ event }: { event: ActorOutcome }) =>
    calls.settle('loadAnalytics', 'output' in event && event.output ? { ...event, output: answerFor(event.output as UsageAnalytics, asked.at(-1)!) } : event);

  try {
    await path.test({
      states: inJsdom(usageViews),
      events: {
        'xstate.done.actor.loadAnalytics': load,
        'xstate.error.actor.loadAnalytics': load,
        'xstate.done.actor.reloadAnalytics': load,
        'xstate.error.actor.reloadAnalytics': load,
        'xstate.done.actor.downloadCsv': async ({ event }) => {
          await calls.settle('downloadCsv', event as ActorOutcome);
          expect(downloads.at(-1)).toEqual(asked.at(-1));
        },
        'xstate.error.actor.downloadCsv': async ({ event }) => {
          await calls.settle('downloadCsv', event as ActorOutcome);
          await screen.findByText(t.downloadFailed);
          expect(screen.getByText(messages.auth.networkFailure, { selector: '[data-part="description"], [data-part="description"] *' })).toBeInTheDocument();
          toaster.remove();
        },
        'range.preset': async ({ event }) => {
          const { preset } = event as Extract<UsageEvent, { type: 'range.preset' }>;
          await browser.click(screen.getByRole('button', { name: t.presets[preset] }));
          expect(screen.getByRole('button', { name: t.presets[preset] })).toHaveAttribute('aria-pressed', 'true');
        },
        'range.custom': async ({ event }) => {
          const { from, to } = event as Extract<UsageEvent, { type: 'range.custom' }>;
          await browser.click(screen.getByRole('button', { name: t.presets.custom }));
          for (const [label, value] of [
            [t.from, from],
            [t.to, to],
          ] as const) {
            const field = screen.getByLabelText(label);
            await browser.clear(field);
            await browser.type(field, value);
          }
          const form = screen.getByRole('button', { name: t.showRange }).closest('form')!;
          await browser.click(within(form).getByRole('button', { name: t.showRange }));
        },
        // The wait is over once the page has drawn what stands below the figures: the chart's own
        // timer, on a real clock, which a loaded machine (CI runs the suites side by side) may fire
        // and draw late; 2 s was once not enough there.
        [afterEvent('firstDraw')]: async () => {
          await screen.findByRole('button', { name: t.exportAction }, { timeout: FIRST_DRAW_WAIT_MS + 9_000 });
        },
        'analytics.retry': async () => {
          await browser.click(screen.getByRole('button', { name: t.retry }));
        },
        'csv.download': async () => {
          await browser.click(screen.getByRole('button', { name: t.downloadCsv }));
        },
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
