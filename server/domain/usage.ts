import { sql } from 'kysely';
import type { Plan } from '../../contract/plans';
import type { DatabaseHandle, SqlTransaction } from '../db/database';
import type { UsageLedgerTable } from '../db/types';
import { ApiError } from '../errors';
import type { AiAnswer, TokenCounts } from '../ai/provider';
import { MINUTE_S, periodsAt, retryAfter, toUsage, usageIn, windowAndTotal, type Periods, type Usage } from './usageReport';
import { giveBackMemberQuery, takeMemberQuery } from './memberCaps';

/**
 * Usage metering: every query reserves its place in the user's monthly query allowance and its
 * tokens in the daily allowance before the provider is called, then settles to what it used, or
 * is refunded when the provider fails. Each allowance is taken by one conditional upsert, so the
 * check and the increment are one atomic statement on both engines and concurrent queries (in
 * one process or many on one PostgreSQL) can never together pass a limit.
 *
 * Over 300 lines because the statements of one unit (take, record, settle, refund) must be read
 * together to see that their lock order and their give-backs match; the reads are in
 * usageReport.ts and the lifecycle that calls them in queries.ts.
 *
 * Every unit locks its rows in the same order (month, day, member month, ledger, second), so on
 * PostgreSQL no two units can each wait for the other (no deadlock). A team member's query also
 * takes its place under the member's cap (memberCaps.ts) and names the team in its ledger row.
 *
 * The statements are Kysely's. Those every query runs (the upserts that take the allowances, the
 * ledger row and its look-up, the second's count, the usage read) are `sql` templates with named
 * values and typed rows: each is one statement whose check and write must stay atomic, and
 * building the allowance upsert with the query builder and compiling it took 13 times as long as
 * the template (170 µs against 13 µs on the 2-core machine), more than running it. Settling (every
 * query on SQLite) and the once-a-second clean-up are templates too; refunding uses the query builder.
 */

/** A query needs at least this much room for its answer (or its whole answer, when shorter). */
export const MIN_COMPLETION_TOKENS = 64;

export interface Reservation {
  userId: string;
  requestId: string;
  month: string;
  day: string;
  /** Epoch second of the reservation, its bucket for queries per minute. */
  second: number;
  /** Tokens held for the query: its prompt plus the room its answer may take. */
  reservedTokens: number;
  /** The answer's share of the reservation. */
  completionTokens: number;
  /** The team the query counts for (its user was a member when it was accepted). */
  teamId: string | null;
}

export interface ReservationRequest {
  userId: string;
  /** Which credential makes the query: a web or add-on session, or an API key, by its id. */
  credential: { kind: 'web' | 'addon' | 'key'; id: string };
  requestId: string;
  task: string;
  plan: Plan;
  promptTokens: number;
  maxCompletionTokens: number;
  now: number;
}

/** Another request with the same request id (Idempotency-Key) was accepted first. */
export class DuplicateRequest extends Error {}

/**
 * The query's tokens: the whole prompt plus as much of `maxCompletionTokens` as is left today,
 * but never less than `MIN_COMPLETION_TOKENS` (or the whole answer, when that is shorter).
 */
export function tokenNeeds(request: ReservationRequest) {
  const floor = request.promptTokens + Math.min(request.maxCompletionTokens, MIN_COMPLETION_TOKENS);
  return { floor, cap: request.promptTokens + request.maxCompletionTokens };
}

/** Whether a query of this size could ever fit in the plan's day; a 413 when it cannot. */
export function assertFitsPlan(request: ReservationRequest, field: string): void {
  const { floor } = tokenNeeds(request);
  const limit = request.plan.limits.daily_tokens;
  if (floor > limit) {
    throw new ApiError(
      413,
      'query_too_large',
      `This query needs about ${floor} tokens, more than the ${limit} a day the ${request.plan.name} plan allows. Send less data or a shorter prompt.`,
      { field },
    );
  }
}

/** 429: the month's queries of the plan are used (Retry-After: the month's end). */
export function monthlyQuotaExceeded(plan: Plan, now: number): ApiError {
  const { monthEnds } = periodsAt(now);
  return new ApiError(
    429,
    'monthly_quota_exceeded',
    `All ${plan.limits.monthly_queries} queries of the ${plan.name} plan for this month are used. They renew on ${new Date(monthEnds).toISOString().slice(0, 10)} (UTC).`,
    { headers: retryAfter(monthEnds, now) },
  );
}

