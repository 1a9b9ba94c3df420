import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { inviteFormMachine, type InviteFormEvent } from '../../machines/inviteForm/inviteForm.machine';
import { refusalText } from '../../machines/shared/failures';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type TeamInvitation } from '../../machines/shared/api';
import type { ErrorCode } from '../../contract/errors';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * The invite-form chart (on /team) as a test model, shared by the jsdom replay
 * (tests/model/inviteForm.model.test.tsx) and the Chromium replay against the real server
 * (tests/paths/inviteForm.paths.test.ts): what the person types and chooses, how sending can end,
 * and what the form shows in each state.
 */

const t = messages.team;

/** The address the paths invite; nobody has an account with it. */
export const INVITEE = 'bob.invitee@example.com';

const refusal = (status: number, code: ErrorCode) => new ApiRequestError(`API Error: ${status}`, status, code, code);

export const inviteOutcomes = {
  sent: { type: 'xstate.done.actor.invite', output: { id: 'i-2', email: INVITEE, role: 'member', expires_at: '2026-12-01T12:00:00.000Z' } satisfies TeamInvitation },
  alreadyInTeam: { type: 'xstate.error.actor.invite', error: refusal(409, 'already_in_team') },
  pending: { type: 'xstate.error.actor.invite', error: refusal(409, 'invitation_pending') },
  seatsTaken: { type: 'xstate.error.actor.invite', error: refusal(403, 'seat_limit_reached') },
  offline: { type: 'xstate.error.actor.invite', error: new ApiRequestError(messages.api.network, 0) },
} satisfies Record<string, ActorOutcome>;

const formEvents: InviteFormEvent[] = [
  { type: 'draft.email', value: '' },
  { type: 'draft.email', value: 'bob@example' },
  // As someone might type it; the server compares addresses without case.
  { type: 'draft.email', value: INVITEE.toUpperCase() },
  { type: 'draft.role', value: 'admin' },
  { type: 'draft.role', value: 'member' },
  { type: 'form.submit' },
];

export type InviteFormSnapshot = SnapshotFrom<typeof inviteFormMachine>;

const noop = () => undefined;
const model = createTestModel(toTestModelMachine(inviteFormMachine.provide({ actions: { notify: noop, sent: noop } })), {
  input: { auth: null },
  events: [...Object.values(inviteOutcomes), ...formEvents],
  // A state is what the form shows (field values, the problem under the address, busy) and the
  // transition into it, so every transition is walked once.
  serializeState: (state: InviteFormSnapshot, event: (ActorOutcome & { value?: string }) | undefined, previous?: InviteFormSnapshot) =>
    JSON.stringify([state.value, state.context.email, state.context.role, state.context.error, event?.type ?? null, event?.value ?? null, previous?.value ?? null]),
} as never);

export const invitePaths = model.getShortestPaths().map((path) => ({ title: path.description, path }));
export const inviteCoverage = chartCoverage(inviteFormMachine, invitePaths.map(({ path }) => path));

const PROBLEMS = [t.emailRequired, t.emailInvalid, t.errors.already_in_team!, t.errors.invitation_pending!];

/** The form as a person sees it: the fields' values, the problem under the address (and no other), the button. */
function form(state: InviteFormSnapshot): Sight[] {
  const { email, role, error } = state.context;
  return [
    { label: t.inviteEmail, value: email },
    { label: t.inviteRole, value: role },
    ...PROBLEMS.map((problem): Sight => (error !== null && problem === word(error) ? { text: problem } : { text: problem, absent: true })),
    { role: 'button', name: state.hasTag('busy') ? t.inviteBusy : t.inviteSubmit },
  ];
}

export const inviteViews = { editing: form, sending: form } satisfies Record<string, (state: InviteFormSnapshot) => Sight[]>;

/** What the end of a send shows besides the form: the toast naming the address, or the refusal in a toast (those about the address show under it). */
export function sendingEnded(outcome: ActorOutcome): Sight[] {
  if (outcome.type === 'xstate.done.actor.invite') return [{ text: t.inviteSent((outcome.output as TeamInvitation).email) }];
  const error = outcome.error as ApiRequestError;
  return error.code === 'already_in_team' || error.code === 'invitation_pending' ? [] : [{ text: t.actionFailed }, { text: word(refusalText(error)) }];
}
