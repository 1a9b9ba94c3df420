import type { FastifyBaseLogger } from 'fastify';
import type { Plan } from '../../contract/plans';
import { CallAborted, ProviderError, type AiAnswer, type AiProvider, type AiRequest, type Task, type TokenCounts } from '../ai/provider';
import type { FormulaCheck } from '../ai/formulas/engine';
import type { DatabaseHandle } from '../db/database';
import type { UsageLedgerTable } from '../db/types';
import { ApiError } from '../errors';
import { answerInOneCall, PARTIAL_GRANT } from './answerInOneCall';
import { reserveInOneCall, settleInOneCall } from './reserveInOneCall';
import type { Clock } from './clock';
import {
  answerQuery,
  assertFitsPlan,
  DuplicateRequest,
  findRequest,
  refundQuery,
  reservationOf,
  reserveQuery,
  settleQuery,
  type GiveBack,
  type Reservation,
  type ReservationRequest,
} from './usage';
import { usageAt, type Usage } from './usageReport';
import { uuidV7 } from './uuidv7';

/**
 * The life of one add-on query, from its Idempotency-Key to its answer; `usage.ts` holds the
 * statements each step runs, this module the order they run in.
 *
 * 1. Replay: a key already in the ledger is answered from its row (the first answer's counts,
 *    `answer: null`), never counted again: 409 while that row is still reserved, 422 when it was
 *    for another task.
 * 2. Abandon: a row still reserved `abandonedAfterMs` after it was made was left by a server that
 *    stopped mid-call; it is refunded and the query answered afresh.
 * 3. Reserve: one unit takes the month's query and the day's tokens (or throws a 429, taking
 *    nothing) and writes the ledger row `reserved`. It commits before the provider is called,
 *    without waiting for its commit to reach the disk (`CommitOptions`): the answer is only ever
 *    complete once 5 is synced, which takes the reservation to disk with it, and a reservation a
 *    power cut loses is a query never answered, which 7 would give back anyway.
 * 4. Call: the provider answers within the tokens reserved.
 * 5. Settle: one unit records the tokens used, gives back what the answer did not use and marks
 *    the row `settled`; its usage is the answer's.
 * 6. Refund: when the call fails, one unit gives the query and its tokens back and deletes the row,
 *    so the key can be sent again; the ProviderError goes on to the caller.
 * 7. Abandon: when the client leaves (`signal`) before its answer is complete, the provider call is
 *    aborted and the query refunded as in 6, settled already or not; what the provider spent on it
 *    is recorded as the day's `abandoned_*`, the operator's cost. QueryAbandoned goes to the caller.
 * No step holds a database connection or transaction while the provider is called: 3 commits
 * before 4, and 5, 6 and 7 are units of their own.
 * An in-memory provider (no I/O) answers inside the reserving unit: steps 3 to 5 in one commit
 * (`answerQuery`; on PostgreSQL one call of a function, `answerInOneCall.ts`), which cannot fail
 * half-way, so it has nothing to refund.
 *
 * On PostgreSQL, 3 and 5 are one call each of a function (`reserveInOneCall.ts`), one round trip
 * and one commit in place of about fourteen statements.
 *
 * Invariants: every write is a `groupCommit` unit keyed by the user (or one function call), so a user's units never wait
 * on each other's row locks; a refused or failed unit keeps nothing; a key is in the ledger once
 * (a concurrent duplicate that loses the insert is answered as a replay).
 */

/** What the lifecycle needs of the app. */
export interface QueryServices {
  database: DatabaseHandle;
  ai: AiProvider;
  clock: Clock;
  log: FastifyBaseLogger;
  /** How long after its reservation an unsettled query is taken as abandoned. */
  abandonedAfterMs: number;
}

