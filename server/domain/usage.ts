import type { Kysely } from 'kysely';
import type { Plan } from '../../src/content/plans';
import type { DatabaseHandle, SqlTransaction } from '../db/database';
import type { Database, UsageLedgerTable } from '../db/types';
import { ApiError } from '../errors';
import type { AiAnswer, TokenCounts } from '../ai/provider';
import { giveBackMemberQuery, takeMemberQuery } from './memberCaps';

/**
 * Usage metering: every query reserves its place in the user's monthly query allowance and its
 * tokens in the daily allowance before the provider is called, then settles to what it used, or
 * is refunded when the provider fails. Each allowance is taken by one conditional upsert, so the
 * check and the increment are one atomic statement on both engines and concurrent queries (in
 * one process or many on one PostgreSQL) can never together pass a limit.
 *
 * Every unit locks its rows in the same order (month, day, member month, ledger, second), so on
 * PostgreSQL no two units can each wait for the other (no deadlock). A team member's query also
 * takes its place under the member's cap (memberCaps.ts) and names the team in its ledger row.
 */

/** The `/query/usage` object. */
export interface Usage {
  monthly_queries: number;
  daily_tokens: number;
  queries_per_minute: number;
  processing_time: number;
  total_queries: number;
}

export interface DayUsage {
  date: string;
  queries: number;
  tokens: number;
}

/** A query needs at least this much room for its answer (or its whole answer, when shorter). */
export const MIN_COMPLETION_TOKENS = 64;

const DAY_MS = 86_400_000;

const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n));

export interface Periods {
  month: string;
  day: string;
  monthEnds: number;
  dayEnds: number;
}

// Every query asks for the periods of its moment, and almost all of them fall in the day asked about last.
let lastPeriods: Periods & { dayStarts: number } = { month: '', day: '', monthEnds: 0, dayEnds: 0, dayStarts: 0 };

/** The UTC calendar month ('2026-11') and day ('2026-11-22') a moment falls in, and when each ends. */
export function periodsAt(now: number): Periods {
  if (now >= lastPeriods.dayStarts && now < lastPeriods.dayEnds) return lastPeriods;
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const monthKey = `${year}-${twoDigits(month + 1)}`;
  lastPeriods = Object.freeze({
    month: monthKey,
    day: `${monthKey}-${twoDigits(date.getUTCDate())}`,
    monthEnds: Date.UTC(year, month + 1, 1),
    dayEnds: Date.UTC(year, month, date.getUTCDate() + 1),
    dayStarts: Date.UTC(year, month, date.getUTCDate()),
  });
  return lastPeriods;
}

function retryAfter(until: number, now: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) };
}

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
function tokenNeeds(request: ReservationRequest) {
  const floor = request.promptTokens + Math.min(request.maxCompletionTokens, MIN_COMPLETION_TOKENS);
  return { floor, cap: request.promptTokens + request.maxCompletionTokens };
}

/** Whether a query of this size could ever fit in the plan's day; a 413 when it cannot. */
export function assertFitsPlan(request: ReservationRequest, field: string): void {
  const { floor } = tokenNeeds(request);
  const limit = request.plan.limits.dailyTokens;
  if (floor > limit) {
    throw new ApiError(
      413,
      'query_too_large',
      `This query needs about ${floor} tokens, more than the ${limit} a day the ${request.plan.name} plan allows. Send less data or a shorter prompt.`,
      { field },
    );
  }
}

// The month's query count goes up by one only while it is under the limit (UNLIMITED, -1: no limit).
// A query answered before it is recorded (an in-memory provider's) is counted as settled at once.
const TAKE_QUERY = `insert into usage_months (user_id, month, queries, settled, processing_ms) values (?, ?, 1, ?, ?)
  on conflict (user_id, month) do update set
    queries = usage_months.queries + 1, settled = usage_months.settled + ?, processing_ms = usage_months.processing_ms + ?
  where ? < 0 or usage_months.queries < ?
  returning queries, settled, processing_ms`;

// Takes min(cap, limit - tokens) while at least `floor` tokens are left; `last_grant` records
// what this very statement took, since RETURNING sees only the new row.
const TAKE_TOKENS = `insert into usage_days (user_id, day, queries, tokens, last_grant) values (?, ?, 1, ?, ?)
  on conflict (user_id, day) do update set
    queries = usage_days.queries + 1,
    tokens = usage_days.tokens + case when ? <= ? - usage_days.tokens then ? else ? - usage_days.tokens end,
    last_grant = case when ? <= ? - usage_days.tokens then ? else ? - usage_days.tokens end
  where usage_days.tokens + ? <= ?
  returning last_grant, tokens`;

const RECORD_REQUEST = `insert into usage_ledger (user_id, request_id, task, month, day, status, reserved_tokens, created_at, team_id)
  values (?, ?, ?, ?, ?, 'reserved', ?, ?, ?)
  on conflict (user_id, request_id) do nothing
  returning request_id`;

