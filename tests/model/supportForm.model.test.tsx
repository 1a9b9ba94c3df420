import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { authMachine } from '../../machines/auth/auth.machine';
import type { SubmitInput } from '../../machines/supportForm/supportForm.actors';
import { supportFormMachine, type SupportFormEvent } from '../../machines/supportForm/supportForm.machine';
import type { SupportValues } from '../../machines/supportForm/supportForm.schema';
import { useAuthSelector } from '../../src/app/auth';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import type { User } from '../../machines/shared/api';
import SupportPage, { SupportFormChart } from '../../src/pages/SupportPage';
import { describeChartPaths, type ActorOutcome } from '../helpers/chartModel';
import { labelled } from '../helpers/sights';
import { HeldActorCalls, pasteInto, renderPage } from '../helpers/renderApp';
import { inJsdom, seesInJsdom } from '../helpers/sightsInJsdom';
import { focusAfterSubmit, SUPPORT_LABELS, supportCoverage, supportPaths, supportUser, supportViews, type SupportSnapshot } from './supportForm.paths';

/**
 * Model-based tests of the support-form chart: `xstate/graph` yields the shortest path to every
 * transition, signed in and signed out (supportForm.paths.ts); each is replayed on the real
 * support page in jsdom, and in every state the page must show exactly the chart's values, errors
 * and busy state. tests/paths replays the same paths in Chromium.
 */

const ada: User = { ...supportUser, username: 'ada', created_at: '2026-11-01T09:00:00.000Z', email_verified: true, subscription_plan: 'free' };
const t = messages.support;


const field = (name: keyof SupportValues) => screen.getByLabelText(labelled(SUPPORT_LABELS[name])) as HTMLInputElement;

describeChartPaths('support-form chart, generated paths', 'support-form', { coverage: supportCoverage, paths: supportPaths }, async ({ path, signedIn }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const opened: SubmitInput[] = [];
  const machine = supportFormMachine.provide({
    actors: {
      loadDraft: calls.actor<Partial<SupportValues>, unknown>('loadDraft'),
      submit: calls.actor<void, SubmitInput>('submit', (input) => opened.push(input)),
    },
  });
  const auth = authMachine.provide({
    guards: { hasStoredToken: () => signedIn },
    actors: { fetchUser: fromPromise(async () => ada) },
  });
  function Gate() {
    const loading = useAuthSelector((s) => s.hasTag('loading'));
    return loading ? null : <SupportPage />;
  }
  renderPage(
    '/support',
    auth,
    <SupportFormChart.Logic.Provider value={machine}>
      <Gate />
    </SupportFormChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const settle = (name: string) => ({ event }: { event: ActorOutcome }) => calls.settle(name, event);

  await path.test({
    states: {
      ...inJsdom(supportViews),
      submitting: async (state) => {
        await seesInJsdom(supportViews.submitting());
        expect(opened.at(-1)?.values).toEqual((state as SupportSnapshot).context.values);
      },
    },
    events: {
      'xstate.done.actor.loadDraft': settle('loadDraft'),
      'xstate.error.actor.loadDraft': settle('loadDraft'),
      'xstate.done.actor.submit': async (step) => {
        await settle('submit')(step as { event: ActorOutcome });
        await screen.findByText(t.submittedText);
      },
      'xstate.error.actor.submit': async (step) => {
        await settle('submit')(step as { event: ActorOutcome });
        await screen.findByText(t.failedText);
      },
      'draft.change': async ({ event }) => {
        const { field: name, value } = event as Extract<SupportFormEvent, { type: 'draft.change' }>;
        await pasteInto(browser, field(name), value);
      },
      'form.submit': async (step) => {
        if (signedIn) {
          await browser.click(screen.getByRole('button', { name: t.submit }));
          await seesInJsdom(focusAfterSubmit(step.state as SupportSnapshot));
        } else {
          await browser.type(field('title'), '{Enter}');
          await screen.findByText(t.authRequiredText);
        }
      },
    },
  });
}, 20_000);