/** 429: too few of the day's tokens are left for the query (Retry-After: midnight UTC). */
export function dailyTokensExceeded(plan: Plan, now: number): ApiError {
  return new ApiError(
    429,
    'daily_tokens_exceeded',
    `Not enough of the ${plan.limits.daily_tokens} daily tokens of the ${plan.name} plan are left for this query. They renew at midnight UTC.`,
    { headers: retryAfter(periodsAt(now).dayEnds, now) },
  );
}

interface MonthRow {
  queries: number;
  settled: number;
  processing_ms: number;
}

/**
 * The month's query count goes up by one only while it is under the limit (UNLIMITED, -1: no
 * limit). A query answered before it is recorded (an in-memory provider's) counts as settled at
 * once, with its processing time.
 */
function takeQuery(userId: string, month: string, limit: number, answeredInMs: number | null) {
  const settled = answeredInMs === null ? 0 : 1;
  const ms = answeredInMs ?? 0;
  return sql<MonthRow>`insert into usage_months (user_id, month, queries, settled, processing_ms) values (${userId}, ${month}, 1, ${settled}, ${ms})
    on conflict (user_id, month) do update set
      queries = usage_months.queries + 1, settled = usage_months.settled + ${settled}, processing_ms = usage_months.processing_ms + ${ms}
    where ${limit} < 0 or usage_months.queries < ${limit}
    returning queries, settled, processing_ms`;
}

/**
 * Takes min(cap, limit - tokens) of the day while at least `floor` tokens are left; `last_grant`
 * records what this very statement took, since RETURNING sees only the new row.
 */
function takeTokens(userId: string, day: string, { floor, cap }: { floor: number; cap: number }, limit: number) {
  const first = Math.min(cap, limit);
  return sql<{ last_grant: number; tokens: number }>`insert into usage_days (user_id, day, queries, tokens, last_grant) values (${userId}, ${day}, 1, ${first}, ${first})
    on conflict (user_id, day) do update set
      queries = usage_days.queries + 1,
      tokens = usage_days.tokens + case when ${cap} <= ${limit} - usage_days.tokens then ${cap} else ${limit} - usage_days.tokens end,
      last_grant = case when ${cap} <= ${limit} - usage_days.tokens then ${cap} else ${limit} - usage_days.tokens end
    where usage_days.tokens + ${floor} <= ${limit}
    returning last_grant, tokens`;
}

/** The ledger row of an accepted query: reserved, or settled at once with its counts. */
function recordRequest(
  request: ReservationRequest,
  periods: Periods,
  granted: number,
  teamId: string | null,
  answered?: { tokens: TokenCounts; processingMs: number },
) {
  const { userId, requestId, task, now, credential } = request;
  const status = answered ? 'settled' : 'reserved';
  return sql<{ request_id: string }>`insert into usage_ledger
    (user_id, request_id, task, month, day, status, reserved_tokens, prompt_tokens, completion_tokens, processing_time_ms, created_at, settled_at,
      team_id, credential_kind, credential_id)
    values (${userId}, ${requestId}, ${task}, ${periods.month}, ${periods.day}, ${status}, ${granted},
      ${answered?.tokens.prompt ?? null}, ${answered?.tokens.completion ?? null}, ${answered?.processingMs ?? null}, ${now}, ${answered ? now : null},
      ${teamId}, ${credential.kind}, ${credential.id})
    on conflict (user_id, request_id) do nothing
    returning request_id`;
}

interface Taken {
  month: MonthRow;
  /** What the query holds of the day's tokens, and the day's tokens with it. */
  granted: number;
  dayTokens: number;
  teamId: string | null;
}

/**
 * Takes one of the month's queries and the query's tokens of the day, or throws 429
 * `monthly_quota_exceeded` / `daily_tokens_exceeded` (with Retry-After to the period's end).
 * `answeredInMs` counts the query as settled at once, with that processing time.
 */
