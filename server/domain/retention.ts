import type { FastifyBaseLogger } from 'fastify';
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { RetentionConfig } from '../config';
import type { DatabaseHandle } from '../db/database';
import type { Database, Engine } from '../db/types';
import type { Clock } from './clock';
import { ledgerRowTokens } from './teamUsage';
import { DAY_MS, MINUTE_S } from './usageReport';

/**
 * The retention job (docs/retention.md): every table that grows with use is pruned of what no read,
 * check or replay needs any more, on a timer, by every instance.
 *
 * Invariants:
 * - Nothing a user or admin reads changes: the dashboard reads `usage_months` (never pruned) and
 *   the last 30 days of `usage_days`; the quota checks read this month and this day (and the last
 *   minute); the team's usage, its CSV and its members list read ledger rows and rollups as one
 *   (`teamUsage.ts`). Pruned ledger rows of a team are rolled into `usage_rollups` in the
 *   transaction that deletes them, from the rows the DELETE itself returned, so each row is counted
 *   exactly once: never twice, never lost, whatever runs at the same time.
 * - Work goes in batches of `batchSize` rows, one transaction each, with the event loop let go
 *   between them: no run holds a lock (or SQLite's one connection) for long.
 * - Several runs at once are harmless. On PostgreSQL each batch takes a transaction-scoped advisory
 *   lock first; a run that cannot get it stops, as another instance is pruning. A batch skips rows
 *   another transaction holds (a query settling or refunding its row: `for update skip locked`), so
 *   it never waits on a query's unit, and a unit never deadlocks with it. On SQLite transactions
 *   run one at a time.
 */

/** After expiry, a link or code still answers "expired" rather than "unknown" this long. */
const EXPIRED_GRACE_MS = DAY_MS;
/** Stripe retries a failed delivery for 3 days and lists undelivered events for 30 to process again: ids are kept 90. */
export const BILLING_EVENT_DAYS = 90;
/** A revoked or expired API key still answers `api_key_revoked` / `api_key_expired` this long. */
export const DEAD_KEY_DAYS = 90;
/** A used, revoked or expired invitation is kept this long after its expiry. */
export const INVITATION_DAYS = 30;
/** `usage_seconds` rows are read for a minute; a user who stopped querying leaves theirs behind. */
const SECONDS_KEPT_S = 60 * MINUTE_S;
/** PostgreSQL advisory lock of the job (any constant no other lock of the app uses). */
const LOCK_KEY = 0x5e7e_2023;

export interface RetentionOptions {
  /** Whole UTC months kept before the current one (`RETENTION_MONTHS`). */
  months: number;
  /** Rows deleted per transaction. */
  batchSize?: number;
  /** Asked between batches: a run ends early when it answers true (the app is closing). */
  stopping?: () => boolean;
}

/** The moments the rules prune by, at `now`. */
export interface Horizon {
  now: number;
  /** The oldest month kept ('2025-10'): usage of earlier months is pruned. */
  month: string;
  /** When that month starts (ms). */
  from: number;
}

export function horizonAt(now: number, months: number): Horizon {
  const date = new Date(now);
  const from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - months, 1);
  return { now, month: new Date(from).toISOString().slice(0, 7), from };
}

type Row = Record<string, unknown>;
type Trx = Transaction<Database>;

interface Rule {
  table: keyof Database;
  key: string[];
  /** Which rows go: a condition on the table's columns (compared at fixed widths, so any collation orders them alike). */
  due: (at: Horizon) => RawBuilder<unknown>;
  returning?: RawBuilder<unknown>;
  /** Runs in the batch's transaction with the rows it deleted. */
  then?: (trx: Trx, engine: Engine, rows: Row[]) => Promise<void>;
}

const credentialActivityOf = async (trx: Trx, _engine: Engine, rows: Row[]) => {
  await trx.deleteFrom('credential_activity').where('credential_id', 'in', rows.map((row) => String(row.id))).execute();
};

