import { sql, type Kysely, type Transaction } from 'kysely';
import type { SqlTransaction } from '../db/database';
import type { Database } from '../db/types';
import { ApiError } from '../errors';
import { periodsAt } from './usage';

/**
 * A team's usage, read from its members' ledger rows that name the team (a query counts for the
 * team it was made for, never one made before joining or after leaving), and member caps, taken
 * by one conditional upsert per query like the plan's own monthly counter.
 */

type Db = Kysely<Database> | Transaction<Database>;

export interface TeamUsage {
  month: string;
  days: Array<{ date: string; user_id: string; queries: number; tokens: number }>;
  by_task: Array<{ task: string; queries: number; tokens: number }>;
  members: Array<{ user_id: string; full_name: string; email: string; queries: number; tokens: number }>;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A `YYYY-MM` that is not after the current UTC month; 400 naming `month` otherwise. */
export function checkMonth(month: string, now: number): string {
  if (!MONTH.test(month)) throw new ApiError(400, 'invalid_input', 'The month must be written YYYY-MM, for example 2026-11.', { field: 'month' });
  if (month > periodsAt(now).month) throw new ApiError(400, 'invalid_input', 'The month is in the future: there is no usage for it yet.', { field: 'month' });
  return month;
}

export async function teamUsage(db: Db, teamId: string, month: string): Promise<TeamUsage> {
  const base = db.selectFrom('usage_ledger as l').where('l.team_id', '=', teamId).where('l.month', '=', month);
  // A query in flight holds its reservation; an answered one counts what it used.
  const tokens = () => sql<number>`sum(coalesce(l.prompt_tokens + l.completion_tokens, l.reserved_tokens))`.as('tokens');
  const count = () => sql<number>`count(*)`.as('queries');
  const [days, byTask, members] = await Promise.all([
    base.select(['l.day', 'l.user_id', count(), tokens()]).groupBy(['l.day', 'l.user_id']).orderBy('l.day').orderBy('l.user_id').execute(),
    base.select(['l.task', count(), tokens()]).groupBy('l.task').orderBy('l.task').execute(),
    base
      .innerJoin('users as u', 'u.id', 'l.user_id')
      .select(['l.user_id', 'u.full_name', 'u.email', count(), tokens()])
      .groupBy(['l.user_id', 'u.full_name', 'u.email'])
      .orderBy('u.full_name')
      .execute(),
  ]);
  return {
    month,
    days: days.map((row) => ({ date: row.day, user_id: row.user_id, queries: Number(row.queries), tokens: Number(row.tokens) })),
    by_task: byTask.map((row) => ({ task: row.task, queries: Number(row.queries), tokens: Number(row.tokens) })),
    members: members.map((row) => ({ user_id: row.user_id, full_name: row.full_name, email: row.email, queries: Number(row.queries), tokens: Number(row.tokens) })),
  };
}

/**
 * One CSV field: a text a spreadsheet would read as a formula (=, +, -, @, tab or carriage return
 * first) gets a leading apostrophe (OWASP, "CSV Injection"), then RFC 4180 quoting where needed.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * `date,user_id,full_name,email,queries,tokens`, one row per member per day with use, CRLF line
 * ends (RFC 4180), and a byte order mark so spreadsheet applications read it as UTF-8.
 */
export function usageCsv(usage: TeamUsage): string {
  const people = new Map(usage.members.map((member) => [member.user_id, member]));
  const lines = [['date', 'user_id', 'full_name', 'email', 'queries', 'tokens'].join(',')];
  for (const day of usage.days) {
    const person = people.get(day.user_id);
    lines.push([day.date, day.user_id, person?.full_name ?? '', person?.email ?? '', day.queries, day.tokens].map(csvField).join(','));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

const TAKE_MEMBER_QUERY = `insert into team_member_months (team_id, user_id, month, queries) values (?, ?, ?, 1)
  on conflict (team_id, user_id, month) do update set queries = team_member_months.queries + 1
  where (select monthly_query_cap from team_members c where c.team_id = team_member_months.team_id and c.user_id = team_member_months.user_id) is null
     or team_member_months.queries < (select monthly_query_cap from team_members c where c.team_id = team_member_months.team_id and c.user_id = team_member_months.user_id)
  returning queries`;

/**
 * Takes one query of the member's cap for the month, in the query's unit; answers the team the
 * query counts for, or null for a user in no team. Throws 429 `member_cap_reached` when the cap
 * is used up; the upsert reads the cap and the count on the locked row, so queries sent at once
 * never pass it together.
 */
export async function takeMemberQuery(tx: SqlTransaction, userId: string, now: number): Promise<string | null> {
  const [member] = await tx.all<{ team_id: string; monthly_query_cap: number | null }>('select team_id, monthly_query_cap from team_members where user_id = ?', [userId]);
  if (!member) return null;
  const { month, monthEnds } = periodsAt(now);
  const taken = member.monthly_query_cap === 0 ? [] : await tx.all(TAKE_MEMBER_QUERY, [member.team_id, userId, month]);
  if (taken.length === 0) {
    throw new ApiError(
      429,
      'member_cap_reached',
      `You have used all ${member.monthly_query_cap} queries your team’s admin allows you this month. Ask them to raise your cap; it renews on ${new Date(monthEnds).toISOString().slice(0, 10)} (UTC).`,
      { headers: { 'Retry-After': String(Math.max(1, Math.ceil((monthEnds - now) / 1000))) } },
    );
  }
  return member.team_id;
}

/** Gives back a refunded query's place under the member's cap. */
export async function giveBackMemberQuery(tx: SqlTransaction, teamId: string, userId: string, month: string): Promise<void> {
  await tx.all('update team_member_months set queries = queries - 1 where team_id = ? and user_id = ? and month = ?', [teamId, userId, month]);
}

/** Names the team a ledger row's query counts for. */
export async function attributeToTeam(tx: SqlTransaction, teamId: string, userId: string, requestId: string): Promise<void> {
  await tx.all('update usage_ledger set team_id = ? where request_id = ? and user_id = ?', [teamId, requestId, userId]);
}
