import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { credentialsMachine, type CredentialsEvent } from '../../machines/credentials/credentials.machine';
import { CredentialsChart, CredentialsSections } from '../../src/components/CredentialsSections';
import { toaster } from '../../src/components/ToastRegion';
import * as messages from '../../src/content/messages';
import type { NewApiKey } from '../../machines/shared/api';
import { describeChartPaths, outcomeHandlers, type ActorOutcome } from '../helpers/chartModel';
import { HeldActorCalls, renderSignedIn } from '../helpers/renderApp';
import { labelled } from '../helpers/sights';
import { inJsdom } from '../helpers/sightsInJsdom';
import { credentialsCoverage, credentialsPaths, credentialsViews, newKey, sessionName, toastOf, type CredentialsSnapshot } from './credentials.paths';

/**
 * Model-based tests of the profile's credentials chart: `xstate/graph` yields the shortest path to
 * every transition (credentials.paths.ts); each path is replayed on the real "Sessions and devices"
 * and "API keys" sections in jsdom, the chart's calls held until the path says how they end, and in
 * every state the sections must show what the chart holds; each change ends with its toast, and
 * each call is made for what the person clicked.
 */

const t = messages.credentials;

describeChartPaths('credentials chart, generated paths', 'credentials', { coverage: credentialsCoverage, paths: credentialsPaths }, async ({ path }) => {
  localStorage.clear();
  toaster.remove();
  const calls = new HeldActorCalls();
  const asked: unknown[] = [];
  const held = <I extends { id?: string; key?: NewApiKey }>(name: string) => calls.actor<unknown, I>(name, (input) => asked.push([name, input.id ?? input.key ?? null]));
  const machine = credentialsMachine.provide({
    actors: {
      loadCredentials: held('loadCredentials'),
      endSession: held('endSession'),
      endOtherSessions: held('endOtherSessions'),
      createApiKey: held('createApiKey'),
      revokeApiKey: held('revokeApiKey'),
    } as never,
  });
  const { unmount } = renderSignedIn(
    '/profile',
    <CredentialsChart.Logic.Provider value={machine}>
      <CredentialsSections />
    </CredentialsChart.Logic.Provider>,
  );
  const browser = userEvent.setup();
  const region = (name: string) => within(screen.getByRole('region', { name }));
  const settle = ({ event }: { event: ActorOutcome }) => {
    const name = event.type.replace(/^xstate\.(done|error)\.actor\./, '');
    return calls.settle(name, event).then(async () => {
      if (toastOf[event.type]) await screen.findByText(toastOf[event.type]!);
    });
  };
  const lastAsked = () => asked.at(-1);

  try {
    await path.test({
      states: inJsdom(credentialsViews),
      events: {
        ...outcomeHandlers(['loadCredentials', 'endSession', 'endOtherSessions', 'createApiKey', 'revokeApiKey'], () => settle),
        'session.end': async ({ event, state }) => {
          const { id } = event as Extract<CredentialsEvent, { type: 'session.end' }>;
          const session = (state as CredentialsSnapshot).context.sessions.find((s) => s.id === id)!;
          const before = asked.length;
          await browser.click(within(screen.getByRole('listitem', { name: sessionName(session) })).getByRole('button', { name: t.endSession }));
          // Nothing is ended before the person confirms.
          expect(asked.length).toBe(before);
        },
        'sessions.endOthers': async () => {
          await browser.click(region(t.sessionsTitle).getByRole('button', { name: t.endOthers }));
          expect(lastAsked()).toEqual(['endOtherSessions', null]);
        },
        'key.create': async () => {
          const keys = region(t.keysTitle);
          await browser.type(keys.getByLabelText(labelled(t.keyName)), newKey.name);
          await browser.click(keys.getByRole('button', { name: t.createKey }));
          expect(lastAsked()).toEqual(['createApiKey', newKey]);
          // The field is emptied for the next key.
          expect(keys.getByLabelText(labelled(t.keyName))).toHaveValue('');
        },
        'key.revoke': async ({ event, state }) => {
          const { id } = event as Extract<CredentialsEvent, { type: 'key.revoke' }>;
          const apiKey = (state as CredentialsSnapshot).context.apiKeys.find((k) => k.id === id)!;
          const before = asked.length;
          await browser.click(within(screen.getByRole('listitem', { name: apiKey.name })).getByRole('button', { name: t.revoke }));
          expect(asked.length).toBe(before);
        },
        'change.confirm': async ({ state }) => {
          // `state` is the one the confirmation leads to.
          const snapshot = state as CredentialsSnapshot;
          const ending = snapshot.matches('endingSession');
          await browser.click(screen.getByRole('button', { name: ending ? t.confirmEnd : t.confirmRevoke }));
          expect(lastAsked()).toEqual([ending ? 'endSession' : 'revokeApiKey', snapshot.context.pendingId]);
        },
        'change.cancel': async () => {
          const before = asked.length;
          await browser.click(screen.getByRole('button', { name: t.cancel }));
          expect(asked.length).toBe(before);
        },
        'key.dismiss': () => browser.click(region(t.keysTitle).getByRole('button', { name: t.done })),
        'credentials.retry': async () => {
          const before = asked.length;
          await browser.click(region(t.sessionsTitle).getByRole('button', { name: t.retry }));
          expect(asked.slice(before)).toEqual([['loadCredentials', null]]);
        },
      },
    });
  } finally {
    unmount();
  }
}, 20_000);
