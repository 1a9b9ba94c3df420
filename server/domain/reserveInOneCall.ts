import { sql } from 'kysely';
import type { TokenCounts } from '../ai/provider';
import { callsInBatches, endedByPostgres, UNSYNCED_COMMIT, type Outcomes } from '../db/batching';
import type { DatabaseHandle } from '../db/database';
import { refusal } from './answerInOneCall';
import type { Reservation, ReservationRequest } from './usage';
import { tokenNeeds } from './usage';
import { periodsAt, toUsage, type Usage, type UsageRow } from './usageReport';

/**
 * The two units of a query whose provider does I/O, on PostgreSQL: `reserveQuery` and
 * `settleQuery` (usage.ts) as one call each of `reserve_query` and `settle_query` (migration
 * 2026-11-26T1510), named prepared statements run straight on the pool: one round trip and one
 * commit each, in place of about fourteen statements. A refusal raises and keeps nothing, as the
 * units' throws roll them back; it comes back as the same 429s and DuplicateRequest. A
 * reservation's commit does not wait for the disk (`UNSYNCED_COMMIT`), as on SQLite (`queries.ts`
 * says why it need not); a settlement's does.
 *
 * Reservations that come while others are on their way go together, and so do settlements: one
 * call of `reserve_queries` or `settle_queries` (migration 2026-11-27T0900) for up to
 * `BATCH_CALLS` of them, one commit for all, with at most a quarter of the pool's connections on
 * their way for each kind. With a thousand queries a second, a commit of its own for each
 * reservation and each settlement made the queries wait on each other's commits (the slow-model
 * bench, docs/performance.md). A batch is sorted by user, the order of the locks its calls take
 * (each locks only its user's rows), so two batches never wait on each other both ways; a refusal
 * in a batch takes back that query's writes only. Should PostgreSQL still end a batch to break a
 * deadlock (with a transaction that locks several users' rows in another order, such as a team's
 * deletion), nothing of it was kept, and its calls go again one by one.
 */

/** At most this many calls a batch: each is a subtransaction, and PostgreSQL keeps 64 of them per transaction in shared memory before a snapshot has to look further. */
const BATCH_CALLS = 32;

/** PostgreSQL's error fields: the SQLSTATE a function raised, and its message. */
const raised = (error: unknown) => error as { code?: string; message?: string };
const METERING_REFUSAL = /^SM[A-Z]{3}$/;

interface ReserveRow {
  granted: number | null;
  team_id: string | null;
  refused?: string | null;
  message?: string | null;
}

interface ReserveCall {
  request: ReservationRequest;
  month: string;
  day: string;
  floor: number;
  cap: number;
}

interface SettleCall {
  reservation: Reservation;
  tokens: TokenCounts;
  processingMs: number;
  now: number;
  /** The month and day at `now`, whose usage the answer reports. */
  at: { month: string; day: string };
}

type SettleRow = UsageRow & { refused?: string | null; message?: string | null };

/** A refusal raised in a batch, as the driver would have thrown it from a call alone. */
function raisedInBatch(code: string, message: string | null | undefined): Error {
  return Object.assign(new Error(message ?? code), { code });
}

/** A batch's calls in the order of their users, with where each came from. */
function byUser<C>(calls: C[], userOf: (call: C) => string): Array<{ call: C; index: number }> {
  return calls.map((call, index) => ({ call, index })).sort((a, b) => (userOf(a.call) < userOf(b.call) ? -1 : userOf(a.call) > userOf(b.call) ? 1 : a.index - b.index));
}

/** The outcomes of a batch's rows (one per call, by position in `sorted`), in the calls' order. */
function inCallOrder<C, Row, R>(sorted: Array<{ call: C; index: number }>, rows: Array<Row & { call_number: number }>, outcome: (row: Row, call: C) => { value: R } | { error: Error }): Outcomes<R> {
  const outcomes: Outcomes<R> = new Array(sorted.length);
  for (const row of rows) {
    const entry = sorted[row.call_number - 1]!;
    outcomes[entry.index] = outcome(row, entry.call);
  }
  return outcomes;
}

function reservationFrom(call: ReserveCall, row: ReserveRow): { value: Reservation } | { error: Error } {
  const { request, month, day } = call;
  if (row.refused) return { error: refusal(row.refused, row.message ?? null, request.plan, request.now) };
  const granted = Number(row.granted);
  return {
    value: {
      userId: request.userId,
      requestId: request.requestId,
      month,
      day,
      second: Math.floor(request.now / 1000),
      reservedTokens: granted,
      completionTokens: granted - request.promptTokens,
      teamId: row.team_id,
    },
  };
}

