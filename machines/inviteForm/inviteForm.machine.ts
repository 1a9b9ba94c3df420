import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import { withAuthRetry, type AuthActorRef } from '../shared/authRetry';
import { ApiRequestError, teamApi, type InvitedRole, type TeamInvitation } from '../shared/api';
import type { NotifyParams } from '../shared/notify';
import { failureCode, refusalText, reportFailure } from '../shared/failures';
import { sentence, type Message } from '../shared/messages';

/** The server's rule for an address (trimmed, one @, a dot in the domain), checked before sending. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(email: string): Message | null {
  const trimmed = email.trim();
  if (trimmed === '') return 'team.emailRequired';
  return EMAIL.test(trimmed) ? null : 'team.emailInvalid';
}

export interface InviteFormContext {
  auth: AuthActorRef;
  email: string;
  role: InvitedRole;
  /** What is wrong with the address, shown under the field. */
  error: Message | null;
}

export type InviteFormEvent =
  | { type: 'draft.email'; value: string }
  | { type: 'draft.role'; value: InvitedRole }
  | { type: 'form.submit' };

/** Refusals about the address go under the field; the others (seats, rights) in a toast. */
const FIELD_CODES = new Set(['already_in_team', 'cannot_invite_yourself', 'invitation_pending', 'invalid_input']);

type ErrorEvent = { event: { error: unknown } };

const inviteFormSetup = setup({
  types: {
    context: {} as InviteFormContext,
    events: {} as InviteFormEvent,
    input: {} as { auth: AuthActorRef },
    tags: {} as 'busy',
  },
  actors: {
    invite: fromPromise<TeamInvitation, { auth: AuthActorRef; email: string; role: InvitedRole }>(({ input, signal }) =>
      withAuthRetry(input.auth, () => teamApi.invite({ email: input.email.trim(), role: input.role }, { signal })),
    ),
  },
  actions: {
    setEmail: assign({ email: (_, value: string) => value, error: null }),
    setRole: assign({ role: (_, value: InvitedRole) => value }),
    showProblem: assign({ error: ({ context }) => emailProblem(context.email) }),
    showRefusal: assign({ error: (_, message: Message) => message }),
    clear: assign({ email: '', error: null }),
    notify: (_, _params: NotifyParams) => undefined,
    /** The page reloads its members, invitations and seats. */
    sent: () => undefined,
  },
  guards: {
    validDraft: ({ context }) => emailProblem(context.email) === null,
    aboutTheAddress: (_, error: unknown) => error instanceof ApiRequestError && error.code !== null && FIELD_CODES.has(error.code),
  },
});

/** The invite form: editing → sending → editing, cleared and announced when sent, the refusal shown when not. */
export const inviteFormMachine = inviteFormSetup.createMachine({
  id: 'inviteForm',
  context: ({ input }) => ({ auth: input.auth, email: '', role: 'member', error: null }),
  initial: 'editing',
  states: {
    editing: {
      on: {
        'draft.email': { actions: { type: 'setEmail', params: ({ event }) => event.value } },
        'draft.role': { actions: { type: 'setRole', params: ({ event }) => event.value } },
        'form.submit': [{ guard: 'validDraft', target: 'sending' }, { actions: 'showProblem' }],
      },
    },
    sending: {
      tags: ['busy'],
      invoke: {
        id: 'invite',
        src: 'invite',
        input: ({ context }) => ({ auth: context.auth, email: context.email, role: context.role }),
        onDone: {
          target: 'editing',
          actions: [{ type: 'notify', params: ({ event }) => ({ type: 'success', title: sentence('team.inviteSent', event.output.email) }) }, 'clear', 'sent'],
        },
        onError: [
          {
            guard: { type: 'aboutTheAddress', params: ({ event }: ErrorEvent) => event.error },
            target: 'editing',
            actions: { type: 'showRefusal', params: ({ event }: ErrorEvent) => refusalText(event.error) },
          },
          {
            target: 'editing',
            // The one 403 of an invitation: an admin invited someone as an admin.
            actions: reportFailure(({ event }: ErrorEvent) => ({ title: 'team.actionFailed', description: failureCode(event.error) === 'forbidden' ? 'team.inviteAdminForbidden' : refusalText(event.error) })),
          },
        ],
      },
    },
  },
});

export type InviteFormMachine = typeof inviteFormMachine;
export type InviteFormSnapshot = SnapshotFrom<InviteFormMachine>;
