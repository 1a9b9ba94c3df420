import { assign, setup } from 'xstate';
import type { AuthActorRef } from '../shared/authRetry';
import { ApiRequestError, type DeviceGrant } from '../shared/api';
import { failureCode, throttled, unreachable } from '../shared/failures';
import type { Message } from '../shared/messages';
import { normaliseUserCode } from '../../contract/userCode';
import { linkActors } from './link.actors';

export type LinkEvent =
  | { type: 'code.change'; code: string }
  | { type: 'code.submit' }
  | { type: 'code.reenter' }
  | { type: 'link.approve' }
  | { type: 'link.deny' };

export interface LinkContext {
  /** Null while signed out: the page shows the sign-in link instead. */
  auth: AuthActorRef | null;
  /** What the person typed (or the link carried). */
  code: string;
  /**
   * The key the add-on's link carried with its code (`verification_uri_complete`): sent with that
   * code, it shows the server the code is no guess. Dropped once the person types another code.
   */
  linkKey: string | null;
  grant: DeviceGrant | null;
  /** Why the code was refused, shown under the field. */
  problem: Message | null;
}



/** What to say under the field when a code is refused, or when the call failed. */
export function codeProblem(error: unknown): Message {
  if (!(error instanceof ApiRequestError)) return 'link.failed';
  const common = unreachable(error) ?? throttled(error, 'link.tooManyCodes');
  if (common) return common;
  if (error.code === 'user_code_not_found') return 'link.codeNotFound';
  if (error.code === 'invalid_user_code') return 'link.codeMalformed';
  return 'link.failed';
}

type ErrorEvent = { event: { error: unknown } };
const expired = { type: 'codeExpired', params: ({ event }: ErrorEvent) => event } as const;
const used = { type: 'codeUsed', params: ({ event }: ErrorEvent) => event } as const;
const refused = { type: 'noteProblem', params: ({ event }: ErrorEvent) => ({ problem: codeProblem(event.error) }) } as const;
const malformed = { type: 'noteProblem', params: { problem: 'link.codeMalformed' } } as const;

/**
 * The /link page (RFC 8628 §3.3): the person enters the add-on's code (or arrives with it from
 * `verification_uri_complete`), sees which client asked, when and from where (§5.4), and approves
 * or denies it. Signed out, the page asks them to sign in and brings them back with the code.
 */
export const linkMachine = setup({
  types: {
    context: {} as LinkContext,
    events: {} as LinkEvent,
    input: {} as { auth: AuthActorRef | null; code: string; linkKey?: string | null },
    tags: {} as 'busy',
  },
  actors: linkActors,
  actions: {
    noteProblem: assign((_, { problem }: { problem: Message }) => ({ problem })),
    forgetCode: assign({ code: '', linkKey: null, grant: null, problem: null }),
  },
  guards: {
    signedOut: ({ context }) => context.auth === null,
    hasCode: ({ context }) => context.code.trim() !== '',
    wellFormed: ({ context }) => normaliseUserCode(context.code) !== null,
    codeExpired: (_, { error }: { error: unknown }) => failureCode(error) === 'user_code_expired',
    codeUsed: (_, { error }: { error: unknown }) => failureCode(error) === 'user_code_used',
  },
}).createMachine({
  id: 'link',
  context: ({ input }) => ({ auth: input.auth, code: input.code, linkKey: input.linkKey ?? null, grant: null, problem: null }),
  initial: 'start',
  states: {
    start: {
      always: [
        { guard: 'signedOut', target: 'signedOut' },
        { guard: 'wellFormed', target: 'lookingUp' },
        // A link with a code that cannot be one: the field shows it with the reason.
        { guard: 'hasCode', target: 'entering', actions: malformed },
        { target: 'entering' },
      ],
    },
    signedOut: {},
    entering: {
      on: {
        'code.change': { actions: assign({ code: ({ event }) => event.code, linkKey: null, problem: null }) },
        'code.submit': [{ guard: 'wellFormed', target: 'lookingUp' }, { actions: malformed }],
      },
    },
    lookingUp: {
      tags: ['busy'],
      entry: assign({ problem: null }),
      invoke: {
        id: 'lookUp',
        src: 'lookUp',
        input: ({ context }) => ({ auth: context.auth!, code: context.code, linkKey: context.linkKey }),
        onDone: { target: 'confirming', actions: assign({ grant: ({ event }) => event.output }) },
        onError: [
          { guard: expired, target: 'expired' },
          { guard: used, target: 'used' },
          { target: 'entering', actions: refused },
        ],
      },
    },
    confirming: {
      on: {
        'link.approve': 'approving',
        'link.deny': 'denying',
        'code.reenter': { target: 'entering', actions: 'forgetCode' },
      },
    },
    approving: {
      tags: ['busy'],
      invoke: {
        id: 'approve',
        src: 'approve',
        input: ({ context }) => ({ auth: context.auth!, code: context.code, linkKey: context.linkKey }),
        onDone: 'approved',
        onError: [
          { guard: expired, target: 'expired' },
          { guard: used, target: 'used' },
          { target: 'confirming', actions: refused },
        ],
      },
    },
    denying: {
      tags: ['busy'],
      invoke: {
        id: 'deny',
        src: 'deny',
        input: ({ context }) => ({ auth: context.auth!, code: context.code, linkKey: context.linkKey }),
        onDone: 'denied',
        onError: [
          { guard: expired, target: 'expired' },
          { guard: used, target: 'used' },
          { target: 'confirming', actions: refused },
        ],
      },
    },
    approved: { type: 'final' },
    denied: { type: 'final' },
    expired: { on: { 'code.reenter': { target: 'entering', actions: 'forgetCode' } } },
    used: { on: { 'code.reenter': { target: 'entering', actions: 'forgetCode' } } },
  },
});

export type LinkMachine = typeof linkMachine;