async function takeAllowances(tx: SqlTransaction, request: ReservationRequest, answeredInMs: number | null): Promise<Taken> {
  const { userId, plan, now } = request;
  const { month, day } = periodsAt(now);
  const queryLimit = plan.limits.monthly_queries;
  const tokenLimit = plan.limits.daily_tokens;
  const [months] = queryLimit === 0 ? [] : await tx.run(takeQuery(userId, month, queryLimit, answeredInMs));
  if (!months) throw monthlyQuotaExceeded(plan, now);
  const [days] = await tx.run(takeTokens(userId, day, tokenNeeds(request), tokenLimit));
  if (!days) throw dailyTokensExceeded(plan, now);
  const teamId = await takeMemberQuery(tx, userId, month, now);
  return { month: months, granted: Number(days.last_grant), dayTokens: Number(days.tokens), teamId };
}

/** Counts the query in its second; the user's first query of a second deletes the seconds that left the window. */
async function countSecond(tx: SqlTransaction, userId: string, now: number): Promise<number> {
  const second = Math.floor(now / 1000);
  const [bucket] = await tx.run(sql<{ queries: number }>`insert into usage_seconds (user_id, second, queries) values (${userId}, ${second}, 1)
    on conflict (user_id, second) do update set queries = usage_seconds.queries + 1
    returning queries`);
  if (Number(bucket!.queries) === 1) {
    await tx.run(sql`delete from usage_seconds where user_id = ${userId} and second <= ${second - MINUTE_S}`);
  }
  return second;
}

/**
 * Reserves one query and its tokens, or throws: 429 `monthly_quota_exceeded` /
 * `daily_tokens_exceeded` (with Retry-After to the period's end) or DuplicateRequest. A refused
 * query must take nothing: run it in a unit (`groupCommit`), which a throw rolls back whole.
 */
export async function reserveQuery(tx: SqlTransaction, request: ReservationRequest): Promise<Reservation> {
  const { userId, requestId, now } = request;
  const periods = periodsAt(now);
  const { month, day } = periods;
  const { granted, teamId } = await takeAllowances(tx, request, null);
  const recorded = await tx.run(recordRequest(request, periods, granted, teamId));
  if (recorded.length === 0) throw new DuplicateRequest();
  const second = await countSecond(tx, userId, now);
  return { userId, requestId, month, day, second, reservedTokens: granted, completionTokens: granted - request.promptTokens, teamId };
}

/**
 * A query whose answer is worked out in memory (no I/O), reserved and settled in one go: the
 * answer is asked for within the tokens the query was granted, and the query is recorded as
 * settled with it. Fewer statements than `reserveQuery` then `settleQuery`, with the same outcome;
 * the same 429s and DuplicateRequest. `processingMs` is the time it took to have the answer.
 */
export async function answerQuery(
  tx: SqlTransaction,
  request: ReservationRequest,
  processingMs: number,
  answer: (completionTokens: number) => Promise<AiAnswer>,
): Promise<{ reservation: Reservation; answer: AiAnswer; usage: Usage }> {
  const { userId, requestId, now } = request;
  const periods = periodsAt(now);
  const { month, day } = periods;
  const taken = await takeAllowances(tx, request, processingMs);
  const completionTokens = taken.granted - request.promptTokens;
  const answered = await answer(completionTokens);
  const { tokens } = answered;
  const recorded = await tx.run(recordRequest(request, periods, taken.granted, taken.teamId, { tokens, processingMs }));
  if (recorded.length === 0) throw new DuplicateRequest();
  const second = await countSecond(tx, userId, now);
  // An answer cut short takes fewer tokens than it was granted: the rest goes back to the day.
  const unused = await giveBackUnused(tx, userId, day, taken.granted, tokens);
  const [rest] = await tx.run(windowAndTotal(userId, second));
  const usage = toUsage({
    monthly_queries: taken.month.queries,
    settled: taken.month.settled,
    processing_ms: taken.month.processing_ms,
    daily_tokens: taken.dayTokens - unused,
    ...rest!,
  });
  const reservation = { userId, requestId, month, day, second, reservedTokens: taken.granted, completionTokens, teamId: taken.teamId };
  return { reservation, answer: answered, usage };
}

/** Gives the day back the tokens a query was granted and did not use; answers how many. */
async function giveBackUnused(tx: SqlTransaction, userId: string, day: string, granted: number, used: TokenCounts): Promise<number> {
  const unused = granted - used.total;
  if (unused !== 0) {
    await tx.run(sql`update usage_days set tokens = tokens - ${unused} where user_id = ${userId} and day = ${day}`);
  }
  return unused;
}

