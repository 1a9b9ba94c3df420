import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle, SqlTransaction } from '../db/database';
import type { Database } from '../db/types';

/**
 * What a user's metering reads as: the UTC periods a moment falls in, the `/query/usage` object
 * and the last 30 days. The counters themselves are written by `usage.ts`; every read here is one
 * statement (a `sql` template where it runs with every query, for the reason given there).
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

export const DAY_MS = 86_400_000;

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

/** Seconds that count as "the last 60 s": this one and the 59 before it. */
export const MINUTE_S = 60;

/** The Retry-After header of a refusal that lasts until `until` (ms): whole seconds, at least 1. */
export function retryAfter(until: number, now: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) };
}

/** Queries in the 60 seconds up to `second`, and of all time. */
export function windowAndTotal(userId: string, second: number) {
  return sql<Pick<UsageRow, 'queries_per_minute' | 'total_queries'>>`select
    coalesce((select sum(queries) from usage_seconds where user_id = ${userId} and second > ${second - MINUTE_S} and second <= ${second}), 0) as queries_per_minute,
    coalesce((select sum(queries) from usage_months where user_id = ${userId}), 0) as total_queries`;
}

export interface UsageRow {
  monthly_queries: number;
  settled: number;
  processing_ms: number;
  daily_tokens: number;
  queries_per_minute: number;
  total_queries: number;
}

/** The `/query/usage` row at `now`, in one statement (it answers every query). */
function usageQuery(userId: string, now: number) {
  const { month, day } = periodsAt(now);
  const second = Math.floor(now / 1000);
  return sql<UsageRow>`select
    coalesce(m.queries, 0) as monthly_queries, coalesce(m.settled, 0) as settled, coalesce(m.processing_ms, 0) as processing_ms,
    coalesce((select tokens from usage_days where user_id = ${userId} and day = ${day}), 0) as daily_tokens,
    coalesce((select sum(queries) from usage_seconds where user_id = ${userId} and second > ${second - MINUTE_S} and second <= ${second}), 0) as queries_per_minute,
    coalesce((select sum(queries) from usage_months where user_id = ${userId}), 0) as total_queries
    from (select 1 as one) as always left join usage_months m on m.user_id = ${userId} and m.month = ${month}`;
}

export function toUsage(row: UsageRow): Usage {
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
  return toUsage((await database.preparedFirst('usage_at', usageQuery(userId, now)))!);
}

export async function usageIn(tx: SqlTransaction, userId: string, now: number): Promise<Usage> {
  return toUsage((await tx.run(usageQuery(userId, now)))[0]!);
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
