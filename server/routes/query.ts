import type { OutgoingHttpHeaders } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProviderError, TASKS, type Cell, type Task } from '../ai/provider';
import { findPlan } from '../../contract/plans';
import { QueryAbandoned, runQuery, type QueryOutcome, type QueryServices } from '../domain/queries';
import { dailyUsage, usageAt } from '../domain/usageReport';
import { ApiError, errorBody } from '../errors';
import { credentialId } from '../plugins/auth';
import { pacedDeltas, streamPacing } from './streamPacing';
import { DailyUsageSchema, ErrorSchema, FormulaCheckSchema, MultilineText, UsageSchema, type ErrorBody } from '../../contract/schemas';

/** Bounds of one query's data: what a selection in the add-on can reasonably hold. */
export const MAX_CELLS = 10_000;
export const MAX_DATA_BYTES = 1024 * 1024;
/** The data plus a 4,000-character prompt (up to 6 bytes a character once JSON-escaped) and the rest. */
const QUERY_BODY_LIMIT = MAX_DATA_BYTES + 64 * 1024;


// The route types come from TypeBox 1 (the type provider's), which does not see through a 0.34
// `Unsafe`; the validated task and cells are therefore typed where they are read.
const QueryBody = Type.Object(
  {
    task: Type.Unsafe<Task>({ type: 'string', enum: [...TASKS] }),
    prompt: MultilineText({ minLength: 1, maxLength: 4000 }),
    data: Type.Optional(
      // Rows and columns are bounded too: an empty row holds no cell but is still one to walk.
      Type.Array(Type.Array(Type.Unsafe<Cell>({ type: ['string', 'number', 'boolean', 'null'] }), { maxItems: MAX_CELLS }), {
        maxItems: MAX_CELLS,
        description: `The selected range, row by row: at most ${MAX_CELLS} cells (an empty row counts as one) and 1 MiB.`,
      }),
    ),
    range: Type.Optional(
      Type.String({
        pattern: '^\\$?[A-Za-z]{1,3}\\$?[0-9]{1,7}(:\\$?[A-Za-z]{1,3}\\$?[0-9]{1,7})?$',
        description: 'Where `data` sits in the sheet, such as "C3:F40": `data[0][0]` is its first cell. A1 when absent.',
      }),
    ),
    stream: Type.Optional(
      Type.Boolean({ description: 'Answer as server-sent events, as `Accept: text/event-stream` asks (see the 200 answer).' }),
    ),
  },
  { additionalProperties: false },
);

export const QueryAnswer = Type.Object({
  answer: Type.Union([Type.String(), Type.Null()], {
    description: 'The answer; null on a replay (answers are never stored, since they may quote the data).',
  }),
  task: Type.Unsafe<Task>({ type: 'string', enum: [...TASKS] }),
  tokens: Type.Object({ prompt: Type.Integer(), completion: Type.Integer(), total: Type.Integer() }),
  processing_time_ms: Type.Integer(),
  usage: UsageSchema,
  request_id: Type.String({ description: 'The Idempotency-Key sent, or the id the server gave the query.' }),
  replayed: Type.Boolean({ description: 'True when this answers a retry of an already answered Idempotency-Key.' }),
  formula: Type.Union([FormulaCheckSchema, Type.Null()], { description: 'The formula the answer shows, checked on `data`; null when it shows none (and on a replay).' }),
  verified: Type.Boolean({ description: 'True only when the formula shown parsed and evaluated without an error on `data`.' }),
  engine: Type.String({ description: '"offline" for the built-in assistant, else the name of the model that answered.' }),
});

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Up to 255 visible ASCII characters; a retry with the same key is answered without counting again.' }),
  ),
});
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;


function dataTooLarge(message: string): ApiError {
  return new ApiError(413, 'data_too_large', message, { field: 'data' });
}

