import { sql } from 'kysely';
import type { SqlTransaction } from '../db/database';
import { ApiError } from '../errors';
import { periodsAt, retryAfter } from './usageReport';

/**
 * Member caps (decisions.md, Teams: spend control): an admin may cap a member's queries a month.
 * Each query of a member takes one from its cap by one conditional upsert in the query's own
 * unit, right after the plan's allowances, as the plan's monthly counter is taken: the upsert
 * reads the cap and the count on the locked row, so queries sent at once never pass it together,
 * and a refused query keeps nothing. Only queries made for the team count.
 */

/** One more query of the month, unless the member's cap (read on the locked row) is used up. */
function takeOne(teamId: string, userId: string, month: string) {
  return sql<{ queries: number }>`insert into team_member_months (team_id, user_id, month, queries) values (${teamId}, ${userId}, ${month}, 1)
    on conflict (team_id, user_id, month) do update set queries = team_member_months.queries + 1
    where (select monthly_query_cap from team_members c where c.team_id = team_member_months.team_id and c.user_id = team_member_months.user_id) is null
       or team_member_months.queries < (select monthly_query_cap from team_members c where c.team_id = team_member_months.team_id and c.user_id = team_member_months.user_id)
    returning queries`;
}

/**
 * Takes one query of the member's cap for the month, in the query's unit; answers the team the
 * query counts for, or null for a user in no team. Throws 429 `member_cap_reached` when the cap
 * is used up; the upsert reads the cap and the count on the locked row, so queries sent at once
 * never pass it together.
 */
export async function takeMemberQuery(tx: SqlTransaction, userId: string, month: string, now: number): Promise<string | null> {
  // A template, compiled once: every query of every user asks this.
  const [member] = await tx.run(sql<{ team_id: string; monthly_query_cap: number | null }>`select team_id, monthly_query_cap from team_members where user_id = ${userId}`);
  if (!member) return null;
  const taken = member.monthly_query_cap === 0 ? [] : await tx.run(takeOne(member.team_id, userId, month));
  if (taken.length === 0) throw memberCapReached(member.monthly_query_cap ?? 0, now);
  return member.team_id;
}

/** 429: the member has used the `cap` queries a month their team's admin allows (Retry-After: the month's end). */
export function memberCapReached(cap: number, now: number): ApiError {
  const { monthEnds } = periodsAt(now);
  return new ApiError(
    429,
    'member_cap_reached',
    `You have used all ${cap} queries your team’s admin allows you this month. Ask them to raise your cap; it renews on ${new Date(monthEnds).toISOString().slice(0, 10)} (UTC).`,
    { headers: retryAfter(monthEnds, now) },
  );
}

/** Gives back a refunded query's place under the member's cap. */
export async function giveBackMemberQuery(tx: SqlTransaction, teamId: string, userId: string, month: string): Promise<void> {
  await tx.run(
    tx.db
      .updateTable('team_member_months')
      .set((eb) => ({ queries: eb('queries', '-', 1) }))
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .where('month', '=', month),
  );
}
