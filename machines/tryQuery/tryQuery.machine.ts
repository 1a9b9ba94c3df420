import { assign, fromPromise, setup } from 'xstate';
import { withAuthRetry, type AuthActorRef } from '../shared/authRetry';
import { ApiRequestError, functionsApi, queryApi, type QueryAnswer } from '../shared/api';
import type { Message } from '../shared/messages';

/** The sample table of the Quick Start Guide: small, with numbers to describe. */
export const SAMPLE_TABLE: Array<Array<string | number>> = [
  ['Region', 'Month', 'Revenue', 'Units'],
  ['North', 'Jan', 12400, 310],
  ['South', 'Jan', 9800, 260],
  ['East', 'Jan', 15100, 402],
  ['West', 'Jan', 7300, 188],
  ['North', 'Feb', 13900, 342],
  ['South', 'Feb', 10250, 271],
  ['East', 'Feb', 14700, 389],
  ['West', 'Feb', 8150, 205],
];

/** A refusal in the catalogue's words where it has them (a team cap, whatever its size), else the server's own sentence. */
const failure = (error: unknown): Message => {
  if (!(error instanceof ApiRequestError)) return 'guide.failed';
  const own: Message = error.serverMessage ? { text: error.serverMessage } : 'guide.failed';
  return error.code ? { words: 'guide.errors', code: error.code, otherwise: own } : own;
};

/**
 * The guide's try-it panel, and the one of /functions: one real query on the sample table, counted
 * like any other: the guide's `formula` question, or (`query.ask` with `fn`) that custom function run;
 * streamed: `asking.waiting` until the first piece of the answer, then `asking.streaming` with the
 * answer so far in `partial`, which the streaming actor hands to the chart as `query.delta` events.
 * The final answer (the `done` event's, which a repair round may have replaced) shows the formula
 * the server checked.
 */
export const tryQueryMachine = setup({
  types: {
    /** `fn`: the function asked last (null: the guide's question); `answer` is its answer. */
    context: {} as { auth: AuthActorRef; prompt: string; fn: string | null; answer: QueryAnswer | null; partial: string | null; problem: Message | null },
    events: {} as { type: 'query.ask'; fn?: string } | { type: 'query.delta'; text: string },
    /** The question the guide asks (the catalogue's `guide.prompt`, which the page also shows); /functions asks none. */
    input: {} as { auth: AuthActorRef; prompt?: string },
    tags: {} as 'busy',
  },
  actors: {
    ask: fromPromise<QueryAnswer, { auth: AuthActorRef; prompt: string; fn: string | null; onDelta: (text: string) => void }>(
      ({ input: { auth, prompt, fn, onDelta }, signal }) =>
        withAuthRetry(auth, () =>
          fn === null
            ? queryApi.ask({ task: 'formula', prompt, data: SAMPLE_TABLE }, { signal, onDelta })
            : functionsApi.run(fn, SAMPLE_TABLE, { signal, onDelta }),
        ),
    ),
  },
  actions: {
    /** Another function's answer is not this one's: it goes. */
    choose: assign(({ context, event }) => {
      const fn = event.type === 'query.ask' ? (event.fn ?? null) : context.fn;
      return { fn, answer: fn === context.fn ? context.answer : null, problem: fn === context.fn ? context.problem : null };
    }),
    append: assign({ partial: ({ context, event }) => (context.partial ?? '') + (event.type === 'query.delta' ? event.text : '') }),
  },
}).createMachine({
  id: 'tryQuery',
  context: ({ input }) => ({ auth: input.auth, prompt: input.prompt ?? '', fn: null, answer: null, partial: null, problem: null }),
  initial: 'idle',
  states: {
    idle: { on: { 'query.ask': { target: 'asking', actions: 'choose' } } },
    asking: {
      tags: ['busy'],
      invoke: {
        id: 'ask',
        src: 'ask',
        input: ({ context, self }) => ({ auth: context.auth, prompt: context.prompt, fn: context.fn, onDelta: (text: string) => self.send({ type: 'query.delta', text }) }),
        onDone: { target: 'idle', actions: assign({ answer: ({ event }) => event.output, partial: null, problem: null }) },
        onError: { target: 'idle', actions: assign({ partial: null, problem: ({ event }) => failure(event.error) }) },
      },
      initial: 'waiting',
      states: {
        waiting: { on: { 'query.delta': { target: 'streaming', actions: 'append' } } },
        streaming: { on: { 'query.delta': { actions: 'append' } } },
      },
    },
  },
});

export type TryQueryMachine = typeof tryQueryMachine;
