import { sql, type Kysely } from 'kysely';
import type { UsageAnalytics } from '../../contract/analytics';
import type { Database, UsageLedgerTable } from '../db/types';
import { ApiError } from '../errors';
import { horizonAt } from './retention';
import { csvField, ledgerRowTokens } from './teamUsage';
import { DAY_MS, periodsAt } from './usageReport';

/**
 * A user's usage analytics and per-query CSV (decisions.md, "Professional's promises"), read from
 * the ledger: one row per accepted query (reserved or settled; a refunded query leaves none), with
 * its task, credential, tokens and processing time, never its prompt, data or answer.
 *
 * The ledger keeps every query of the current UTC month and the `RETENTION_MONTHS` before it
 * (docs/retention.md), and a range may only start within them, so every figure here, the p50 and
 * p95 included, is exact: computed over the very rows of the range, not estimated from daily sums.
 * Before that horizon the ledger rows of a query made for no team are deleted and those of a team
 * are rolled up per day and task (with no processing time), so no range reaches there.
 */

export interface DayRange {
  from: string;
  to: string;
}

export const MAX_RANGE_DAYS = 366;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a `YYYY-MM-DD` that names a real day, else undefined. */
function dayStart(text: string): number | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return periodsAt(at).day === text ? at : undefined;
}

const invalid = (field: keyof DayRange, message: string) => new ApiError(400, 'invalid_input', message, { field });

/**
 * The range asked for, or 400 naming the field at fault: both real days written YYYY-MM-DD, `from`
 * not after `to`, `to` not after today, at most 366 days, and `from` within retention.
 */
export function checkRange(query: DayRange, now: number, retentionMonths: number): DayRange & { days: string[] } {
  const from = dayStart(query.from);
  if (from === undefined) throw invalid('from', 'The field "from" must be a day written YYYY-MM-DD, for example 2026-11-01.');
  const to = dayStart(query.to);
  if (to === undefined) throw invalid('to', 'The field "to" must be a day written YYYY-MM-DD, for example 2026-11-30.');
  if (to > now) throw invalid('to', 'The field "to" is in the future: there is no usage for it yet.');
  if (from > to) throw invalid('from', 'The field "from" must not be after "to".');
  const count = Math.round((to - from) / DAY_MS) + 1;
  if (count > MAX_RANGE_DAYS) throw invalid('to', `The range is ${count} days long; it may be at most ${MAX_RANGE_DAYS}.`);
  const kept = horizonAt(now, retentionMonths);
  if (from < kept.from) {
    throw invalid('from', `Usage is kept from ${periodsAt(kept.from).day} on; the field "from" must not be before it.`);
  }
  return { from: query.from, to: query.to, days: Array.from({ length: count }, (_, i) => periodsAt(from + i * DAY_MS).day) };
}

type Db = Kysely<Database>;

/** The user's queries of the range (reserved or settled). */
function rangeRows(db: Db, userId: string, range: DayRange) {
  return db
    .selectFrom('usage_ledger')
    .where('user_id', '=', userId)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .where('status', 'in', ['reserved', 'settled']);
}

export type CredentialKind = UsageAnalytics['by_credential'][number]['kind'];

/** How the wire names a ledger's credential kind (the ledger writes an API key as `key`). */
function wireKind(kind: UsageLedgerTable['credential_kind']): CredentialKind {
  return kind === 'key' ? 'api_key' : (kind ?? 'web');
}

/**
 * What a person calls each credential of the rows: an API key by its name, an add-on session by
 * its client's, a web session as the web app; one that is gone (a pruned key or session) says so.
 */
async function credentialNames(db: Db, clients: Record<string, string>, rows: Array<Pick<UsageLedgerTable, 'credential_kind' | 'credential_id'>>) {
  const ids = (kind: 'key' | 'addon') => [...new Set(rows.filter((row) => row.credential_kind === kind).map((row) => row.credential_id!))];
  const [keyIds, addonIds] = [ids('key'), ids('addon')];
  const [keys, sessions] = await Promise.all([
    keyIds.length ? db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', keyIds).execute() : [],
    addonIds.length ? db.selectFrom('sessions').select(['id', 'client_id']).where('id', 'in', addonIds).execute() : [],
  ]);
  const names = new Map<string, string>([
    ...keys.map((key): [string, string] => [key.id, key.name]),
    ...sessions.map((session): [string, string] => [session.id, session.client_id === null ? 'Add-on' : (clients[session.client_id] ?? session.client_id)]),
  ]);
  return (row: Pick<UsageLedgerTable, 'credential_kind' | 'credential_id'>): string => {
    if (row.credential_kind === 'web') return 'Web app';
    if (row.credential_kind === null || row.credential_id === null) return 'Not recorded';
    return names.get(row.credential_id) ?? (row.credential_kind === 'key' ? 'Deleted API key' : 'Ended add-on session');
  };
}