async function reserveAlone(database: DatabaseHandle, call: ReserveCall): Promise<Reservation> {
  const { userId, requestId, task, credential, plan, now } = call.request;
  const { month, day, floor, cap } = call;
  let row: ReserveRow | undefined;
  try {
    row = await database.preparedFirst(
      'reserve_query',
      sql<ReserveRow>`select reserved.* from ${sql.raw(UNSYNCED_COMMIT)}, reserve_query(${userId}, ${requestId}, ${task}, ${credential.kind}, ${credential.id},
        ${month}, ${day}, ${now}, ${plan.limits.monthly_queries}, ${plan.limits.daily_tokens}, ${floor}, ${cap}) as reserved`,
    );
  } catch (error) {
    const { code, message } = raised(error);
    throw code && METERING_REFUSAL.test(code) ? refusal(code, message ?? null, plan, now) : error;
  }
  const outcome = reservationFrom(call, row!);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

async function reserveTogether(database: DatabaseHandle, calls: ReserveCall[]): Promise<Outcomes<Reservation>> {
  const sorted = byUser(calls, (call) => call.request.userId);
  const column = <T>(pick: (call: ReserveCall) => T) => sorted.map(({ call }) => pick(call));
  const { rows } = await sql<ReserveRow & { call_number: number }>`select reserved.* from ${sql.raw(UNSYNCED_COMMIT)}, reserve_queries(
    ${column((c) => c.request.userId)}::text[], ${column((c) => c.request.requestId)}::text[], ${column((c) => c.request.task)}::text[],
    ${column((c) => c.request.credential.kind)}::text[], ${column((c) => c.request.credential.id)}::text[],
    ${column((c) => c.month)}::text[], ${column((c) => c.day)}::text[], ${column((c) => c.request.now)}::bigint[],
    ${column((c) => c.request.plan.limits.monthly_queries)}::integer[], ${column((c) => c.request.plan.limits.daily_tokens)}::integer[],
    ${column((c) => c.floor)}::integer[], ${column((c) => c.cap)}::integer[]) as reserved`.execute(database.db);
  return inCallOrder(sorted, rows, (row, call) => reservationFrom(call, row));
}

function settleOutcome(row: SettleRow): { value: Usage } | { error: Error } {
  return row.refused ? { error: raisedInBatch(row.refused, row.message) } : { value: toUsage(row) };
}

async function settleAlone(database: DatabaseHandle, { reservation, tokens, processingMs, now, at }: SettleCall): Promise<Usage> {
  const { userId, requestId, month, day, reservedTokens } = reservation;
  const row = await database.preparedFirst(
    'settle_query',
    sql<UsageRow>`select * from settle_query(${userId}, ${requestId}, ${month}, ${day}, ${reservedTokens - tokens.total},
      ${tokens.prompt}, ${tokens.completion}, ${processingMs}, ${now}, ${at.month}, ${at.day})`,
  );
  return toUsage(row!);
}

async function settleTogether(database: DatabaseHandle, calls: SettleCall[]): Promise<Outcomes<Usage>> {
  const sorted = byUser(calls, (call) => call.reservation.userId);
  const column = <T>(pick: (call: SettleCall) => T) => sorted.map(({ call }) => pick(call));
  const { rows } = await sql<SettleRow & { call_number: number }>`select * from settle_queries(
    ${column((c) => c.reservation.userId)}::text[], ${column((c) => c.reservation.requestId)}::text[],
    ${column((c) => c.reservation.month)}::text[], ${column((c) => c.reservation.day)}::text[],
    ${column((c) => c.reservation.reservedTokens - c.tokens.total)}::integer[], ${column((c) => c.tokens.prompt)}::integer[],
    ${column((c) => c.tokens.completion)}::integer[], ${column((c) => c.processingMs)}::integer[], ${column((c) => c.now)}::bigint[],
    ${column((c) => c.at.month)}::text[], ${column((c) => c.at.day)}::text[])`.execute(database.db);
  return inCallOrder(sorted, rows, settleOutcome);
}

/** Each database handle's two kinds of batched calls. */
const batched = new WeakMap<DatabaseHandle, { reserve: (call: ReserveCall) => Promise<Reservation>; settle: (call: SettleCall) => Promise<Usage> }>();

function batchesOf(database: DatabaseHandle) {
  let calls = batched.get(database);
  if (!calls) {
    const maxInFlight = Math.max(1, Math.floor(database.connections / 4));
    calls = {
      reserve: callsInBatches<ReserveCall, Reservation>({
        maxBatch: BATCH_CALLS,
        maxInFlight,
        one: (call) => reserveAlone(database, call),
        many: (many) => reserveTogether(database, many),
        aloneAfter: endedByPostgres,
      }),
      settle: callsInBatches<SettleCall, Usage>({
        maxBatch: BATCH_CALLS,
        maxInFlight,
        one: (call) => settleAlone(database, call),
        many: (many) => settleTogether(database, many),
        aloneAfter: endedByPostgres,
      }),
    };
    batched.set(database, calls);
  }
  return calls;
}

export function reserveInOneCall(database: DatabaseHandle, request: ReservationRequest): Promise<Reservation> {
  const { month, day } = periodsAt(request.now);
  const { floor, cap } = tokenNeeds(request);
  return batchesOf(database).reserve({ request, month, day, floor, cap });
}

export function settleInOneCall(database: DatabaseHandle, reservation: Reservation, tokens: TokenCounts, processingMs: number, now: number): Promise<Usage> {
  const { month, day } = periodsAt(now);
  return batchesOf(database).settle({ reservation, tokens, processingMs, now, at: { month, day } });
}
