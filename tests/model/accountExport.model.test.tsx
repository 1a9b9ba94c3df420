import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { accountExportMachine } from '../../machines/accountExport/accountExport.machine';
import type { AuthInput } from '../../machines/shared/authRetry';
import { AccountExportChart } from '../../src/components/AccountExport';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import ProfilePage from '../../src/pages/ProfilePage';
import UsagePage from '../../src/pages/UsagePage';
import { describeChartPaths, outcomeHandlers, type ActorOutcome, type ChartCoverage } from '../helpers/chartModel';
import { installFakeApi } from '../helpers/fakeApi';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { inJsdom } from '../helpers/sightsInJsdom';
import { accountExportCoverage, accountExportPaths, firstSavedCoverage, firstSavedPaths, accountExportViews, noticeOf } from './accountExport.paths';

/**
 * Model-based tests of "Download my data": `xstate/graph` yields the shortest path to every
 * transition (accountExport.paths.ts); each path is replayed in jsdom on both pages that offer the
 * export, /usage (a Free account: the Professional offer above it) and /profile, the export call
 * held until the path says how it ends; in every state the section must show what the chart holds,
 * and each ending its own sentence beside the button.
 */

const t = messages.usage;
const planRequired = { status: 403, body: { error: { code: 'plan_required', message: 'Usage analytics come with the Professional plan.', required_plan: 'professional' } } };

/**
 * The pages that offer the export, with what the rest of each page is answered and the paths
 * replayed there: all of them on /usage; on /profile, where the same section sits in the side
 * column, those whose first export is saved (every state, and each way a second one ends), which
 * keeps the file's time down.
 */
const PAGES: Array<{ path: string; page: ReactNode; routes: Parameters<typeof installFakeApi>[0]; replayed: { coverage: ChartCoverage; paths: typeof accountExportPaths } }> = [
  { path: '/usage', page: <UsagePage />, routes: { 'GET /usage/analytics': planRequired }, replayed: { coverage: accountExportCoverage, paths: accountExportPaths } },
  {
    path: '/profile',
    replayed: { coverage: firstSavedCoverage, paths: firstSavedPaths },
    page: <ProfilePage />,
    routes: {
      'GET /subscription/me': { status: 200, body: { plan: 'free', status: 'active' } },
      'GET /sessions': { status: 200, body: { sessions: [] } },
      'GET /api-keys': { status: 200, body: { api_keys: [] } },
    },
  },
];

for (const { path: address, page, routes, replayed } of PAGES) {
  describeChartPaths(
    `account export chart on ${address}, generated paths`,
    'accountExport',
    replayed,
    async ({ path }) => {
      localStorage.clear();
      toaster.remove();
      const api = installFakeApi(routes);
      const calls = new HeldActorCalls();
      let exports = 0;
      const machine = accountExportMachine.provide({
        actors: { exportAccount: calls.actor<void, AuthInput>('exportAccount', () => exports++) },
        actions: { logFailure: () => undefined },
      });
      const { unmount } = renderSignedIn(address, <AccountExportChart.Logic.Provider value={machine}>{page}</AccountExportChart.Logic.Provider>);
      const browser = userEvent.setup();
      const section = () => within(screen.getByRole('region', { name: t.exportHeading }));

      try {
        await path.test({
          states: {
            ...inJsdom(accountExportViews),
            idle: async (state) => {
              await inJsdom(accountExportViews).idle!(state);
              // Nothing is downloaded before the person asks.
              expect(exports).toBe(0);
            },
          },
          events: {
            ...outcomeHandlers(['exportAccount'], () => async ({ event }: { event: ActorOutcome }) => {
              await calls.settle('exportAccount', event);
              expect(await section().findByText(noticeOf(event))).toBeInTheDocument();
            }),
            'export.start': async () => {
              const before = exports;
              await browser.click(section().getByRole('button', { name: t.exportAction }));
              expect(exports).toBe(before + 1);
            },
          },
        });
      } finally {
        unmount();
        api.restore();
      }
    },
    20_000,
  );
}