/** The processing time at nearest rank `ceil(share × n)` of the range's answered queries. */
async function percentile(db: Db, userId: string, range: DayRange, answered: number, share: number): Promise<number> {
  if (answered === 0) return 0;
  const row = await rangeRows(db, userId, range)
    .select('processing_time_ms')
    .where('processing_time_ms', 'is not', null)
    .orderBy('processing_time_ms')
    .limit(1)
    .offset(Math.ceil(share * answered) - 1)
    .executeTakeFirst();
  return Number(row?.processing_time_ms ?? 0);
}

const count = () => sql<number>`count(*)`.as('queries');
const tokens = () => sql<number>`sum(${ledgerRowTokens})`.as('tokens');
const byQueries = <T extends { queries: number }>(a: T, b: T) => b.queries - a.queries;

export async function usageAnalytics(db: Db, clients: Record<string, string>, userId: string, range: DayRange & { days: string[] }): Promise<UsageAnalytics> {
  const rows = () => rangeRows(db, userId, range);
  const [days, tasks, credentials] = await Promise.all([
    rows()
      .select(['day', count(), tokens(), sql<number>`coalesce(sum(processing_time_ms), 0)`.as('ms'), sql<number>`count(processing_time_ms)`.as('answered')])
      .groupBy('day')
      .execute(),
    rows().select(['task', count(), tokens()]).groupBy('task').orderBy('task').execute(),
    rows().select(['credential_kind', 'credential_id', count(), tokens()]).groupBy(['credential_kind', 'credential_id']).execute(),
  ]);
  const byDay = new Map(days.map((day) => [day.day, day]));
  const answered = days.reduce((sum, day) => sum + Number(day.answered), 0);
  const nameOf = await credentialNames(db, clients, credentials);
  const [p50, p95] = await Promise.all([percentile(db, userId, range, answered, 0.5), percentile(db, userId, range, answered, 0.95)]);
  return {
    from: range.from,
    to: range.to,
    days: range.days.map((date) => {
      const day = byDay.get(date);
      const settled = Number(day?.answered ?? 0);
      return {
        date,
        queries: Number(day?.queries ?? 0),
        tokens: Number(day?.tokens ?? 0),
        avg_processing_ms: settled > 0 ? Math.round((Number(day!.ms) / settled) * 10) / 10 : 0,
      };
    }),
    by_task: tasks.map((row) => ({ task: row.task, queries: Number(row.queries), tokens: Number(row.tokens) })).sort(byQueries),
    by_credential: credentials
      .map((row) => ({ kind: wireKind(row.credential_kind), id: row.credential_id, name: nameOf(row), queries: Number(row.queries), tokens: Number(row.tokens) }))
      .sort((a, b) => byQueries(a, b) || a.name.localeCompare(b.name)),
    p50_processing_ms: p50,
    p95_processing_ms: p95,
  };
}

export const USAGE_CSV_COLUMNS = ['at', 'task', 'credential_kind', 'credential_name', 'prompt_tokens', 'completion_tokens', 'processing_ms'] as const;

/**
 * The range as CSV, one row per query, oldest first: the columns above (a query still in flight
 * has empty counts), formulas neutralised, CRLF line ends and a byte order mark, as the team's CSV.
 * Never a prompt, data or answer: the ledger holds none.
 */
export async function usageQueriesCsv(db: Db, clients: Record<string, string>, userId: string, range: DayRange): Promise<string> {
  const rows = await rangeRows(db, userId, range)
    .select(['created_at', 'task', 'credential_kind', 'credential_id', 'prompt_tokens', 'completion_tokens', 'processing_time_ms'])
    .orderBy('created_at')
    .orderBy('request_id')
    .execute();
  const nameOf = await credentialNames(db, clients, rows);
  const lines = [USAGE_CSV_COLUMNS.join(',')];
  const count = (value: number | null) => (value === null ? '' : Number(value));
  for (const row of rows) {
    const cells = [
      new Date(Number(row.created_at)).toISOString(),
      row.task,
      wireKind(row.credential_kind),
      nameOf(row),
      count(row.prompt_tokens),
      count(row.completion_tokens),
      count(row.processing_time_ms),
    ];
    lines.push(cells.map(csvField).join(','));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
