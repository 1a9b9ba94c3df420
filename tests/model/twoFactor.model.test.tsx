import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { twoFactorMachine } from '../../machines/twoFactor/twoFactor.machine';
import type { AuthInput } from '../../machines/shared/authRetry';
import type { RecoveryCodes, SecondFactorStatus, TotpSetup } from '../../machines/shared/api';
import { TwoFactorChart, TwoFactorSection } from '../../src/components/TwoFactorSection';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { labelled } from '../helpers/sights';
import { inJsdom } from '../helpers/sightsInJsdom';
import { twoFactorCoverage, twoFactorPaths, twoFactorViews } from './twoFactor.paths';

/**
 * Model-based tests of the profile's "Two-step sign-in": `xstate/graph` yields the shortest path to
 * every transition (twoFactor.paths.ts); each is replayed on the section in jsdom, every call held
 * until the path says how it ends, and what the person sees checked in every state.
 */

const t = messages.security;
const ACTORS = ['loadStatus', 'startSetup', 'confirmSetup', 'disable', 'renewCodes', 'copyCodes'] as const;

describeChartPaths(
  'two-step sign-in chart, generated paths',
  'twoFactor',
  { coverage: twoFactorCoverage, paths: twoFactorPaths },
  async ({ path }) => {
    localStorage.clear();
    toaster.remove();
    const calls = new HeldActorCalls();
    let downloads = 0;
    const machine = twoFactorMachine.provide({
      actors: {
        loadStatus: calls.actor<SecondFactorStatus, AuthInput>('loadStatus'),
        startSetup: calls.actor<TotpSetup, AuthInput>('startSetup'),
        confirmSetup: calls.actor<RecoveryCodes, AuthInput & { code: string }>('confirmSetup'),
        disable: calls.actor<void, AuthInput & { password: string }>('disable'),
        renewCodes: calls.actor<RecoveryCodes, AuthInput & { password: string }>('renewCodes'),
        copyCodes: calls.actor<void, { codes: string[] }>('copyCodes'),
      },
      actions: { download: () => void downloads++ },
    });
    const { unmount } = renderSignedIn(
      '/profile',
      <TwoFactorChart.Logic.Provider value={machine}>
        <TwoFactorSection />
      </TwoFactorChart.Logic.Provider>,
    );
    const browser = userEvent.setup();
    const section = () => within(screen.getByRole('region', { name: t.title }));
    const press = (name: string) => browser.click(section().getByRole('button', { name }));
    try {
      await path.test({
        states: inJsdom(twoFactorViews),
        events: {
          ...outcomeHandlers(ACTORS, (id) => async ({ event }: { event: ActorOutcome }) => calls.settle(id, event)),
          'twoFactor.retry': () => press(t.retry),
          'twoFactor.setup': () => press(t.setUp),
          'twoFactor.confirm': async () => {
            const field = section().getByLabelText(labelled(t.codeLabel));
            await browser.clear(field);
            await browser.type(field, '123456');
            await press(t.turnOn);
          },
          'twoFactor.cancel': () => press(t.cancel),
          'twoFactor.askDisable': () => press(t.turnOff),
          'twoFactor.askRenew': () => press(t.newCodes),
          'twoFactor.password': async () => {
            const field = section().getByLabelText(labelled(t.password));
            await browser.clear(field);
            await browser.type(field, 'Analytical-Engine-1843');
            await browser.click(section().getAllByRole('button', { name: new RegExp(`^(${t.turnOff}|${t.newCodes})$`) })[0]!);
          },
          'twoFactor.copy': () => press(t.copy),
          'twoFactor.download': async () => {
            const before = downloads;
            await press(t.download);
            expect(downloads).toBe(before + 1);
          },
          'twoFactor.codesSaved': () => press(t.saved),
        },
      });
    } finally {
      unmount();
    }
  },
  20_000,
);
