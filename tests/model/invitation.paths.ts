import type { SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { invitationMachine } from '../../machines/invitation/invitation.machine';
import * as messages from '../../src/content/messages';
import { ApiRequestError, type InvitationPreview, type Team } from '../../machines/shared/api';
import { formatDate } from '../../src/lib/planDisplay';
import type { ErrorCode } from '../../contract/errors';
import { TEAM_SEAT_LIMIT } from '../../contract/plans';
import { chartCoverage, toTestModelMachine, type ActorOutcome } from '../helpers/chartModel';
import type { Sight } from '../helpers/sights';
import { word } from '../helpers/words';

/**
 * The invitation chart (`/invite/{token}`) as a test model, shared by the jsdom replay
 * (tests/model/invitation.model.test.tsx) and the Chromium replay against the real server
 * (tests/paths/invitation.paths.test.ts): the answers the preview and the acceptance may get, the
 * generated paths from each way of arriving (signed in with the invited address, with another
 * one, signed out) and what the page shows in each state.
 */

const t = messages.invitation;

/** The people of the model; the Chromium runner makes real accounts with these names and addresses. */
export const INVITER = 'Grace Hopper';
export const INVITED_EMAIL = 'invited.model@example.com';
export const OTHER_EMAIL = 'someone.else.model@example.com';

/** As the server answers an invitation sent now: valid for 7 days. */
export const preview: InvitationPreview = {
  team_name: `${INVITER}’s team`,
  inviter_name: INVITER,
  email: INVITED_EMAIL,
  role: 'member',
  expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
};
const team: Team = {
  id: 't-1',
  name: preview.team_name,
  created_at: '2026-11-01T09:00:00.000Z',
  seat_limit: TEAM_SEAT_LIMIT,
  seats_used: 2,
  plan_status: 'active',
  default_monthly_query_cap: null,
  require_two_factor: false,
  session_max_age_hours: null,
};

const refusal = (status: number, code: ErrorCode) => new ApiRequestError(`API Error: ${status}`, status, code, code);
const offline = () => new ApiRequestError(messages.api.network, 0);

export const invitationOutcomes = {
  previewed: { type: 'xstate.done.actor.preview', output: preview },
  previewInvalid: { type: 'xstate.error.actor.preview', error: refusal(404, 'invalid_invitation') },
  previewOffline: { type: 'xstate.error.actor.preview', error: offline() },
  joined: { type: 'xstate.done.actor.accept', output: { team, role: 'member' } },
  acceptInvalid: { type: 'xstate.error.actor.accept', error: refusal(404, 'invalid_invitation') },
  acceptMismatch: { type: 'xstate.error.actor.accept', error: refusal(403, 'invitation_email_mismatch') },
  acceptAlreadyInTeam: { type: 'xstate.error.actor.accept', error: refusal(409, 'already_in_team') },
  acceptOffline: { type: 'xstate.error.actor.accept', error: offline() },
} satisfies Record<string, ActorOutcome>;

/** How a path arrives at the page: who is signed in. */
export const ARRIVALS = { invited: INVITED_EMAIL, other: OTHER_EMAIL, signedOut: null } as const;
export type Arrival = keyof typeof ARRIVALS;

export type InvitationSnapshot = SnapshotFrom<typeof invitationMachine>;

const noop = () => undefined;

function pathsFrom(arrival: Arrival) {
  const model = createTestModel(toTestModelMachine(invitationMachine.provide({ actions: { notify: noop, navigate: noop } })), {
    input: { auth: null, token: 'model-token' },
    events: [...Object.values(invitationOutcomes), { type: 'invitation.accept' }, { type: 'invitation.retry' }],
    // Only someone signed in with the invited address is offered Accept.
    filterEvents: (_state: InvitationSnapshot, event: { type: string }) => event.type !== 'invitation.accept' || arrival === 'invited',
    serializeState: (state: InvitationSnapshot, event: ActorOutcome | undefined, previous?: InvitationSnapshot) =>
      JSON.stringify([state.value, state.context.preview !== null, state.context.failure, event?.type ?? null, previous?.value ?? null]),
  } as never);
  return model.getShortestPaths().map((path) => ({ arrival, title: `${arrival}: ${path.description}`, path }));
}

export const invitationPaths = (Object.keys(ARRIVALS) as Arrival[]).flatMap(pathsFrom);
export const invitationCoverage = chartCoverage(invitationMachine, invitationPaths.map(({ path }) => path));

const heading = (name: string): Sight => ({ role: 'heading', name });

/** The invitation, and what the visitor can do from where they stand. */
const invitation = (arrival: Arrival) => (state: InvitationSnapshot): Sight[] => {
  const { failure } = state.context;
  const shown = (when: boolean) => (when ? {} : { absent: true as const });
  return [
    heading(t.heading(preview.team_name)),
    { text: t.lead(preview.inviter_name, preview.role) },
    { text: `${t.forEmail(preview.email)} ${t.expires(formatDate(preview.expires_at))}` },
    { text: t.acceptFailed, ...shown(failure !== null) },
    ...(failure ? [{ text: word(failure) }] : []),
    { role: 'link', name: t.signIn, ...shown(arrival === 'signedOut') },
    { role: 'link', name: t.register, ...shown(arrival === 'signedOut') },
    { text: t.mismatchHeading, ...shown(arrival === 'other') },
    ...(arrival === 'other' ? [{ text: t.mismatchText(OTHER_EMAIL, preview.email) }, { role: 'button', name: t.signOut } as Sight] : []),
    { role: 'button', name: state.hasTag('busy') ? t.accepting : t.accept, ...shown(arrival === 'invited') },
  ];
};

/** What the page shows in each state of the chart, for a way of arriving. */
export const invitationViews = (arrival: Arrival) =>
  ({
    loading: (): Sight[] => [{ role: 'status' }, { label: messages.loading }],
    failed: (): Sight[] => [{ text: t.loadFailed }, { role: 'button', name: t.retry }],
    invalid: (): Sight[] => [heading(t.invalidHeading), { text: t.invalidText }],
    showing: invitation(arrival),
    accepting: invitation(arrival),
    // Joined, the person goes on to the team page, welcomed by a toast.
    joined: (): Sight[] => [{ text: t.joinedTitle }, { text: t.joinedText(team.name) }],
  }) satisfies Record<string, (state: InvitationSnapshot) => Sight[]>;