const RULES = {
  // Refresh tokens go with their session (on delete cascade).
  sessions: { table: 'sessions', key: ['id'], due: (at) => sql`expires_at < ${at.now - EXPIRED_GRACE_MS}`, returning: sql`id`, then: credentialActivityOf },
  api_keys: {
    table: 'api_keys',
    key: ['id'],
    due: (at) => sql`(revoked_at < ${at.now - DEAD_KEY_DAYS * DAY_MS} or expires_at < ${at.now - DEAD_KEY_DAYS * DAY_MS})`,
    returning: sql`id`,
    then: credentialActivityOf,
  },
  // Used or not: a link lives an hour, and a used one answers as an expired one.
  password_resets: { table: 'password_resets', key: ['token_hash'], due: (at) => sql`expires_at < ${at.now - EXPIRED_GRACE_MS}` },
  // Used or not: a link lives a day, and a used one answers as an unknown one would, all but its words.
  email_verifications: { table: 'email_verifications', key: ['token_hash'], due: (at) => sql`expires_at < ${at.now - EXPIRED_GRACE_MS}` },
  device_grants: { table: 'device_grants', key: ['id'], due: (at) => sql`expires_at < ${at.now - EXPIRED_GRACE_MS}` },
  team_invitations: { table: 'team_invitations', key: ['id'], due: (at) => sql`expires_at < ${at.now - INVITATION_DAYS * DAY_MS}` },
  // Counted for a day at most (the team's window), kept one more.
  invitation_mails: { table: 'invitation_mails', key: ['id'], due: (at) => sql`sent_at < ${at.now - 2 * DAY_MS}` },
  // A mail is tried for 24 hours at most, and its row (text cleared once sent or given up) tells an
  // invitation's delivery while the invitation lives (7 days); its attempts go with it (on delete cascade).
  mail_outbox: { table: 'mail_outbox', key: ['id'], due: (at) => sql`created_at < ${at.now - INVITATION_DAYS * DAY_MS}` },
  billing_test_sessions: { table: 'billing_test_sessions', key: ['token_hash'], due: (at) => sql`expires_at < ${at.now - EXPIRED_GRACE_MS}` },
  billing_events: { table: 'billing_events', key: ['id'], due: (at) => sql`received_at < ${at.now - BILLING_EVENT_DAYS * DAY_MS}` },
  team_audit_log: { table: 'team_audit_log', key: ['id'], due: (at) => sql`at < ${at.from}` },
  usage_ledger: {
    table: 'usage_ledger',
    key: ['request_id', 'user_id'],
    due: (at) => sql`month < ${at.month}`,
    returning: sql`team_id, user_id, month, day, task, ${ledgerRowTokens} as tokens, created_at`,
    then: rollUp,
  },
  usage_days: { table: 'usage_days', key: ['user_id', 'day'], due: (at) => sql`day < ${`${at.month}-01`}` },
  team_member_months: { table: 'team_member_months', key: ['team_id', 'user_id', 'month'], due: (at) => sql`month < ${at.month}` },
  usage_seconds: { table: 'usage_seconds', key: ['user_id', 'second'], due: (at) => sql`second < ${Math.floor(at.now / 1000) - SECONDS_KEPT_S}` },
} satisfies Record<string, Rule>;

export type Pruned = Record<keyof typeof RULES, number> & {
  /** The run stopped early: another instance was pruning (PostgreSQL), or the app is closing. */
  stopped: boolean;
};

/**
 * Adds the team rows of a deleted batch to their rollups, in key order (so two transactions
 * never take the same rollup rows in different orders). Rows of no team are read by nothing once
 * pruned: the user's own figures are `usage_months` and `usage_days`.
 */
async function rollUp(trx: Trx, engine: Engine, rows: Row[]): Promise<void> {
  const groups = new Map<string, { team_id: string; user_id: string; month: string; day: string; task: string; queries: number; tokens: number; last_at: number }>();
  for (const row of rows) {
    if (row.team_id === null) continue;
    const group = { team_id: String(row.team_id), month: String(row.month), day: String(row.day), user_id: String(row.user_id), task: String(row.task) };
    const key = JSON.stringify(Object.values(group));
    const sum = groups.get(key);
    if (sum) {
      sum.queries += 1;
      sum.tokens += Number(row.tokens);
      sum.last_at = Math.max(sum.last_at, Number(row.created_at));
    } else {
      groups.set(key, { ...group, queries: 1, tokens: Number(row.tokens), last_at: Number(row.created_at) });
    }
  }
  if (groups.size === 0) return;
  const values = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, group]) => group);
  const newest = engine === 'postgres' ? sql.raw('greatest') : sql.raw('max');
  await trx
    .insertInto('usage_rollups')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['team_id', 'month', 'day', 'user_id', 'task']).doUpdateSet((eb) => ({
        queries: eb('usage_rollups.queries', '+', eb.ref('excluded.queries')),
        tokens: eb('usage_rollups.tokens', '+', eb.ref('excluded.tokens')),
        last_at: sql<number>`${newest}(usage_rollups.last_at, excluded.last_at)`,
      })),
    )
    .execute();
}

