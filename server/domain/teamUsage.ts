import { sql, type Kysely, type Transaction } from 'kysely';
import type { TeamUsage } from '../../contract/teams';
import type { Database } from '../db/types';
import { ApiError } from '../errors';
import { periodsAt } from './usageReport';

/**
 * A team's usage, read from its members' ledger rows that name the team (a query counts for the
 * team it was made for, never one made before joining or after leaving).
 */

type Db = Kysely<Database> | Transaction<Database>;

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
