import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { passkeysMachine, type PasskeysEvent } from '../../machines/passkeys/passkeys.machine';
import { PasskeysChart, PasskeysSection } from '../../src/components/PasskeysSection';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, pasteInto, renderSignedIn } from '../helpers/renderApp';
import { labelled } from '../helpers/sights';
import { inJsdom } from '../helpers/sightsInJsdom';
import { NEW_NAME, passkeysCoverage, passkeysPaths, passkeysViews, RENAMED, toastOf, type PasskeysSnapshot } from './passkeys.paths';

/**
 * Model-based tests of the profile's passkeys chart: `xstate/graph` yields the shortest path to
 * every transition (passkeys.paths.ts); each path is replayed on the real "Passkeys" section in
 * jsdom, the chart's calls and the browser's prompt held until the path says how they end; in every
 * state the section must show what the chart holds, each outcome its toast, and each call must be
 * made for what the person clicked.
 */

const t = messages.passkeys;
const ACTORS = ['loadPasskeys', 'registrationOptions', 'createPasskey', 'savePasskey', 'renamePasskey', 'deletePasskey'] as const;

// jsdom has no WebAuthn; the section offers "Add a passkey" only where the browser has it.
beforeAll(() => {
  Object.defineProperty(globalThis, 'PublicKeyCredential', { value: function PublicKeyCredential() {}, configurable: true });
});
afterAll(() => {
  delete (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
});

describeChartPaths('passkeys chart, generated paths', 'passkeys', { coverage: passkeysCoverage, paths: passkeysPaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const asked: unknown[] = [];
  const held = (name: string) =>
    calls.actor<unknown, { id?: string; name?: string; credential?: { id: string } }>(name, (input) => asked.push([name, input.id ?? null, input.name ?? null, input.credential?.id ?? null]));
  const machine = passkeysMachine.provide({ actors: Object.fromEntries(ACTORS.map((name) => [name, held(name)])) as never });
  const { unmount } = renderSignedIn(
    '/profile',
    <PasskeysChart.Logic.Provider value={machine}>
      <PasskeysSection />
    </PasskeysChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const section = () => within(screen.getByRole('region', { name: t.title }));
  const settle = ({ event }: { event: ActorOutcome }) =>
    calls.settle(event.type.replace(/^xstate\.(done|error)\.actor\./, ''), event).then(async () => {
      for (const text of toastOf[event.type] ?? []) await screen.findByText(text);
    });
  const nothingAsked = async (act: () => Promise<void>) => {
    const before = asked.length;
    await act();
    expect(asked.length).toBe(before);
  };
  const item = (state: unknown, id: string) => {
    const passkey = (state as PasskeysSnapshot).context.passkeys.find((p) => p.id === id)!;
    return within(screen.getByRole('listitem', { name: passkey.name }));
  };

  try {
    await path.test({
      states: inJsdom(passkeysViews),
      events: {
        ...outcomeHandlers(ACTORS, () => settle),
        'passkeys.retry': async () => {
          await browser.click(section().getByRole('button', { name: t.retry }));
          expect(asked.at(-1)).toEqual(['loadPasskeys', null, null, null]);
        },
        'passkey.add': async () => {
          await browser.click(section().getByRole('button', { name: t.add }));
          expect(asked.at(-1)).toEqual(['registrationOptions', null, null, null]);
        },
        'name.save': async () => {
          await pasteInto(browser, section().getByLabelText(labelled(t.name)), NEW_NAME);
          await browser.click(section().getByRole('button', { name: t.save }));
          // The passkey the device made is sent with its name.
          expect(asked.at(-1)).toEqual(['savePasskey', null, NEW_NAME, 'bmV3']);
        },
        'name.cancel': () => nothingAsked(() => browser.click(section().getByRole('button', { name: t.cancel }))),
        'passkey.rename': ({ event, state }) =>
          nothingAsked(() => browser.click(item(state, (event as Extract<PasskeysEvent, { type: 'passkey.rename' }>).id).getByRole('button', { name: t.rename }))),
        'rename.save': async ({ state }) => {
          const id = (state as PasskeysSnapshot).context.pendingId!;
          await pasteInto(browser, section().getByLabelText(labelled(t.name)), RENAMED);
          await browser.click(section().getByRole('button', { name: t.saveName }));
          expect(asked.at(-1)).toEqual(['renamePasskey', id, RENAMED, null]);
        },
        'rename.cancel': () => nothingAsked(() => browser.click(section().getByRole('button', { name: t.cancel }))),
        'passkey.delete': ({ event, state }) =>
          nothingAsked(() => browser.click(item(state, (event as Extract<PasskeysEvent, { type: 'passkey.delete' }>).id).getByRole('button', { name: t.delete }))),
        'delete.confirm': async ({ state }) => {
          await browser.click(section().getByRole('button', { name: t.confirmDelete }));
          expect(asked.at(-1)).toEqual(['deletePasskey', (state as PasskeysSnapshot).context.pendingId, null, null]);
        },
        'delete.cancel': () => nothingAsked(() => browser.click(section().getByRole('button', { name: t.cancel }))),
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
