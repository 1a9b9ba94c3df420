import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { ProviderError, TASKS, type AiAnswer, type AiRequest, type Cell, type Task } from '../ai/provider';
import type { UsageLedgerTable } from '../db/types';
import { findPlan } from '../../contract/plans';
import {
  answerQuery,
  assertFitsPlan,
  dailyUsage,
  DuplicateRequest,
  findRequest,
  refundQuery,
  reserveQuery,
  settleQuery,
  usageAt,
  reservationOf,
  type Reservation,
  type ReservationRequest,
  type Usage,
} from '../domain/usage';
import { uuidV7 } from '../domain/uuidv7';
import { ApiError } from '../errors';
import { DailyUsageSchema, ErrorSchema, MultilineText, UsageSchema } from '../../contract/schemas';

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
  },
  { additionalProperties: false },
);

const QueryAnswer = Type.Object({
  answer: Type.Union([Type.String(), Type.Null()], {
    description: 'The answer; null on a replay (answers are never stored, since they may quote the data).',
  }),
  task: Type.Unsafe<Task>({ type: 'string', enum: [...TASKS] }),
  tokens: Type.Object({ prompt: Type.Integer(), completion: Type.Integer(), total: Type.Integer() }),
  processing_time_ms: Type.Integer(),
  usage: UsageSchema,
  request_id: Type.String({ description: 'The Idempotency-Key sent, or the id the server gave the query.' }),
  replayed: Type.Boolean({ description: 'True when this answers a retry of an already answered Idempotency-Key.' }),
});
type QueryAnswer = Static<typeof QueryAnswer>;

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
function providerFailure(error: ProviderError): ApiError {
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

const errors = {
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
 * The add-on's query gateway. Prompts, data and answers live only in this request's memory: none
 * is stored or logged, so a retried Idempotency-Key gets the first answer's counts back, not its text.
 */
export const queryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app;
  app.addHook('onRequest', app.authenticate);

  /** The answer to a request id that was already accepted (and, when it is gone again, refunded by now). */
  const replay = async (row: UsageLedgerTable | undefined, task: Task, now: number): Promise<QueryAnswer> => {
    if (row?.task !== undefined && row.task !== task) {
      throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used for a different query. Use a new key.', {
        field: 'Idempotency-Key',
      });
    }
    if (!row || row.status === 'reserved') {
      throw new ApiError(409, 'request_in_progress', 'A query with this Idempotency-Key is still being answered. Try again in a moment.', {
        headers: { 'Retry-After': '1' },
      });
    }
    const prompt = row.prompt_tokens ?? 0;
    const completion = row.completion_tokens ?? 0;
    return {
      answer: null,
      task,
      tokens: { prompt, completion, total: prompt + completion },
      processing_time_ms: row.processing_time_ms ?? 0,
      usage: await usageAt(database, row.user_id, now),
      request_id: row.request_id,
      replayed: true,
    };
  };

  /**
   * A reservation still unsettled long after any provider call could have ended was left by a
   * server that stopped mid-query: a retry of its key gives it back and is answered afresh.
   */
  const abandonedAfterMs = app.config.ai.timeoutMs + 60_000;
  const releasedIfAbandoned = async (row: UsageLedgerTable, task: Task, now: number): Promise<boolean> => {
    if (row.status !== 'reserved' || row.task !== task || now - row.created_at <= abandonedAfterMs) return false;
    // A concurrent retry may have given it back first; either way it is no longer held.
    await database.groupCommit((tx) => refundQuery(tx, reservationOf(row)), row.user_id).catch(() => undefined);
    return true;
  };

  /**
   * A provider that does I/O is called between two units: the reservation is committed before the
   * call, and settled after it, or refunded when the call fails.
   */
  const reserveCallSettle = async (
    log: FastifyBaseLogger,
    reservationRequest: ReservationRequest,
    aiRequest: AiRequest,
    elapsedMs: () => number,
  ) => {
    const reservation = await database.groupCommit((tx) => reserveQuery(tx, reservationRequest), reservationRequest.userId);
    let answer: AiAnswer;
    try {
      answer = await app.ai.answer(aiRequest, reservation.completionTokens);
    } catch (error) {
      await database
        .groupCommit((tx) => refundQuery(tx, reservation), reservation.userId)
        .catch((refundError: unknown) =>
          log.error({ err: refundError, userId: reservation.userId, requestId: reservation.requestId }, 'refund of a failed query failed; it stays counted'),
        );
      if (!(error instanceof ProviderError)) throw error;
      log.warn({ event: 'query.provider_failed', userId: reservation.userId, kind: error.kind, status: error.detail.status }, 'AI provider failed; the query was refunded');
      throw providerFailure(error);
    }
    const processingMs = elapsedMs();
    const usage = await database.groupCommit(
      (tx) => settleQuery(tx, reservation, answer.tokens, processingMs, app.clock.now()),
      reservation.userId,
    );
    return { reservation, answer, processingMs, usage };
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
        response: { 200: QueryAnswer, ...errors },
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
      const now = app.clock.now();
      const previous = key === undefined ? undefined : await findRequest(database, userId, key);
      if (previous && !(await releasedIfAbandoned(previous, task, now))) {
        return reply.header('Idempotent-Replayed', 'true').send(await replay(previous, task, now));
      }

      const aiRequest: AiRequest = { task, prompt, ...(data ? { data } : {}) };
      const reservationRequest = {
        userId,
        // Time-ordered, so the ledger rows of a batch of queries lie side by side.
        requestId: key ?? uuidV7(),
        task,
        // The session check read it for this very request, so a plan change applies to the next query.
        plan: findPlan(request.currentUser!.plan)!,
        promptTokens: app.ai.promptTokens(aiRequest),
        maxCompletionTokens: app.ai.maxCompletionTokens(aiRequest),
        now,
      };
      assertFitsPlan(reservationRequest, data?.length ? 'data' : 'prompt');
      // The processing time runs from receiving the request to having the answer; a query never takes "0 ms".
      const elapsedMs = () => Math.max(1, Math.ceil(reply.elapsedTime));
      let outcome: { reservation: Reservation; answer: AiAnswer; processingMs: number; usage: Usage };
      try {
        if (app.ai.inMemory) {
          // Its answer was worked out while sizing the reservation (promptTokens): the time to have it is known now.
          const processingMs = elapsedMs();
          outcome = {
            processingMs,
            ...(await database.groupCommit(
              (tx) => answerQuery(tx, reservationRequest, processingMs, (completionTokens) => app.ai.answer(aiRequest, completionTokens)),
              userId,
            )),
          };
        } else {
          outcome = await reserveCallSettle(request.log, reservationRequest, aiRequest, elapsedMs);
        }
      } catch (error) {
        if (!(error instanceof DuplicateRequest)) throw error;
        // A concurrent retry with the same key was accepted first.
        const row = await findRequest(database, userId, key!);
        return reply.header('Idempotent-Replayed', 'true').send(await replay(row, task, now));
      }
      const { reservation, answer, processingMs, usage } = outcome;
      return {
        answer: answer.answer,
        task,
        tokens: answer.tokens,
        processing_time_ms: processingMs,
        usage,
        request_id: reservation.requestId,
        replayed: false,
      };
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
