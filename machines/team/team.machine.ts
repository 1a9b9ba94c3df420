import { assign, setup, type SnapshotFrom } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { ApiRequestError, type InvitedRole, type TeamRole } from '../shared/api';
import { tokenStorage } from '../shared/tokenStorage';
import type { NotifyParams } from '../shared/notify';
import { knownTeam, takeKnownTeam, teamActors, type TeamChange, type TeamData } from './team.actors';
import { managesTeam } from '../../contract/roles';
import { refusalText, reportFailure, serverFailure } from '../shared/failures';
import { sentence, type Message } from '../shared/messages';

export interface TeamContext {
  auth: AuthActorRef;
  /** The signed-in user's id: their own row offers Leave instead of Remove. */
  userId: string;
  /** The month of the usage analytics, `YYYY-MM`. */
  month: string;
  data: TeamData | null;
  /** The change asked for (awaiting confirmation while `confirming`) or being made, so its row can show it busy. */
  changing: TeamChange | null;
  /** Why the page could not load, when the server said (`failed`); a lost connection is the page's own sentence. */
  failure: Message | null;
}

export type TeamEvent =
  | { type: 'team.retry' }
  /** Something changed the team elsewhere on the page (an invitation was sent). */
  | { type: 'team.reload' }
  /** Asks to remove a member, or to leave (one's own id): the page asks for confirmation first. */
  | { type: 'member.remove'; userId: string }
  | { type: 'member.cap'; userId: string; cap: number | null }
  | { type: 'member.role'; userId: string; role: InvitedRole }
  /** Asks to hand ownership to a member (the owner): the page names the new owner and asks for confirmation first. */
  | { type: 'member.transfer'; userId: string }
  | { type: 'change.confirm' }
  | { type: 'change.cancel' }
  | { type: 'team.rename'; name: string }
  /** The monthly query cap new members get; null for none. */
  | { type: 'team.defaultCap'; cap: number | null }
  /** The team's security policy: whether every member needs a second factor, and how many hours a sign-in lasts (null: no limit of the team's). */
  | { type: 'team.security'; requireTwoFactor: boolean; sessionMaxAgeHours: number | null }
  | { type: 'invitation.resend'; id: string }
  | { type: 'invitation.revoke'; id: string }
  | { type: 'usage.month'; month: string }
  | { type: 'usage.download' }
  | { type: 'audit.older' };

export type TeamTag = 'loading' | 'changing' | 'usageLoading' | 'downloading' | 'auditLoading';


/** The role a page's next load asks for first: none while the team's requirement holds the person back (their calls would be refused). */
const heldOrRole = (data: TeamData): TeamRole | null => (data.held ? null : data.role);

const isNotInTeam = (error: unknown) => error instanceof ApiRequestError && error.code === 'not_in_team';

type ErrorEvent = { event: { error: unknown } };

/** A change the server refused: reported in its words. */
const refused = reportFailure(({ event }: ErrorEvent) => ({ title: 'team.actionFailed', description: refusalText(event.error) }));

/** What each change tells the person once it is done. */
export function doneText(change: TeamChange, data: TeamData | null): Message {
  const invitation = (id: string) => data?.invitations?.find((i) => i.id === id)?.email ?? '';
  const member = (id: string) => data?.members.find((m) => m.user_id === id)?.full_name ?? '';
  if (change.kind === 'resend') return sentence('team.resent', invitation(change.id));
  if (change.kind === 'revoke') return sentence('team.revoked', invitation(change.id));
  if (change.kind === 'transfer') return sentence('team.transferred', member(change.userId));
  if (change.kind === 'rename') return 'team.renamed';
  if (change.kind === 'defaultCap') return 'team.defaultCapSaved';
  if (change.kind === 'security') return 'team.securitySaved';
  return 'team.done';
}