/**
 * Deletes up to `limit` due rows of the rule's table and answers what it returned. On PostgreSQL
 * the rows are picked `for update skip locked` (the CTE names the keys apart, so the returned
 * columns stay unambiguous); SQLite finds them by its key, from the condition's index.
 */
async function deleteBatch(trx: Trx, engine: Engine, rule: Rule, at: Horizon, limit: number): Promise<Row[]> {
  const table = sql.table(rule.table);
  const keys = sql.join(rule.key.map((column) => sql.ref(column)));
  const returning = rule.returning ?? sql.lit(1);
  if (engine === 'sqlite') {
    const { rows } = await sql<Row>`delete from ${table} where (${keys}) in (select ${keys} from ${table} where ${rule.due(at)} limit ${limit}) returning ${returning}`.execute(trx);
    return rows;
  }
  const names = sql.join(rule.key.map((_, i) => sql.ref(`k${i}`)));
  const match = sql.join(
    rule.key.map((column, i) => sql`${sql.ref(`${rule.table}.${column}`)} = ${sql.ref(`doomed.k${i}`)}`),
    sql` and `,
  );
  const { rows } = await sql<Row>`with doomed (${names}) as (select ${keys} from ${table} where ${rule.due(at)} limit ${limit} for update skip locked)
    delete from ${table} using doomed where ${match} returning ${returning}`.execute(trx);
  return rows;
}

/** Whether this transaction holds the job's lock (PostgreSQL; SQLite runs one transaction at a time). */
async function holdsLock(trx: Trx, engine: Engine): Promise<boolean> {
  if (engine === 'sqlite') return true;
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LOCK_KEY}) as locked`.execute(trx);
  return rows[0]!.locked;
}

/** One pass over every rule at `now`; answers how many rows each deleted. */
export async function pruneOnce(database: DatabaseHandle, now: number, options: RetentionOptions): Promise<Pruned> {
  const at = horizonAt(now, options.months);
  const limit = options.batchSize ?? 500;
  const rules = Object.entries(RULES) as Array<[keyof typeof RULES, Rule]>;
  const pruned = { ...Object.fromEntries(rules.map(([name]) => [name, 0])), stopped: false } as Pruned;
  for (const [name, rule] of rules) {
    for (;;) {
      if (options.stopping?.()) return { ...pruned, stopped: true };
      const deleted = await database.db.transaction().execute(async (trx) => {
        if (!(await holdsLock(trx, database.engine))) return null;
        const rows = await deleteBatch(trx, database.engine, rule, at, limit);
        if (rule.then && rows.length > 0) await rule.then(trx, database.engine, rows);
        return rows.length;
      });
      if (deleted === null) return { ...pruned, stopped: true };
      pruned[name] += deleted;
      if (deleted < limit) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return pruned;
}

/**
 * Runs `pruneOnce` every `intervalMinutes` (the first run one interval after start), never two
 * runs of one process at once; `stop` ends the timer and waits for the batch in progress.
 */
export function startRetention(database: DatabaseHandle, clock: Clock, log: FastifyBaseLogger, settings: RetentionConfig): { stop(): Promise<void> } {
  if (settings.intervalMinutes === 0) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  let stopping = false;
  const run = () => {
    if (running) return;
    running = pruneOnce(database, clock.now(), { months: settings.months, stopping: () => stopping })
      .then(
        (pruned) => log.info({ event: 'retention.pruned', ...pruned }, 'retention: pruned'),
        (error: unknown) => log.error({ err: error }, 'retention: pruning failed'),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, settings.intervalMinutes * 60_000);
  timer.unref();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