const RECORD_ANSWERED = `insert into usage_ledger
  (user_id, request_id, task, month, day, status, reserved_tokens, prompt_tokens, completion_tokens, processing_time_ms, created_at, settled_at, team_id)
  values (?, ?, ?, ?, ?, 'settled', ?, ?, ?, ?, ?, ?, ?)
  on conflict (user_id, request_id) do nothing
  returning request_id`;

const COUNT_SECOND = `insert into usage_seconds (user_id, second, queries) values (?, ?, 1)
  on conflict (user_id, second) do update set queries = usage_seconds.queries + 1
  returning queries`;

/** Seconds that count as "the last 60 s": this one and the 59 before it. */
const MINUTE_S = 60;

interface Taken {
  month: { queries: number; settled: number; processing_ms: number };
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
  const { month, day, monthEnds, dayEnds } = periodsAt(now);
  const { floor, cap } = tokenNeeds(request);
  const queryLimit = plan.limits.monthlyQueries;
  const tokenLimit = plan.limits.dailyTokens;
  const settled = answeredInMs === null ? 0 : 1;
  const ms = answeredInMs ?? 0;
  const [months] =
    queryLimit === 0 ? [] : await tx.all<Taken['month']>(TAKE_QUERY, [userId, month, settled, ms, settled, ms, queryLimit, queryLimit]);
  if (!months) {
    throw new ApiError(
      429,
      'monthly_quota_exceeded',
      `All ${queryLimit} queries of the ${plan.name} plan for this month are used. They renew on ${new Date(monthEnds).toISOString().slice(0, 10)} (UTC).`,
      { headers: retryAfter(monthEnds, now) },
    );
  }
  const first = Math.min(cap, tokenLimit);
  const [days] = await tx.all<{ last_grant: number; tokens: number }>(TAKE_TOKENS, [
    userId, day, first, first,
    cap, tokenLimit, cap, tokenLimit,
    cap, tokenLimit, cap, tokenLimit,
    floor, tokenLimit,
  ]);
  if (!days) {
    throw new ApiError(
      429,
      'daily_tokens_exceeded',
      `Not enough of the ${tokenLimit} daily tokens of the ${plan.name} plan are left for this query. They renew at midnight UTC.`,
      { headers: retryAfter(dayEnds, now) },
    );
  }
  const teamId = await takeMemberQuery(tx, userId, month, monthEnds, now);
  return { month: months, granted: Number(days.last_grant), dayTokens: Number(days.tokens), teamId };
}

/** Counts the query in its second; the user's first query of a second deletes the seconds that left the window. */
async function countSecond(tx: SqlTransaction, userId: string, now: number): Promise<number> {
  const second = Math.floor(now / 1000);
  const [bucket] = await tx.all<{ queries: number }>(COUNT_SECOND, [userId, second]);
  if (Number(bucket!.queries) === 1) await tx.all('delete from usage_seconds where user_id = ? and second <= ?', [userId, second - MINUTE_S]);
  return second;
}

/**
 * Reserves one query and its tokens, or throws: 429 `monthly_quota_exceeded` /
 * `daily_tokens_exceeded` (with Retry-After to the period's end) or DuplicateRequest. A refused
 * query must take nothing: run it in a unit (`groupCommit`), which a throw rolls back whole.
 */
export async function reserveQuery(tx: SqlTransaction, request: ReservationRequest): Promise<Reservation> {
  const { userId, requestId, now } = request;
  const { month, day } = periodsAt(now);
  const { granted, teamId } = await takeAllowances(tx, request, null);
  const recorded = await tx.all(RECORD_REQUEST, [userId, requestId, request.task, month, day, granted, now, teamId]);
  if (recorded.length === 0) throw new DuplicateRequest();
  const second = await countSecond(tx, userId, now);
  return { userId, requestId, month, day, second, reservedTokens: granted, completionTokens: granted - request.promptTokens, teamId };
}

const WINDOW_AND_TOTAL = `select
  coalesce((select sum(queries) from usage_seconds where user_id = ? and second > ? and second <= ?), 0) as queries_per_minute,
  coalesce((select sum(queries) from usage_months where user_id = ?), 0) as total_queries`;

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
  const { month, day } = periodsAt(now);
  const taken = await takeAllowances(tx, request, processingMs);
  const completionTokens = taken.granted - request.promptTokens;
  const answered = await answer(completionTokens);
  const { tokens } = answered;
  const recorded = await tx.all(RECORD_ANSWERED, [
    userId, requestId, request.task, month, day, taken.granted, tokens.prompt, tokens.completion, processingMs, now, now, taken.teamId,
  ]);
  if (recorded.length === 0) throw new DuplicateRequest();
  const second = await countSecond(tx, userId, now);
  // An answer cut short takes fewer tokens than it was granted: the rest goes back to the day.
  const unused = await giveBackUnused(tx, userId, day, taken.granted, tokens);
  const [rest] = await tx.all<Pick<UsageRow, 'queries_per_minute' | 'total_queries'>>(WINDOW_AND_TOTAL, [userId, second - MINUTE_S, second, userId]);
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
  if (unused !== 0) await tx.all('update usage_days set tokens = tokens - ? where user_id = ? and day = ?', [unused, userId, day]);
  return unused;
}