const teamSetup = setup({
  types: {
    context: {} as TeamContext,
    events: {} as TeamEvent,
    input: {} as { auth: AuthActorRef; userId: string; month: string },
    tags: {} as TeamTag,
  },
  actors: teamActors,
  actions: {
    store: assign({ data: (_, data: TeamData) => data }),
    storeUsage: assign({ data: ({ context }, usage: NonNullable<TeamData['usage']>) => context.data && { ...context.data, usage } }),
    appendAudit: assign({
      data: ({ context }, page: NonNullable<TeamData['audit']>) =>
        context.data && { ...context.data, audit: { events: [...(context.data.audit?.events ?? []), ...page.events], next: page.next } },
    }),
    setMonth: assign({ month: (_, month: string) => month }),
    startChange: assign({ changing: (_, change: TeamChange) => change }),
    endChange: assign({ changing: null }),
    logFailure: (_, error: unknown) => console.error('Team page:', error),
    fail: assign({ failure: (_, error: unknown) => (error instanceof ApiRequestError && error.status !== 0 ? serverFailure(error) : null) }),
    notify: (_, _params: NotifyParams) => undefined,
    /** Someone who left the team goes on to their dashboard. */
    navigate: (_, _params: { to: string }) => undefined,
    /** What the page learned of the person's membership, for the top bar's Team link. */
    membershipKnown: (_, _params: { inTeam: boolean }) => undefined,
    /** The role the page learned (null: in no team), for what the page's next load asks first (src/firstCalls.ts). */
    rememberRole: (_, role: TeamRole | null) => tokenStorage.writeTeamRole(role),
    takeKnown: ({ context }) => takeKnownTeam(context.data!, context.month),
  },
  guards: {
    isKnown: ({ context }) => knownTeam(context.month) !== null,
    notInTeam: (_, error: unknown) => isNotInTeam(error),
    isAdmin: ({ context }) => context.data !== null && managesTeam(context.data.role),
    isOwner: ({ context }) => context.data?.role === 'owner',
    hasOlder: ({ context }) => Boolean(context.data?.audit?.next),
    leftTeam: ({ context }) => context.changing?.kind === 'remove' && context.changing.userId === context.userId,
  },
});

const change = <E extends TeamEvent>(toChange: (event: E) => TeamChange, target = '#team.ready.changes.changing') => ({
  target,
  actions: { type: 'startChange' as const, params: ({ event }: { event: E }) => toChange(event) },
});
/** A change that asks first: removing someone, leaving, handing ownership over. */
const askFirst = <E extends TeamEvent>(toChange: (event: E) => TeamChange) => change(toChange, '#team.ready.changes.confirming');

/**
 * The team page: loading → ready | notInTeam (the Team offer) | failed (why, with a retry), or ready at
 * once when the page's early calls have the team in already (`knownTeam`). Ready, one
 * change at a time (`changing`, then the page reloads what it changed; removing someone, leaving and
 * handing ownership over are `confirming` first), while the usage month and the older audit events
 * load on their own.
 */
