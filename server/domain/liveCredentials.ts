import { sql, type Kysely, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import type { Database } from '../db/types';
import type { PlanId } from '../../contract/plans';
import { memberPlan, planAt, type PlanState } from './subscriptions';
import { USER_COLUMNS, userColumnsOf, type UserColumns } from './users';

/**
 * A user's live credentials, sessions and API keys, and the user a credential stands for. One rule
 * for both kinds: a credential works while it is not revoked and not past its end (a key made
 * without an end never passes it); revoking it sets `revoked_at` once, and a session also keeps why.
 */

type Db = Kysely<Database> | Transaction<Database>;
export type CredentialTable = 'sessions' | 'api_keys';

/** Whether a credential's end has come (none has no end). */
export function hasEnded(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now;
}

/** The condition a live credential of `table` meets at `now`. */
export function live(table: CredentialTable, now: number) {
  const column = (name: 'revoked_at' | 'expires_at') => sql.ref(`${table}.${name}`);
  return sql<SqlBool>`${column('revoked_at')} is null and (${column('expires_at')} is null or ${column('expires_at')} > ${now})`;
}

/** The user's live credentials of `table` beside their last use, for a listing to pick its columns from. */
export function liveCredentialsOf<T extends CredentialTable>(db: Db, table: T, userId: string, now: number) {
  return db
    .selectFrom(table as CredentialTable)
    .leftJoin('credential_activity', 'credential_activity.credential_id', `${table as CredentialTable}.id`)
    .where(`${table as CredentialTable}.user_id`, '=', userId)
    .where(live(table, now)) as unknown as SelectQueryBuilder<Database, T | 'credential_activity', object>;
}

/**
 * Revokes the user's live credential `id` (a session with `reason`); false when the user has none
 * by that id that still works (someone else's, already revoked, or ended).
 */
export async function revokeLive(db: Db, table: CredentialTable, userId: string, id: string, now: number, reason?: string): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set(table === 'sessions' ? { revoked_at: now, revoked_reason: reason ?? null } : { revoked_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where(live(table, now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A signed-in user as every request sees it (no password hash), with the plan that applies to this request. */
export type SessionUser = UserColumns & {
  plan: PlanId;
  /** The team's security policy as it applies to this user now (decisions.md, "Team security policy"). */
  policy: { requireTwoFactor: boolean; sessionMaxAgeHours: number | null; hasSecondFactor: boolean };
};

/** The user's columns and subscriptions as `credentialUser` reads them. */
export type CredentialUserRow = UserColumns & {
  sub_plan: PlanState['plan'] | null;
  sub_status: PlanState['status'] | null;
  sub_period_end: number | null;
  sub_cancel: number | null;
  sub_scheduled: PlanState['scheduled_plan'];
  team_plan: PlanState['plan'] | null;
  team_status: PlanState['status'] | null;
  team_period_end: number | null;
  team_cancel: number | null;
  team_scheduled: PlanState['scheduled_plan'];
  team_requires_2fa: number | null;
  team_session_hours: number | null;
  sf_totp: number | null;
  sf_passkey: number | boolean | null;
};

/**
 * Columns and joins of a credential check's read (the session check, the API key check) that give
 * `credentialUser` its row: the user's fields (server/domain/users.ts, `USER_FIELDS`), their own
 * subscription, and the subscription of their team's billing user. The column names are the list's
 * own identifiers, never input.
 */
export const CREDENTIAL_USER_COLUMNS = `${USER_COLUMNS.map((column) => `users.${column}`).join(', ')},
       subscriptions.plan as sub_plan, subscriptions.status as sub_status,
       subscriptions.current_period_end as sub_period_end, subscriptions.cancel_at_period_end as sub_cancel,
       subscriptions.scheduled_plan as sub_scheduled, team_subscription.plan as team_plan, team_subscription.status as team_status,
       team_subscription.current_period_end as team_period_end, team_subscription.cancel_at_period_end as team_cancel,
       team_subscription.scheduled_plan as team_scheduled,
       teams.require_two_factor as team_requires_2fa, teams.session_max_age_hours as team_session_hours,
       users.totp_enabled_at as sf_totp,
       exists (select 1 from webauthn_credentials where webauthn_credentials.user_id = users.id) as sf_passkey`;
export const CREDENTIAL_USER_JOIN = `left join subscriptions on subscriptions.user_id = users.id
     left join team_members on team_members.user_id = users.id
     left join teams on teams.id = team_members.team_id
     left join subscriptions team_subscription on team_subscription.user_id = teams.billing_user_id`;

const planStateOf = (plan: PlanState['plan'] | null, status: PlanState['status'] | null, end: number | null, cancel: number | null, scheduled: PlanState['scheduled_plan']): PlanState | undefined =>
  plan === null || status === null ? undefined : { plan, status, current_period_end: end, cancel_at_period_end: cancel ?? 0, scheduled_plan: scheduled };

/** The user with the plan that applies now: Team while their team's subscription runs, else their own. */
export function credentialUser(row: CredentialUserRow, now: number): SessionUser {
  const own = planAt(planStateOf(row.sub_plan, row.sub_status, row.sub_period_end, row.sub_cancel, row.sub_scheduled), now);
  const team = planAt(planStateOf(row.team_plan, row.team_status, row.team_period_end, row.team_cancel, row.team_scheduled), now);
  return {
    ...userColumnsOf(row),
    plan: memberPlan(own, team),
    policy: {
      requireTwoFactor: Number(row.team_requires_2fa ?? 0) === 1,
      sessionMaxAgeHours: row.team_session_hours === null ? null : Number(row.team_session_hours),
      hasSecondFactor: row.sf_totp !== null || Boolean(Number(row.sf_passkey)),
    },
  };
}