export interface QueryInput {
  userId: string;
  credential: ReservationRequest['credential'];
  /** The plan read with this request's session, so a plan change applies to the next query. */
  plan: Plan;
  request: AiRequest;
  /** The client's Idempotency-Key, already checked for shape. */
  key: string | undefined;
  /** Milliseconds since the request was received; a query never takes "0 ms". */
  elapsedMs: () => number;
  /** Aborted when the client leaves before the answer is complete. */
  signal?: AbortSignal;
  /** Receives the answer piece by piece as the model writes it (a streamed query). */
  onDelta?: (text: string) => void;
}

/** The client left before its answer was complete: the query was refunded, and there is no one to answer. */
export class QueryAbandoned extends Error {
  constructor() {
    super('The client left before the answer was complete.');
    this.name = 'QueryAbandoned';
  }
}

/** The `POST /query` answer. */
export interface QueryOutcome {
  answer: string | null;
  task: Task;
  tokens: TokenCounts;
  processing_time_ms: number;
  usage: Usage;
  request_id: string;
  replayed: boolean;
  formula: FormulaCheck | null;
  verified: boolean;
  engine: string;
}

/** Answers one query (or replays its key); throws ApiError for the client, ProviderError after a refund. */
export async function runQuery(services: QueryServices, input: QueryInput): Promise<QueryOutcome> {
  const { database, ai, clock } = services;
  const { userId, request, key } = input;
  const now = clock.now();
  const previous = key === undefined ? undefined : await findRequest(database, userId, key);
  if (previous && !(await releasedIfAbandoned(services, previous, request.task, now))) {
    return replay(database, previous, request.task, now, ai);
  }

  const reservationRequest: ReservationRequest = {
    userId,
    credential: input.credential,
    // Time-ordered, so the ledger rows of a batch of queries lie side by side.
    requestId: key ?? uuidV7(),
    task: request.task,
    plan: input.plan,
    promptTokens: ai.promptTokens(request),
    maxCompletionTokens: ai.maxCompletionTokens(request),
    now,
  };
  assertFitsPlan(reservationRequest, request.data?.length ? 'data' : 'prompt');
  let outcome: { reservation: Reservation; answer: AiAnswer; processingMs: number; usage: Usage };
  try {
    outcome = ai.inMemory ? await answerInOneUnit(services, input, reservationRequest) : await reserveCallSettle(services, input, reservationRequest);
  } catch (error) {
    if (!(error instanceof DuplicateRequest)) throw error;
    // A concurrent retry with the same key was accepted first.
    return replay(database, await findRequest(database, userId, key!), request.task, now, ai);
  }
  const { reservation, answer, processingMs, usage } = outcome;
  // The client left while the query was settled: it is given back all the same.
  if (input.signal?.aborted) await abandon(services, reservation, { abandoned: answer.tokens, settledMs: processingMs });
  return {
    answer: answer.answer,
    task: request.task,
    tokens: answer.tokens,
    processing_time_ms: processingMs,
    usage,
    request_id: reservation.requestId,
    replayed: false,
    ...checkedFormula(answer, ai),
  };
}

/** The formula an answer shows, and whether it is verified: it parsed and evaluated without an error on the data. */
function checkedFormula(answer: Pick<AiAnswer, 'formula'>, ai: AiProvider) {
  const formula = answer.formula ?? null;
  return { formula, verified: formula !== null && formula.valid && formula.error === null, engine: ai.engine ?? 'offline' };
}

/** The answer to a request id that was already accepted (and, when it is gone again, refunded by now). */
async function replay(database: DatabaseHandle, row: UsageLedgerTable | undefined, task: Task, now: number, ai: AiProvider): Promise<QueryOutcome> {
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
    ...checkedFormula({ formula: null }, ai),
  };
}

/** Gives back a reservation abandoned by a server that stopped mid-call; answers whether it was one. */
async function releasedIfAbandoned(services: QueryServices, row: UsageLedgerTable, task: Task, now: number): Promise<boolean> {
  if (row.status !== 'reserved' || row.task !== task || now - row.created_at <= services.abandonedAfterMs) return false;
  // A concurrent retry may have given it back first; either way it is no longer held.
  await services.database.groupCommit((tx) => refundQuery(tx, reservationOf(row)), row.user_id).catch(() => undefined);
  return true;
}