/** Refuses oversized data before the schema walks every cell of it. */
async function checkDataSize(request: FastifyRequest): Promise<void> {
  const data = (request.body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return;
  let cells = 0;
  // An empty row counts as one cell, so 100,000 of them are refused like 100,000 cells.
  for (const row of data) cells += Array.isArray(row) ? Math.max(1, row.length) : 1;
  if (cells > MAX_CELLS) throw dataTooLarge(`The data has ${cells} cells; a query can take at most ${MAX_CELLS}.`);
  const length = request.headers['content-length'];
  if ((length === undefined || Number(length) > MAX_DATA_BYTES) && Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES) {
    throw dataTooLarge('The data is larger than 1 MiB; select a smaller range.');
  }
}

/** What the client is told when the provider did not answer; the query was refunded. */
export function providerFailure(error: ProviderError): ApiError {
  const notCounted = 'The query was not counted; please try again.';
  switch (error.kind) {
    case 'timeout':
      return new ApiError(504, 'provider_timeout', `The AI provider took too long to answer. ${notCounted}`);
    case 'rate_limited':
      return new ApiError(503, 'provider_busy', `The AI provider is busy. ${notCounted}`, {
        headers: { 'Retry-After': String(Math.max(1, error.detail.retryAfterS ?? 5)) },
      });
    default:
      return new ApiError(502, 'provider_error', `The AI provider could not answer. ${notCounted}`);
  }
}

/**
 * Aborted when the client leaves before its answer is complete: the connection closes before the
 * answer was all handed to it (or had closed before the handler ran).
 */
function clientLeaves(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const left = new AbortController();
  let finished = false;
  reply.raw.once('finish', () => (finished = true));
  reply.raw.once('close', () => {
    if (!finished) left.abort();
  });
  if (request.raw.socket?.destroyed) left.abort();
  return left.signal;
}

/** Before the answer's first byte: the error as an HTTP answer; a query whose client left is answered to no one. */
function failed(error: unknown, reply: FastifyReply): FastifyReply {
  if (error instanceof QueryAbandoned) return reply.hijack();
  throw error instanceof ProviderError ? providerFailure(error) : error;
}

/** After the answer's first byte: the error as the body of an `error` event. */
function errorEvent(error: unknown, request: FastifyRequest): ErrorBody {
  const known = error instanceof ProviderError ? providerFailure(error) : error;
  if (known instanceof ApiError) return errorBody(known.code, known.message);
  request.log.error({ err: error }, 'unhandled error');
  return errorBody('internal_error', 'Something went wrong on our side. Please try again.');
}

const EVENT_STREAM = /(^|,)\s*text\/event-stream/i;
/** One pacing for the process: how busy it is is the event loop's, shared by every app in it. */
const pacing = streamPacing();

/**
 * A streamed answer (server-sent events): `delta` events with `{text}` as the model writes, then
 * one `done` with the answer object of a plain call, or one `error` with `{error: {code, message}}`.
 * The status and headers go out with the first piece of the answer, so an error before it (a
 * quota, the provider failing) is an HTTP error like a plain call's. An answer worked out in
 * memory, or replayed, comes as one delta (none for a replay's null answer) and its `done`. While
 * many answers stream on a busy server, an answer's deltas may come together (`streamPacing.ts`).
 * The events are written to the response itself (the reply is taken over at the first byte, with
 * the headers Fastify's hooks set), the last one with the response's end: thousands stream at once,
 * and a stream piped through Fastify kept a readable, its pipe and their listeners each.
 */
async function streamAnswer(request: FastifyRequest, reply: FastifyReply, ask: (onDelta: (text: string) => void) => Promise<QueryOutcome>) {
  const res = reply.raw;
  let started = false;
  let ended = false;
  const start = () => {
    if (started) return;
    started = true;
    reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').hijack();
    res.writeHead(200, reply.getHeaders() as OutgoingHttpHeaders);
  };
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  // Written after the client left: the response is gone, and so is the need to tell anyone.
  const send = (name: string, data: unknown) => {
    if (ended || res.destroyed) return;
    start();
    res.write(event(name, data));
  };
  const end = (name: string, data: unknown) => {
    if (ended) return;
    ended = true;
    if (res.destroyed) return;
    start();
    res.end(event(name, data));
  };
  let opened!: (value: 'open') => void;
  const open = new Promise<'open'>((resolve) => (opened = resolve));
  const streamEnded = pacing.opened();
  const deltas = pacedDeltas(pacing, (text) => send('delta', { text }));
  const answered = ask((text) => {
    deltas.delta(text);
    opened('open');
  });
  let first: 'open' | QueryOutcome;
  try {
    first = await Promise.race([open, answered]);
  } catch (error) {
    streamEnded();
    return failed(error, reply);
  }
  if (first === 'open') {
    answered
      .then(
        (outcome) => {
          deltas.flush();
          end('done', outcome);
        },
        (error: unknown) => {
          deltas.flush();
          end('error', errorEvent(error, request));
        },
      )
      .finally(streamEnded);
  } else {
    streamEnded();
    if (first.replayed) reply.header('Idempotent-Replayed', 'true');
    if (first.answer !== null) send('delta', { text: first.answer });
    end('done', first);
  }
  return reply;
}

/**
 * Answers a query as `/query` does (also `/functions/{name}/run`): as server-sent events when the
 * body says `"stream": true` or the client accepts `text/event-stream`, else as one JSON object.
 * `ask` gets a signal aborted when the client leaves before its answer is complete (the lifecycle
 * then aborts the provider call and refunds the query), and, when streamed, where to send deltas.
 */
export async function streamOrPlain(
  request: FastifyRequest,
  reply: FastifyReply,
  stream: boolean | undefined,
  ask: (signal: AbortSignal, onDelta?: (text: string) => void) => Promise<QueryOutcome>,
) {
  const signal = clientLeaves(request, reply);
  if (stream === true || EVENT_STREAM.test(request.headers.accept ?? '')) return streamAnswer(request, reply, (onDelta) => ask(signal, onDelta));
  try {
    const outcome = await ask(signal);
    if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
    return outcome;
  } catch (error) {
    return failed(error, reply);
  }
}

/** The 200 answer of a query: JSON, or server-sent events when asked (`streamOrPlain`). */
export const StreamableAnswer = {
  description: 'The answer: a JSON object, or with `Accept: text/event-stream` (or `"stream": true`) server-sent events.',
  content: {
    'application/json': { schema: QueryAnswer },
    'text/event-stream': {
      schema: Type.String({
        description:
          '`event: delta` with `data: {"text": …}` as the model writes (on a busy server, what it wrote within a moment may come as one), ' +
          'then one `event: done` whose data is the JSON answer object, ' +
          'or one `event: error` with `data: {"error": {"code", "message"}}` when the query fails after the first byte (it is then not counted). ' +
          'An error before the first byte is an HTTP error, as for a JSON answer.',
      }),
    },
  },
};

export const queryErrors = {
  400: ErrorSchema,
  401: ErrorSchema,
  409: ErrorSchema,
  413: ErrorSchema,
  415: ErrorSchema,
  422: ErrorSchema,
  429: ErrorSchema,
  502: ErrorSchema,
  503: ErrorSchema,
  504: ErrorSchema,
};

/**
 * The add-on's query gateway: validates the request and maps the lifecycle's outcome
 * (`domain/queries.ts`) to HTTP. Prompts, data and answers live only in this request's memory: none
 * is stored or logged, so a retried Idempotency-Key gets the first answer's counts back, not its text.
 */
export const queryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app;
  app.addHook('onRequest', app.authenticate);

  const services: Omit<QueryServices, 'log'> = {
    database,
    ai: app.ai,
    clock: app.clock,
    // Longer than any query's provider calls can take (two for a formula checked and repaired, each
    // within the timeout): a reservation still unsettled then was left by a server that stopped mid-query.
    abandonedAfterMs: 2 * app.config.ai.timeoutMs + 60_000,
  };

  app.post(
    '/query',
    {
      bodyLimit: QUERY_BODY_LIMIT,
      preValidation: checkDataSize,
      schema: {
        tags: ['query'],
        summary: "Answer one of the add-on's AI queries, within the plan's monthly queries and daily tokens",
        security: [{ bearer: [] }],
        headers: IdempotencyHeaders,
        body: QueryBody,
        response: {
          200: StreamableAnswer,
          ...queryErrors,
        },
      },
    },
    async (request, reply) => {
      const userId = request.auth!.userId;
      const { prompt } = request.body;
      const task = request.body.task as Task;
      const data = request.body.data as Cell[][] | undefined;
      if (prompt.trim() === '') throw new ApiError(400, 'invalid_input', 'The prompt is empty.', { field: 'prompt' });
      const key = request.headers['idempotency-key'];
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw new ApiError(400, 'invalid_input', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', {
          field: 'Idempotency-Key',
        });
      }
      return streamOrPlain(request, reply, request.body.stream, (signal, onDelta) =>
        runQuery(
          { ...services, log: request.log },
          {
            userId,
            credential: { kind: request.auth!.kind, id: credentialId(request.auth!) },
            // The session check read it for this very request.
            plan: findPlan(request.currentUser!.plan)!,
            request: { task, prompt, ...(data ? { data } : {}), ...(request.body.range ? { range: request.body.range } : {}) },
            key,
            // The processing time runs from receiving the request to having the answer.
            elapsedMs: () => Math.max(1, Math.ceil(reply.elapsedTime)),
            signal,
            ...(onDelta ? { onDelta } : {}),
          },
        ),
      );
    },
  );

  app.get(
    '/query/usage',
    {
      schema: {
        tags: ['query'],
        summary: "The signed-in user's usage this month and today",
        security: [{ bearer: [] }],
        response: { 200: UsageSchema, 401: ErrorSchema },
      },
    },
    async (request) => usageAt(database, request.auth!.userId, app.clock.now()),
  );

  app.get(
    '/query/usage/daily',
    {
      schema: {
        tags: ['query'],
        summary: 'Queries and tokens of each of the last 30 UTC days',
        security: [{ bearer: [] }],
        response: { 200: DailyUsageSchema, 401: ErrorSchema },
      },
    },
    async (request) => ({ days: await dailyUsage(database.db, request.auth!.userId, app.clock.now()) }),
  );
};
