import { sql, type Kysely, type Transaction } from 'kysely';
import type { TeamUsage } from '../../contract/teams';
import type { Database } from '../db/types';
import { ApiError } from '../errors';
import { periodsAt } from './usageReport';

/**
 * A team's usage, read from its members' ledger rows that name the team (a query counts for the
 * team it was made for, never one made before joining or after leaving), together with the rollups
 * the retention job made of such rows when it pruned them (`retention.ts`): every read here takes
 * ledger rows and rollups as one set (`teamQueries`), so no figure changes when rows are pruned.
 */

type Db = Kysely<Database> | Transaction<Database>;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A `YYYY-MM` that is not after the current UTC month; 400 naming `month` otherwise. */
export function checkMonth(month: string, now: number): string {
  if (!MONTH.test(month)) throw new ApiError(400, 'invalid_input', 'The month must be written YYYY-MM, for example 2026-11.', { field: 'month' });
  if (month > periodsAt(now).month) throw new ApiError(400, 'invalid_input', 'The month is in the future: there is no usage for it yet.', { field: 'month' });
  return month;
}

/** The tokens a ledger row counts for: what an answered query used, or what one in flight holds. */
export const ledgerRowTokens = sql<number>`coalesce(prompt_tokens + completion_tokens, reserved_tokens)`;

/**
 * The team's queries (of one month, or all), as rows of queries and tokens per member, day and
 * task: one per ledger row, with its one query, and one per rollup, with the queries it holds.
 */
function teamQueries(db: Db, teamId: string, month?: string) {
  return db
    .selectFrom('usage_ledger')
    .select(['user_id', 'day', 'task', sql<number>`1`.as('queries'), ledgerRowTokens.as('tokens'), 'created_at as last_at'])
    .where('team_id', '=', teamId)
    .$if(month !== undefined, (query) => query.where('month', '=', month!))
    .unionAll(
      db
        .selectFrom('usage_rollups')
        .select(['user_id', 'day', 'task', 'queries', 'tokens', 'last_at'])
        .where('team_id', '=', teamId)
        .$if(month !== undefined, (query) => query.where('month', '=', month!)),
    );
}

export async function teamUsage(db: Db, teamId: string, month: string): Promise<TeamUsage> {
  const base = db.selectFrom(teamQueries(db, teamId, month).as('l'));
  const tokens = () => sql<number>`sum(l.tokens)`.as('tokens');
  const count = () => sql<number>`sum(l.queries)`.as('queries');
  const [days, byTask, members] = await Promise.all([
    base.select(['l.day', 'l.user_id', count(), tokens()]).groupBy(['l.day', 'l.user_id']).orderBy('l.day').orderBy('l.user_id').execute(),
    base.select(['l.task', count(), tokens()]).groupBy('l.task').orderBy('l.task').execute(),
    base
      .innerJoin('users as u', 'u.id', 'l.user_id')
      .select(['l.user_id', 'u.full_name', 'u.email', count(), tokens()])
      .groupBy(['l.user_id', 'u.full_name', 'u.email'])
      .orderBy('u.full_name')
      .orderBy('l.user_id')
      .execute(),
  ]);
  return {
    month,
    days: days.map((row) => ({ date: row.day, user_id: row.user_id, queries: Number(row.queries), tokens: Number(row.tokens) })),
    by_task: byTask.map((row) => ({ task: row.task, queries: Number(row.queries), tokens: Number(row.tokens) })),
    members: members.map((row) => ({ user_id: row.user_id, full_name: row.full_name, email: row.email, queries: Number(row.queries), tokens: Number(row.tokens) })),
  };
}

/** Per member who made queries for the team: when they last did, and their tokens of `day`. */
export async function memberActivity(db: Db, teamId: string, day: string): Promise<Map<string, { lastAt: number; dayTokens: number }>> {
  const rows = await db
    .selectFrom(teamQueries(db, teamId).as('l'))
    .select(['l.user_id', sql<number>`max(l.last_at)`.as('last_at'), sql<number>`sum(case when l.day = ${day} then l.tokens else 0 end)`.as('day_tokens')])
    .groupBy('l.user_id')
    .execute();
  return new Map(rows.map((row) => [row.user_id, { lastAt: Number(row.last_at), dayTokens: Number(row.day_tokens) }]));
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
