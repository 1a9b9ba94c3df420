import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { fromPromise, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { authMachine } from '../../machines/auth/auth.machine';
import type { SubmitInput } from '../../machines/supportForm/supportForm.actors';
import { supportFormMachine, type SupportFormEvent, type SupportUser } from '../../machines/supportForm/supportForm.machine';
import { SUPPORT_FIELDS, type SupportValues } from '../../machines/supportForm/supportForm.schema';
import { AppProviders } from '../../src/app/AppProviders';
import { AuthProvider, useAuthSelector } from '../../src/app/auth';
import { Toaster, toaster } from '../../src/components/Toaster';
import { messages } from '../../src/content/messages';
import type { User } from '../../src/lib/api';
import { defaultRuntimeConfig } from '../../src/lib/runtimeConfig';
import SupportPage, { SupportFormLogic } from '../../src/pages/SupportPage';
import { toTestModelMachine } from '../helpers/chartModel';

/**
 * Model-based tests of the support-form chart: `xstate/graph` yields the shortest path to every
 * transition, signed in and signed out; each is replayed on the real support page in jsdom, and
 * in every state the page must show exactly the chart's values, errors and busy state.
 */

const ada: User = {
  id: 'u-7',
  email: 'ada@example.com',
  full_name: 'Ada Lovelace',
  username: 'ada',
  created_at: '2026-11-01T09:00:00.000Z',
  subscription_plan: 'free',
};
const t = messages.support;
const LABELS: Record<keyof SupportValues, string> = {
  title: t.titleLabel,
  description: t.descriptionLabel,
  email: t.emailLabel,
  telephone: t.telephoneLabel,
};

type ActorEvent = { type: string; output?: unknown; error?: unknown };
const actorEvents: ActorEvent[] = [
  { type: 'xstate.done.actor.loadDraft', output: {} },
  { type: 'xstate.done.actor.loadDraft', output: { title: 'Saved title', description: 'Saved description text' } },
  { type: 'xstate.error.actor.loadDraft', error: new SyntaxError('Unexpected token') },
  { type: 'xstate.done.actor.submit', output: undefined },
  { type: 'xstate.error.actor.submit', error: new Error('no mail program') },
];
const formEvents: SupportFormEvent[] = [
  { type: 'draft.change', field: 'title', value: 'Broken totals' },
  { type: 'draft.change', field: 'description', value: 'Totals are off by one in row 2' },
  { type: 'draft.change', field: 'telephone', value: '+44 20 7946 0000' },
  { type: 'form.submit' },
];

type Snapshot = SnapshotFrom<typeof supportFormMachine>;

function modelOf(user: SupportUser | null) {
  return createTestModel(toTestModelMachine(supportFormMachine.provide({ actions: { saveDraft: () => undefined, removeDraft: () => undefined, logCorruptDraft: () => undefined } })), {
    input: { user, supportEmail: 'support@sheetmind.example' },
    events: [...actorEvents, ...formEvents],
    // The page follows the auth chart for the user; that event is covered by the chart tests.
    filterEvents: (_state: Snapshot, event: { type: string }) => event.type !== 'session.update',
    // A state is its value, the signed-in user, the fields in error and the values (what the page
    // shows), plus the transition into it.
    serializeState: (state: Snapshot, event: { type: string; field?: string; value?: string } | undefined, previous?: Snapshot) => {
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

const field = (name: keyof SupportValues) => screen.getByLabelText(new RegExp(`^${LABELS[name]}`)) as HTMLInputElement;

/** What the user sees must be the chart's state: values, errors, busy button, notice. */
async function showsState(state: Snapshot) {
  const { values, errors, user } = state.context;
  for (const name of SUPPORT_FIELDS) {
    await waitFor(() => expect(field(name).value).toBe(values[name]));
    if (errors[name]) expect(screen.getByText(errors[name]!)).toBeInTheDocument();
  }
  for (const message of Object.values(t.validation)) {
    if (!Object.values(errors).includes(message)) expect(screen.queryByText(message)).toBeNull();
  }
  expect(screen.queryByRole('link', { name: t.signInLink }) !== null).toBe(user === null);
}

const paths = [...modelOf(null).getShortestPaths(), ...modelOf({ id: ada.id, full_name: ada.full_name, email: ada.email }).getShortestPaths()];

describe('support-form chart, generated paths', () => {
  afterAll(() => console.log(`support-form chart: ${paths.length} generated paths`));

  it.each(paths.map((path) => [path.description, path] as const))(
    '%s',
    async (_title, path) => {
      localStorage.clear();
      toaster.remove();
      const signedIn = path.steps[0]!.state.context.user !== null;
      const pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
      const fake = <T, I>(name: string) =>
        fromPromise<T, I>(() => new Promise<T>((resolve, reject) => pending.set(name, { resolve: resolve as (v: unknown) => void, reject })));
      const opened: SubmitInput[] = [];
      const machine = supportFormMachine.provide({
        actors: {
          loadDraft: fake<Partial<SupportValues>, unknown>('loadDraft'),
          submit: fromPromise<void, SubmitInput>(({ input }) => {
            opened.push(input);
            return new Promise<void>((resolve, reject) => pending.set('submit', { resolve: () => resolve(), reject }));
          }),
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
      const router = createMemoryRouter(
        [
          {
            path: '/support',
            element: (
              <AuthProvider machine={auth}>
                <SupportFormLogic.Provider value={machine}>
                  <Gate />
                </SupportFormLogic.Provider>
                <Toaster />
              </AuthProvider>
            ),
          },
        ],
        { initialEntries: ['/support'] },
      );
      render(
        <AppProviders config={defaultRuntimeConfig}>
          <RouterProvider router={router} />
        </AppProviders>,
      );
      const browser = userEvent.setup();
      const settle = (name: string) => async ({ event }: { event: ActorEvent }) => {
        await waitFor(() => expect(pending.has(name)).toBe(true));
        const call = pending.get(name)!;
        pending.delete(name);
        await act(async () => ('error' in event && event.error ? call.reject(event.error) : call.resolve(event.output)));
      };

      await path.test({
        states: {
          restoring: async () => {
            await screen.findByLabelText(/^Title/);
          },
          editing: async (state) => {
            await showsState(state as Snapshot);
            const button = screen.getByRole('button', { name: t.submit });
            expect(button.hasAttribute('disabled')).toBe(!signedIn);
          },
          submitting: async (state) => {
            await waitFor(() => expect(screen.getByRole('button', { name: t.busy })).toBeInTheDocument());
            expect(opened.at(-1)?.values).toEqual((state as Snapshot).context.values);
          },
        },
        events: {
          'xstate.done.actor.loadDraft': settle('loadDraft'),
          'xstate.error.actor.loadDraft': settle('loadDraft'),
          'xstate.done.actor.submit': async (step) => {
            await settle('submit')(step as { event: ActorEvent });
            await screen.findByText(t.submittedText);
          },
          'xstate.error.actor.submit': async (step) => {
            await settle('submit')(step as { event: ActorEvent });
            await screen.findByText(t.failedText);
          },
          'draft.change': async ({ event }) => {
            const { field: name, value } = event as Extract<SupportFormEvent, { type: 'draft.change' }>;
            await browser.clear(field(name));
            await browser.type(field(name), value);
          },
          'form.submit': async (step) => {
            if (signedIn) {
              await browser.click(screen.getByRole('button', { name: t.submit }));
              const errors = (step.state as Snapshot).context.errors;
              const first = SUPPORT_FIELDS.find((name) => errors[name]);
              if (first) await waitFor(() => expect(document.activeElement).toBe(field(first)));
            } else {
              await browser.type(field('title'), '{Enter}');
              await screen.findByText(t.authRequiredText);
            }
          },
        },
      });
    },
    20_000,
  );
});
