import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { functionsMachine, type FunctionsEvent } from '../../machines/functions/functions.machine';
import type { FunctionList } from '../../machines/functions/functions.actors';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type CustomFunction, type TeamRole } from '../../machines/shared/api';
import { planWith } from '../../contract/plans';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';

/**
 * The list chart of /functions as a test model, for the jsdom replay
 * (tests/model/functions.model.test.tsx): the lists the API may answer (a team admin's personal
 * and team functions, a member's team function they may only run, none), the refusals (no
 * connection, a plan without custom functions), how a deletion may end, the generated paths and
 * what the page shows in each state. A person can only ask for what the page offers: deleting a
 * function they may change, answering the question, trying again, saving a new function.
 */

const t = messages.functions;

const personal: CustomFunction = {
  id: 'fn-personal',
  name: 'TOTAL_BY_REGION',
  task: 'analyze',
  prompt: 'Total {{input}} by region',
  description: 'Totals per region, largest first',
  scope: 'personal',
  created_at: '2026-11-20T09:00:00.000Z',
  updated_at: '2026-11-20T09:00:00.000Z',
};
const team: CustomFunction = {
  ...personal,
  id: 'fn-team',
  name: 'WEEKLY_SUMMARY',
  task: 'explain',
  prompt: 'Summarise the week in {{input}}',
  description: '',
  scope: 'team',
};

/** The function a saved editor adds (the runner types it in "New function"). */
export const NEW_FUNCTION = { name: 'FLAG_LATE_ORDERS', prompt: 'Flag the late orders in {{input}}' };

/** The lists the API may answer, each with the caller's role in their team. */
export const LISTS = {
  admin: { functions: [personal, team], teamRole: 'admin' },
  member: { functions: [team], teamRole: 'member' },
  none: { functions: [], teamRole: null },
} satisfies Record<string, FunctionList>;

const planRequired = new ApiRequestError('API Error: Forbidden', 403, 'plan_required', 'Custom functions come with the Professional plan.');
const offline = new ApiRequestError(messages.api.network, 0);
/** A deletion the server refuses, in its own words. */
export const DELETE_REFUSED = 'The function could not be deleted. Please try again.';

export const functionsOutcomes: ActorOutcome[] = [
  ...Object.values(LISTS).map((output) => ({ type: 'xstate.done.actor.loadFunctions', output })),
  { type: 'xstate.error.actor.loadFunctions', error: offline },
  { type: 'xstate.error.actor.loadFunctions', error: planRequired },
  { type: 'xstate.done.actor.deleteFunction', output: undefined },
  { type: 'xstate.error.actor.deleteFunction', error: new ApiRequestError('API Error: Internal Server Error', 500, 'internal_error', DELETE_REFUSED) },
];

export type FunctionsSnapshot = SnapshotFrom<typeof functionsMachine>;

const manages = (role: TeamRole | null) => role === 'owner' || role === 'admin';
/** The functions the caller may delete: their own, and their team's as its owner or an admin. */
const deletable = ({ functions, teamRole }: FunctionsSnapshot['context']) => functions.filter((fn) => fn.scope === 'personal' || manages(teamRole));

/** What the person can do on the page as it stands: only what it offers. */
function userEvents(state: FunctionsSnapshot): FunctionsEvent[] {
  // The editor stays open beside the question: a function saved there reloads the list.
  if (state.matches('confirmingDelete')) return [{ type: 'change.confirm' }, { type: 'change.cancel' }, { type: 'functions.reload' }];
  if (state.matches('failed')) return [{ type: 'functions.retry' }];
  if (state.matches('idle')) return [...deletable(state.context).map((fn) => ({ type: 'function.delete' as const, id: fn.id })), { type: 'functions.reload' }];
  return [];
}

const USER_EVENT_TYPES = new Set<string>(['function.delete', 'change.confirm', 'change.cancel', 'functions.reload', 'functions.retry']);

const model = createTestModel(toTestModelMachine(functionsMachine.provide({ actions: { notify: () => undefined } })), {
  input: { auth: null },
  events: (state: FunctionsSnapshot) => [...functionsOutcomes, ...userEvents(state)],
  // The walk adds a bare event for each type the chart accepts and the list leaves out: those are
  // what the page does not offer in that state.
  filterEvents: (state: FunctionsSnapshot, event: { type: string }) =>
    !USER_EVENT_TYPES.has(event.type) || userEvents(state).some((offered) => JSON.stringify(offered) === JSON.stringify(event)),
  // A state is what the page shows (the chart's state, the functions listed, the role, the
  // function asked about) and the transition into it, so every transition is walked.
  serializeState: (state: FunctionsSnapshot, event: ActorOutcome | undefined, previous?: FunctionsSnapshot) =>
    JSON.stringify([
      state.value,
      state.context.functions.map((fn) => fn.id),
      state.context.teamRole,
      state.context.pendingId,
      event?.type ?? null,
      previous?.value ?? null,
    ]),
} as never);

