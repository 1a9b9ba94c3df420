import { sql } from 'kysely';
import type { Plan } from '../../contract/plans';
import type { AiAnswer } from '../ai/provider';
import { callsInBatches, endedByPostgres } from '../db/batching';
import type { DatabaseHandle } from '../db/database';
import { memberCapReached } from './memberCaps';
import { DuplicateRequest, dailyTokensExceeded, monthlyQuotaExceeded, tokenNeeds, type Reservation, type ReservationRequest } from './usage';
import { periodsAt, toUsage, type Usage, type UsageRow } from './usageReport';

/**
 * Queries whose answer is worked out in memory, on PostgreSQL: the unit of `answerQuery`
 * (usage.ts) as one call of the `answer_query` function (migration 2026-11-24T0300), and the
 * queries of one turn of the event loop together in one call of `answer_queries`: one round trip
 * and one commit for them all, where each unit took about ten statements in a transaction of its
 * own, each statement a round trip.
 *
 * Invariants:
 * - The answer is worked out first, for all the tokens the query asks; the function takes the
 *   allowances, records the query settled with that answer's counts and answers the usage after
 *   it, or refuses and keeps nothing of that query (each query is a subtransaction of the batch).
 * - A batch locks its users' rows in user order, as every other batch does.
 * - When the day can grant only part of the answer's tokens, the answer must be cut to fit: the
 *   caller then answers within the part, in the unit of `answerQuery`.
 */

/** The day could grant only part of the answer's tokens: answer within the part instead. */
export const PARTIAL_GRANT = Symbol('partial grant');

/** Queries of one call at most: a batch holds its users' row locks until it commits. */
const MAX_BATCH = 100;

interface AnswerRow extends UsageRow {
  n: number;
  /** The SQLSTATE of a refusal (SMMON, SMDAY, SMCAP, SMDUP, SMPAR), or null. */
  refusal: string | null;
  /** SMCAP: the member's cap. */
  detail: string | null;
  team_id: string | null;
}

type Args = Record<string, string | number>;

/** Answers queries in one call of `answer_queries`, in their order. */
async function answerRows(database: DatabaseHandle, batch: Args[]): Promise<AnswerRow[]> {
  const json = JSON.stringify(batch.map((args, n) => ({ n, ...args })));
  const { rows } = await sql<AnswerRow>`select * from answer_queries(${json}::jsonb)`.execute(database.db);
  const answered: AnswerRow[] = new Array(batch.length);
  for (const row of rows) answered[row.n] = row;
  return answered;
}

const batchers = new WeakMap<DatabaseHandle, (args: Args) => Promise<AnswerRow>>();

/**
 * The queries of one turn go together, however many batches are on their way. A batch that
 * PostgreSQL ends to break a deadlock (another transaction locking users' rows out of order: an
 * account's deletion, say) kept nothing, so its queries are asked again, each on its own.
 */
function answerTogether(database: DatabaseHandle, args: Args): Promise<AnswerRow> {
  let answer = batchers.get(database);
  if (!answer) {
    answer = callsInBatches<Args, AnswerRow>({
      maxBatch: MAX_BATCH,
      maxInFlight: Infinity,
      one: async (one) => (await answerRows(database, [one]))[0]!,
      many: async (many) => (await answerRows(database, many)).map((value) => ({ value })),
      aloneAfter: endedByPostgres,
    });
    batchers.set(database, answer);
  }
  return answer(args);
}

/** The error a metering function's refusal (its SQLSTATE, and the message it raised) stands for. */
export function refusal(code: string, detail: string | null, plan: Plan, now: number): Error {
  switch (code) {
    case 'SMMON':
      return monthlyQuotaExceeded(plan, now);
    case 'SMDAY':
      return dailyTokensExceeded(plan, now);
    case 'SMCAP':
      return memberCapReached(Number(detail), now);
    case 'SMDUP':
      return new DuplicateRequest();
    default:
      return new Error(`a metering function refused with ${code}`);
  }
}

export async function answerInOneCall(
  database: DatabaseHandle,
  request: ReservationRequest,
  processingMs: number,
  answer: AiAnswer,
): Promise<{ reservation: Reservation; usage: Usage } | typeof PARTIAL_GRANT> {
  const { userId, requestId, task, credential, plan, now } = request;
  const { month, day } = periodsAt(now);
  const { prompt, completion } = answer.tokens;
  const row = await answerTogether(database, {
    user_id: userId,
    request_id: requestId,
    task,
    credential_kind: credential.kind,
    credential_id: credential.id,
    month,
    day,
    now,
    query_limit: plan.limits.monthly_queries,
    token_limit: plan.limits.daily_tokens,
    prompt_tokens: prompt,
    floor: tokenNeeds(request).floor,
    completion_tokens: completion,
    processing_ms: processingMs,
  });
  if (row.refusal === 'SMPAR') return PARTIAL_GRANT;
  if (row.refusal !== null) throw refusal(row.refusal, row.detail, plan, now);
  return {
    reservation: { userId, requestId, month, day, second: Math.floor(now / 1000), reservedTokens: prompt + completion, completionTokens: completion, teamId: row.team_id },
    usage: toUsage(row),
  };
}
