import { sql } from 'kysely';
import type { TokenCounts } from '../ai/provider';
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
 * units' throws roll them back; it comes back as the same 429s and DuplicateRequest.
 */

/** PostgreSQL's error fields: the SQLSTATE a function raised, and its message. */
const raised = (error: unknown) => error as { code?: string; message?: string };
const METERING_REFUSAL = /^SM[A-Z]{3}$/;

export async function reserveInOneCall(database: DatabaseHandle, request: ReservationRequest): Promise<Reservation> {
  const { userId, requestId, task, credential, plan, now } = request;
  const { month, day } = periodsAt(now);
  const { floor, cap } = tokenNeeds(request);
  let row: { granted: number; team_id: string | null } | undefined;
  try {
    row = await database.preparedFirst(
      'reserve_query',
      sql<{ granted: number; team_id: string | null }>`select * from reserve_query(${userId}, ${requestId}, ${task}, ${credential.kind}, ${credential.id},
        ${month}, ${day}, ${now}, ${plan.limits.monthly_queries}, ${plan.limits.daily_tokens}, ${floor}, ${cap})`,
    );
  } catch (error) {
    const { code, message } = raised(error);
    throw code && METERING_REFUSAL.test(code) ? refusal(code, message ?? null, plan, now) : error;
  }
  const granted = Number(row!.granted);
  return { userId, requestId, month, day, second: Math.floor(now / 1000), reservedTokens: granted, completionTokens: granted - request.promptTokens, teamId: row!.team_id };
}

export async function settleInOneCall(database: DatabaseHandle, reservation: Reservation, tokens: TokenCounts, processingMs: number, now: number): Promise<Usage> {
  const { userId, requestId, month, day, reservedTokens } = reservation;
  const at = periodsAt(now);
  const row = await database.preparedFirst(
    'settle_query',
    sql<UsageRow>`select * from settle_query(${userId}, ${requestId}, ${month}, ${day}, ${reservedTokens - tokens.total},
      ${tokens.prompt}, ${tokens.completion}, ${processingMs}, ${now}, ${at.month}, ${at.day})`,
  );
  return toUsage(row!);
}