export const teamMachine = teamSetup.createMachine({
  id: 'team',
  context: ({ input }) => ({ auth: input.auth, userId: input.userId, month: input.month, data: null, changing: null, failure: null }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        {
          guard: 'isKnown',
          target: 'ready',
          actions: [
            { type: 'store', params: ({ context }) => knownTeam(context.month)! },
            { type: 'rememberRole', params: ({ context }) => context.data!.role },
            'takeKnown',
          ],
        },
        { target: 'loading' },
      ],
    },
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'load',
        src: 'load',
        input: ({ context }) => ({ auth: context.auth, month: context.month }),
        onDone: {
          target: 'ready',
          actions: [
            { type: 'store', params: ({ event }) => event.output },
            { type: 'rememberRole', params: ({ event }) => heldOrRole(event.output) },
          ],
        },
        onError: [
          { guard: { type: 'notInTeam', params: ({ event }: ErrorEvent) => event.error }, target: 'notInTeam' },
          {
            target: 'failed',
            actions: [
              { type: 'logFailure', params: ({ event }: ErrorEvent) => event.error },
              { type: 'fail', params: ({ event }: ErrorEvent) => event.error },
            ],
          },
        ],
      },
    },
    notInTeam: {
      entry: [
        { type: 'membershipKnown', params: { inTeam: false } },
        { type: 'rememberRole', params: null },
      ],
    },
    failed: { on: { 'team.retry': 'loading' } },
    ready: {
      type: 'parallel',
      entry: { type: 'membershipKnown', params: { inTeam: true } },
      states: {
        changes: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'team.reload': 'reloading',
                'member.remove': askFirst((e: Extract<TeamEvent, { type: 'member.remove' }>) => ({ kind: 'remove', userId: e.userId })),
                'member.transfer': { guard: 'isOwner', ...askFirst((e: Extract<TeamEvent, { type: 'member.transfer' }>) => ({ kind: 'transfer', userId: e.userId })) },
                'team.rename': { guard: 'isAdmin', ...change((e: Extract<TeamEvent, { type: 'team.rename' }>) => ({ kind: 'rename', name: e.name })) },
                'team.defaultCap': { guard: 'isAdmin', ...change((e: Extract<TeamEvent, { type: 'team.defaultCap' }>) => ({ kind: 'defaultCap', cap: e.cap })) },
                'team.security': {
                  guard: 'isAdmin',
                  ...change((e: Extract<TeamEvent, { type: 'team.security' }>) => ({ kind: 'security', requireTwoFactor: e.requireTwoFactor, sessionMaxAgeHours: e.sessionMaxAgeHours })),
                },
                'member.cap': change((e: Extract<TeamEvent, { type: 'member.cap' }>) => ({ kind: 'cap', userId: e.userId, cap: e.cap })),
                'member.role': change((e: Extract<TeamEvent, { type: 'member.role' }>) => ({ kind: 'role', userId: e.userId, role: e.role })),
                'invitation.resend': change((e: Extract<TeamEvent, { type: 'invitation.resend' }>) => ({ kind: 'resend', id: e.id })),
                'invitation.revoke': change((e: Extract<TeamEvent, { type: 'invitation.revoke' }>) => ({ kind: 'revoke', id: e.id })),
              },
            },
            /** The page names what is about to happen and waits for Confirm or Cancel. */
            confirming: {
              on: {
                'change.confirm': 'changing',
                'change.cancel': { target: 'idle', actions: 'endChange' },
              },
            },
            changing: {
              tags: ['changing'],
              invoke: {
                id: 'change',
                src: 'change',
                input: ({ context }) => ({ auth: context.auth, change: context.changing! }),
                onDone: [
                  {
                    guard: 'leftTeam',
                    target: '#team.notInTeam',
                    actions: [{ type: 'notify', params: { type: 'success', title: 'team.done' } }, { type: 'navigate', params: { to: '/dashboard' } }],
                  },
                  {
                    target: 'reloading',
                    actions: { type: 'notify', params: ({ context }) => ({ type: 'success', title: doneText(context.changing!, context.data) }) },
                  },
                ],
                onError: {
                  target: 'reloading',
                  actions: refused,
                },
              },
            },
            reloading: {
              tags: ['changing'],
              invoke: {
                id: 'reload',
                src: 'load',
                input: ({ context }) => ({ auth: context.auth, month: context.month }),
                onDone: {
                  target: 'idle',
                  actions: ['endChange', { type: 'store', params: ({ event }) => event.output }, { type: 'rememberRole', params: ({ event }) => heldOrRole(event.output) }],
                },
                onError: [
                  { guard: { type: 'notInTeam', params: ({ event }: ErrorEvent) => event.error }, target: '#team.notInTeam', actions: 'endChange' },
                  { target: 'idle', actions: ['endChange', { type: 'logFailure', params: ({ event }: ErrorEvent) => event.error }] },
                ],
              },
            },
          },
        },
        usage: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'usage.month': { guard: 'isAdmin', target: 'loading', actions: { type: 'setMonth', params: ({ event }) => event.month } },
                'usage.download': { guard: 'isAdmin', target: 'downloading' },
              },
            },
            loading: {
              tags: ['usageLoading'],
              on: { 'usage.month': { target: 'loading', reenter: true, actions: { type: 'setMonth', params: ({ event }) => event.month } } },
              invoke: {
                id: 'loadUsage',
                src: 'loadUsage',
                input: ({ context }) => ({ auth: context.auth, month: context.month }),
                onDone: { target: 'idle', actions: { type: 'storeUsage', params: ({ event }) => event.output } },
                onError: {
                  target: 'idle',
                  actions: refused,
                },
              },
            },
            downloading: {
              tags: ['downloading'],
              invoke: {
                id: 'downloadCsv',
                src: 'downloadCsv',
                input: ({ context }) => ({ auth: context.auth, month: context.month }),
                onDone: 'idle',
                onError: {
                  target: 'idle',
                  actions: refused,
                },
              },
            },
          },
        },
        audit: {
          initial: 'idle',
          states: {
            idle: { on: { 'audit.older': { guard: 'hasOlder', target: 'loading' } } },
            loading: {
              tags: ['auditLoading'],
              invoke: {
                id: 'loadOlder',
                src: 'loadOlder',
                input: ({ context }) => ({ auth: context.auth, before: context.data!.audit!.next! }),
                onDone: { target: 'idle', actions: { type: 'appendAudit', params: ({ event }) => event.output } },
                onError: {
                  target: 'idle',
                  actions: refused,
                },
              },
            },
          },
        },
      },
    },
  },
});

export type TeamMachine = typeof teamMachine;
export type TeamSnapshot = SnapshotFrom<TeamMachine>;
