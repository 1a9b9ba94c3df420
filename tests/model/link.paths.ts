import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { linkMachine, type LinkEvent } from '../../machines/link/link.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type DeviceGrant } from '../../machines/shared/api';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import type { ErrorCode } from '../../contract/errors';
import { word } from '../helpers/words';

/**
 * The /link chart as a test model, for the jsdom replay (tests/model/link.model.test.tsx): the
 * answers the approval calls may get, the generated paths from each way of arriving (signed in
 * with or without a code in the address, signed out), and what the page shows in each state.
 */

const t = messages.link;

export const CODE = 'BCDF-GHJK';
export const grant: DeviceGrant = {
  user_code: CODE,
  client_id: 'sheetmind-addon',
  client_name: 'SheetMind add-on',
  scopes: ['query', 'usage:read'],
  requested_at: '2026-11-23T10:00:00.000Z',
  ip: '203.0.113.7',
  user_agent: 'Google-Apps-Script',
  expires_at: '2026-11-23T10:15:00.000Z',
};

const failure = (status: number, code: ErrorCode) => new ApiRequestError(`API Error: ${status}`, status, code, code);

export const linkOutcomes: ActorOutcome[] = [
  { type: 'xstate.done.actor.lookUp', output: grant },
  { type: 'xstate.error.actor.lookUp', error: failure(404, 'user_code_not_found') },
  { type: 'xstate.error.actor.lookUp', error: failure(410, 'user_code_expired') },
  { type: 'xstate.error.actor.lookUp', error: failure(409, 'user_code_used') },
  { type: 'xstate.error.actor.lookUp', error: new ApiRequestError('API Error: Too Many Requests', 429, 'rate_limited', null, 900) },
  { type: 'xstate.done.actor.approve', output: grant },
  { type: 'xstate.error.actor.approve', error: failure(410, 'user_code_expired') },
  { type: 'xstate.error.actor.approve', error: new ApiRequestError(messages.api.network, 0) },
  { type: 'xstate.done.actor.deny', output: grant },
  { type: 'xstate.error.actor.deny', error: failure(409, 'user_code_used') },
];

const userEvents: LinkEvent[] = [
  { type: 'code.change', code: 'bcdfghjk' },
  { type: 'code.change', code: 'HELLO-123' },
  { type: 'code.submit' },
  { type: 'code.reenter' },
  { type: 'link.approve' },
  { type: 'link.deny' },
];

export type LinkSnapshot = SnapshotFrom<typeof linkMachine>;

/** How a path arrives at /link. */
export const ARRIVALS = {
  signedIn: { auth: {} as never, code: '' },
  withCode: { auth: {} as never, code: CODE },
  signedOut: { auth: null, code: CODE },
} as const;

function pathsFrom(arrival: keyof typeof ARRIVALS) {
  const model = createTestModel(toTestModelMachine(linkMachine), {
    input: ARRIVALS[arrival],
    events: [...linkOutcomes, ...userEvents],
    serializeState: (state: LinkSnapshot, event: ActorOutcome | undefined, previous?: LinkSnapshot) =>
      JSON.stringify([state.value, state.context.code, state.context.problem, event?.type ?? null, previous?.value ?? null]),
  } as never);
  return model.getShortestPaths().map((path) => ({ arrival, title: `${arrival}: ${path.description}`, path }));
}

export const linkPaths = (Object.keys(ARRIVALS) as Array<keyof typeof ARRIVALS>).flatMap(pathsFrom);
export const linkCoverage = chartCoverage(linkMachine, linkPaths.map(({ path }) => path));

const heading = (name: string): Sight => ({ role: 'heading', level: 2, name });
/** Which account approves: the signed-in one (each runner has its own), named by its address. */
const [beforeEmail, afterEmail] = t.approvesAs('\u0000').split('\u0000').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
const approvingAccount = new RegExp(`^${beforeEmail}\\S+@\\S+${afterEmail}$`);
const field = (state: LinkSnapshot): Sight[] => [
  { label: t.codeLabel, value: state.context.code },
  state.context.problem ? { text: word(state.context.problem) } : { text: t.codeHelp },
  { role: 'button', name: state.hasTag('busy') ? t.checking : t.continue },
];
const confirm = (state: LinkSnapshot): Sight[] => [
  heading(t.confirmTitle),
  { text: t.confirmLead(grant.client_name) },
  { text: grant.ip },
  // What the device said of itself, not shown as a fact.
  { text: t.reportedAs(grant.user_agent!) },
  { text: approvingAccount },
  { text: CODE },
  { text: t.confirmWarning },
  ...(state.context.problem ? [{ role: 'alert', name: undefined } as Sight, { text: word(state.context.problem) }] : []),
  { role: 'button', name: state.matches('approving') ? t.approving : t.approve },
  { role: 'button', name: state.matches('denying') ? t.denying : t.deny },
];

/** What the page shows in each state of the chart. */
export const linkViews = {
  signedOut: (): Sight[] => [heading(t.signedOutTitle), { role: 'link', name: t.signIn }],
  entering: field,
  lookingUp: field,
  confirming: confirm,
  approving: confirm,
  denying: confirm,
  approved: (): Sight[] => [heading(t.approvedTitle), { text: t.approvedText(grant.client_name) }, { role: 'link', name: t.manageSessions }],
  denied: (): Sight[] => [heading(t.deniedTitle), { text: t.deniedText }],
  expired: (): Sight[] => [heading(t.expiredTitle), { role: 'button', name: t.otherCode }],
  used: (): Sight[] => [heading(t.usedTitle), { role: 'button', name: t.otherCode }],
} satisfies Record<string, (state: LinkSnapshot) => Sight[]>;