const USAGE = `select
  coalesce(m.queries, 0) as monthly_queries, coalesce(m.settled, 0) as settled, coalesce(m.processing_ms, 0) as processing_ms,
  coalesce((select tokens from usage_days where user_id = ? and day = ?), 0) as daily_tokens,
  coalesce((select sum(queries) from usage_seconds where user_id = ? and second > ? and second <= ?), 0) as queries_per_minute,
  coalesce((select sum(queries) from usage_months where user_id = ?), 0) as total_queries
  from (select 1 as one) as always left join usage_months m on m.user_id = ? and m.month = ?`;

interface UsageRow {
  monthly_queries: number;
  settled: number;
  processing_ms: number;
  daily_tokens: number;
  queries_per_minute: number;
  total_queries: number;
}

function usageParams(userId: string, now: number): unknown[] {
  const { month, day } = periodsAt(now);
  const second = Math.floor(now / 1000);
  return [userId, day, userId, second - MINUTE_S, second, userId, userId, month];
}

function toUsage(row: UsageRow): Usage {
  const settled = Number(row.settled);
  return {
    monthly_queries: Number(row.monthly_queries),
    daily_tokens: Number(row.daily_tokens),
    queries_per_minute: Number(row.queries_per_minute),
    // Mean milliseconds, to a tenth.
    processing_time: settled > 0 ? Math.round((Number(row.processing_ms) / settled) * 10) / 10 : 0,
    total_queries: Number(row.total_queries),
  };
}

/** The user's usage at `now` (one statement). */
export async function usageAt(database: DatabaseHandle, userId: string, now: number): Promise<Usage> {
  return toUsage((await database.preparedFirst<UsageRow>('usage_at', USAGE, usageParams(userId, now)))!);
}

async function usageIn(tx: SqlTransaction, userId: string, now: number): Promise<Usage> {
  return toUsage((await tx.all<UsageRow>(USAGE, usageParams(userId, now)))[0]!);
}

/** Settles a reservation to the tokens used; answers the usage after it. */
export async function settleQuery(tx: SqlTransaction, reservation: Reservation, tokens: TokenCounts, processingMs: number, now: number): Promise<Usage> {
  const { userId, requestId, month, day } = reservation;
  await tx.all('update usage_months set settled = settled + 1, processing_ms = processing_ms + ? where user_id = ? and month = ?', [
    processingMs,
    userId,
    month,
  ]);
  // An exact reservation (the offline provider's) leaves nothing to give back.
  await giveBackUnused(tx, userId, day, reservation.reservedTokens, tokens);
  const settled = await tx.all(
    `update usage_ledger set status = 'settled', prompt_tokens = ?, completion_tokens = ?, processing_time_ms = ?, settled_at = ?
     where user_id = ? and request_id = ? and status = 'reserved' returning request_id`,
    [tokens.prompt, tokens.completion, processingMs, now, userId, requestId],
  );
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

/** Gives back the query and tokens of a reservation whose provider failed. */
export async function refundQuery(tx: SqlTransaction, reservation: Reservation): Promise<void> {
  const { userId, requestId, month, day } = reservation;
  await tx.all('update usage_months set queries = queries - 1 where user_id = ? and month = ?', [userId, month]);
  await tx.all('update usage_days set queries = queries - 1, tokens = tokens - ? where user_id = ? and day = ?', [
    reservation.reservedTokens,
    userId,
    day,
  ]);
  if (reservation.teamId !== null) await giveBackMemberQuery(tx, reservation.teamId, userId, month);
  const removed = await tx.all(`delete from usage_ledger where user_id = ? and request_id = ? and status = 'reserved' returning request_id`, [
    userId,
    requestId,
  ]);
  if (removed.length === 0) throw new Error(`usage request ${requestId} was not reserved`);
  await tx.all('update usage_seconds set queries = queries - 1 where user_id = ? and second = ?', [userId, reservation.second]);
}

/** The ledger row of a request id, if that request was accepted. */
export function findRequest(database: DatabaseHandle, userId: string, requestId: string): Promise<UsageLedgerTable | undefined> {
  return database.preparedFirst<UsageLedgerTable>('usage_request', 'select * from usage_ledger where user_id = ? and request_id = ?', [
    userId,
    requestId,
  ]);
}

/** The last 30 UTC days, oldest first and today last, with zeros for days without use. */
export async function dailyUsage(db: Kysely<Database>, userId: string, now: number): Promise<DayUsage[]> {
  const days = Array.from({ length: 30 }, (_, i) => periodsAt(now - (29 - i) * DAY_MS).day);
  const rows = await db
    .selectFrom('usage_days')
    .select(['day', 'queries', 'tokens'])
    .where('user_id', '=', userId)
    .where('day', '>=', days[0]!)
    .where('day', '<=', days[29]!)
    .execute();
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return days.map((date) => ({ date, queries: Number(byDay.get(date)?.queries ?? 0), tokens: Number(byDay.get(date)?.tokens ?? 0) }));
}