export const functionsPaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const functionsCoverage = chartCoverage(functionsMachine, functionsPaths.map(({ path }) => path));

/** The toast each deletion's outcome shows. */
export const toastOf: Record<string, string> = {
  'xstate.done.actor.deleteFunction': t.deleted,
  'xstate.error.actor.deleteFunction': t.deleteFailed,
};

const list = { role: 'region', name: t.listTitle } as const;

/** The list as the chart holds it: every function with what the caller may do with it, and the question when one is asked. */
function listed(state: FunctionsSnapshot): Sight[] {
  const { functions, teamRole, pendingId } = state.context;
  const asked = state.matches('confirmingDelete') ? pendingId : null;
  // While the list is read again, a function deleted, or a deletion asked about, no other change can start.
  const busy = state.hasTag('busy') || state.hasTag('loading') || asked !== null;
  const personalCount = functions.filter((fn) => fn.scope === 'personal').length;
  const mayDelete = deletable(state.context);
  return [
    { role: 'heading', level: 1, name: t.title },
    { in: list, role: 'heading', level: 2, name: t.listTitle },
    { in: list, text: t.limits(personalCount, teamRole === null ? null : functions.length - personalCount) },
    { in: list, role: 'button', name: t.newFunction },
    { in: list, text: t.empty, ...(functions.length ? { absent: true as const } : {}) },
    ...functions.flatMap((fn): Sight[] => {
      const item = { role: 'listitem', name: fn.name } as const;
      const question = t.deleteConfirm(fn.name);
      return [
        { in: item, text: t.cellCall(fn.name) },
        { in: item, text: fn.scope === 'team' ? t.scopeTeam : t.scopePersonal },
        // The question takes the place of the function's buttons.
        { in: item, role: 'button', name: `${t.run}: ${fn.name}`, ...(asked === fn.id ? { absent: true as const } : {}) },
        ...(!mayDelete.includes(fn)
          ? [{ in: item, text: t.teamReadOnly } satisfies Sight, { in: item, role: 'button', name: `${t.delete}: ${fn.name}`, absent: true } satisfies Sight]
          : asked === fn.id
            ? ([
                { in: item, text: question },
                { in: item, role: 'button', name: t.confirmDelete },
                { in: item, role: 'button', name: t.cancel },
                { in: item, role: 'button', name: `${t.delete}: ${fn.name}`, absent: true },
              ] satisfies Sight[])
            : ([
                { in: item, role: 'button', name: `${t.delete}: ${fn.name}`, disabled: busy },
                { in: item, role: 'button', name: `${t.edit}: ${fn.name}`, disabled: busy },
                { text: question, absent: true },
              ] satisfies Sight[])),
      ];
    }),
    { text: t.failed, absent: true },
    { role: 'heading', name: t.upgrade.title, absent: true },
  ];
}

/** While the list is read: the spinner when no list is shown yet, the last list (its changes waiting) when there is one. */
const loading = (state: FunctionsSnapshot): Sight[] =>
  state.context.functions.length
    ? listed(state)
    : [
        { role: 'heading', level: 1, name: t.title },
        { role: 'status' },
        { label: messages.loading },
        { role: 'region', name: t.listTitle, absent: true },
      ];

/** What the page shows in each state of the chart. */
export const functionsViews = {
  loading,
  idle: listed,
  confirmingDelete: listed,
  deleting: listed,
  failed: (): Sight[] => [
    { role: 'heading', level: 1, name: t.title },
    { role: 'alert', name: undefined },
    { text: t.failed },
    { role: 'button', name: t.retry },
    { role: 'region', name: t.listTitle, absent: true },
    { role: 'button', name: t.newFunction, absent: true },
  ],
  // A plan without custom functions: what Professional adds, and the way to it, instead of the list.
  upgrade: (): Sight[] => [
    { role: 'heading', level: 1, name: t.title },
    { role: 'heading', level: 2, name: t.upgrade.title },
    { text: t.upgrade.lead(planWith('custom_functions').name) },
    { role: 'link', name: t.upgrade.button(planWith('custom_functions').name) },
    { role: 'region', name: t.listTitle, absent: true },
    { role: 'button', name: t.newFunction, absent: true },
  ],
} satisfies Record<string, (state: FunctionsSnapshot) => Sight[]>;