/**
 * An in-memory provider's answer was worked out while sizing the reservation: reserve, answer and
 * settle in one unit; on PostgreSQL in one call of its function, unless the day has room for only
 * part of the answer.
 */
async function answerInOneUnit(services: QueryServices, input: QueryInput, reservationRequest: ReservationRequest) {
  const processingMs = input.elapsedMs();
  if (services.database.engine === 'postgres') {
    const answer = await services.ai.answer(input.request, reservationRequest.maxCompletionTokens);
    const answered = await answerInOneCall(services.database, reservationRequest, processingMs, answer);
    if (answered !== PARTIAL_GRANT) return { processingMs, answer, ...answered };
  }
  const answered = await services.database.groupCommit(
    (tx) => answerQuery(tx, reservationRequest, processingMs, (completionTokens) => services.ai.answer(input.request, completionTokens)),
    input.userId,
  );
  return { processingMs, ...answered };
}

/** A provider that does I/O is called between two units: reserved before, settled after or refunded on failure. */
async function reserveCallSettle(services: QueryServices, input: QueryInput, reservationRequest: ReservationRequest) {
  const { database, ai, log } = services;
  const { signal, onDelta } = input;
  const onePostgresCall = database.engine === 'postgres';
  const reservation = onePostgresCall
    ? await reserveInOneCall(database, reservationRequest)
    : await database.groupCommit((tx) => reserveQuery(tx, reservationRequest), reservationRequest.userId, { synced: false });
  let answer: AiAnswer;
  try {
    // The client may have left while the query was reserved.
    if (signal?.aborted) throw new CallAborted({ prompt: 0, completion: 0, total: 0 });
    answer = await ai.answer(input.request, reservation.completionTokens, { ...(signal ? { signal } : {}), ...(onDelta ? { onDelta } : {}) });
  } catch (error) {
    if (error instanceof CallAborted) return abandon(services, reservation, { abandoned: error.spent });
    await giveBack(services, reservation, {});
    if (error instanceof ProviderError) {
      log.warn({ event: 'query.provider_failed', userId: reservation.userId, kind: error.kind, status: error.detail.status }, 'AI provider failed; the query was refunded');
    }
    throw error;
  }
  // The answer is complete, but its client left before it could be sent.
  if (signal?.aborted) return abandon(services, reservation, { abandoned: answer.tokens });
  const processingMs = input.elapsedMs();
  const now = services.clock.now();
  const usage = onePostgresCall
    ? await settleInOneCall(database, reservation, answer.tokens, processingMs, now)
    : await database.groupCommit((tx) => settleQuery(tx, reservation, answer.tokens, processingMs, now), reservation.userId);
  return { reservation, answer, processingMs, usage };
}

/** Gives a query back (`refundQuery`) in a unit of its own; a failure to is logged, and the query stays counted. */
async function giveBack(services: QueryServices, reservation: Reservation, why: GiveBack): Promise<void> {
  await services.database
    .groupCommit((tx) => refundQuery(tx, reservation, why), reservation.userId)
    .catch((refundError: unknown) =>
      services.log.error({ err: refundError, userId: reservation.userId, requestId: reservation.requestId }, 'refund of a query failed; it stays counted'),
    );
}

/** Gives back a query whose client left, records what the provider spent on it, and ends the query. */
async function abandon(services: QueryServices, reservation: Reservation, why: GiveBack & { abandoned: TokenCounts }): Promise<never> {
  await giveBack(services, reservation, why);
  services.log.info({ event: 'query.abandoned', userId: reservation.userId, tokens: why.abandoned.total }, 'the client left; the query was not counted');
  throw new QueryAbandoned();
}