/** Settles a reservation to the tokens used; answers the usage after it. */
export async function settleQuery(tx: SqlTransaction, reservation: Reservation, tokens: TokenCounts, processingMs: number, now: number): Promise<Usage> {
  const { userId, requestId, month, day } = reservation;
  await tx.run(sql`update usage_months set settled = settled + 1, processing_ms = processing_ms + ${processingMs} where user_id = ${userId} and month = ${month}`);
  // An exact reservation (the offline provider's) leaves nothing to give back.
  await giveBackUnused(tx, userId, day, reservation.reservedTokens, tokens);
  const settled = await tx.run(sql<{ request_id: string }>`update usage_ledger
    set status = 'settled', prompt_tokens = ${tokens.prompt}, completion_tokens = ${tokens.completion}, processing_time_ms = ${processingMs}, settled_at = ${now}
    where user_id = ${userId} and request_id = ${requestId} and status = 'reserved'
    returning request_id`);
  if (settled.length === 0) throw new Error(`usage request ${requestId} was not reserved`);
  return usageIn(tx, userId, now);
}

/** The reservation a ledger row records. */
export function reservationOf(row: UsageLedgerTable): Reservation {
  const reservedTokens = Number(row.reserved_tokens);
  return {
    userId: row.user_id,
    requestId: row.request_id,
    month: row.month,
    day: row.day,
    second: Math.floor(Number(row.created_at) / 1000),
    reservedTokens,
    completionTokens: reservedTokens - (row.prompt_tokens ?? 0),
    teamId: row.team_id,
  };
}

/** Why a query is given back, beyond its provider failing. */
export interface GiveBack {
  /** Its client left: what the provider had spent on it, kept for the operator (`abandoned_*` of the day). */
  abandoned?: TokenCounts;
  /** It was settled already (to `abandoned`'s tokens), in this many milliseconds. */
  settledMs?: number;
}

/**
 * Gives back the query and tokens of a reservation whose provider failed, or of a query whose
 * client left before its answer was complete (settled already or not): the user's figures are as
 * if it was never sent, and the tokens the provider spent on an abandoned one are the operator's.
 */
export async function refundQuery(tx: SqlTransaction, reservation: Reservation, { abandoned, settledMs }: GiveBack = {}): Promise<void> {
  const { userId, requestId, month, day } = reservation;
  const settled = settledMs !== undefined;
  await tx.run(
    tx.db
      .updateTable('usage_months')
      .set((eb) => ({
        queries: eb('queries', '-', 1),
        ...(settled ? { settled: eb('settled', '-', 1), processing_ms: eb('processing_ms', '-', settledMs) } : {}),
      }))
      .where('user_id', '=', userId)
      .where('month', '=', month),
  );
  // A settled query holds the tokens it used; a reserved one its reservation.
  const held = settled ? abandoned!.total : reservation.reservedTokens;
  await tx.run(
    tx.db
      .updateTable('usage_days')
      .set((eb) => ({
        queries: eb('queries', '-', 1),
        tokens: eb('tokens', '-', held),
        ...(abandoned ? { abandoned_queries: eb('abandoned_queries', '+', 1), abandoned_tokens: eb('abandoned_tokens', '+', abandoned.total) } : {}),
      }))
      .where('user_id', '=', userId)
      .where('day', '=', day),
  );
  if (reservation.teamId !== null) await giveBackMemberQuery(tx, reservation.teamId, userId, month);
  const removed = await tx.run(
    tx.db
      .deleteFrom('usage_ledger')
      .where('user_id', '=', userId)
      .where('request_id', '=', requestId)
      .where('status', '=', settled ? 'settled' : 'reserved')
      .returning('request_id'),
  );
  if (removed.length === 0) throw new Error(`usage request ${requestId} was not ${settled ? 'settled' : 'reserved'}`);
  await tx.run(
    tx.db
      .updateTable('usage_seconds')
      .set((eb) => ({ queries: eb('queries', '-', 1) }))
      .where('user_id', '=', userId)
      .where('second', '=', reservation.second),
  );
}

/** The ledger row of a request id, if that request was accepted. */
export function findRequest(database: DatabaseHandle, userId: string, requestId: string): Promise<UsageLedgerTable | undefined> {
  return database.preparedFirst('usage_request', sql<UsageLedgerTable>`select * from usage_ledger where user_id = ${userId} and request_id = ${requestId}`);
}
