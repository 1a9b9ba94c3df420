import { secondFactorStatus } from './secondFactors';
import type { Kysely } from 'kysely';
import type { PlanId } from '../../contract/plans';
import type { Database } from '../db/types';
import { passkeysOf } from './passkeys';

/**
 * The account export (decisions.md, "Professional's promises"; GDPR art. 15 and 20): everything the
 * service holds about a person, as one JSON document, for every plan. No secret is in it: no
 * password hash, no API key or token, no hash of a link or code; a key is named by its prefix and
 * last four characters, as its owner sees it in the list.
 *
 * `ACCOUNT_TABLES` names every table that holds a person's data and where the document puts it;
 * tests/api/accountExport.test.ts reads the live database's columns and fails when a table with a
 * user id is missing from it, so a new table cannot be forgotten here.
 */
export const ACCOUNT_TABLES: Readonly<Record<string, string>> = {
  users: 'profile',
  sessions: 'sessions (with their last use; never a refresh token)',
  refresh_tokens: 'not exported: hashes of sign-in secrets, one per session listed under sessions',
  credential_activity: 'sessions[].last_used_at and api_keys[].last_used_at',
  api_keys: 'api_keys (prefix and last four characters, never the key or its hash)',
  device_grants: 'device_sign_ins (add-on sign-ins the person approved or denied; never a code or its hash)',
  password_resets: 'password_resets (when each link was asked for and used; never the link)',
  email_verifications: 'email_verifications (when each link to confirm the address was sent, to which address, and used; never the link)',
  subscriptions: 'subscription',
  billing_events: 'billing_events',
  billing_test_sessions: 'billing_pages (test-mode checkout and billing pages; never the link)',
  usage_months: 'usage.months',
  usage_days: 'usage.days',
  usage_ledger: 'usage.days (one row per query, summed per day; the per-query rows are the usage CSV of Professional and Team)',
  usage_seconds: 'not exported: queries per second of the last hour, summed in usage.days',
  usage_rollups: 'usage.team_rollups',
  teams: 'team (the team the person is in or whose billing they hold)',
  team_members: 'team.membership',
  team_member_months: 'team.queries_by_month',
  team_invitations: 'team.invitations_sent and team.invitations_received (never the link)',
  team_audit_log: 'team.audit_events (the events the person made or that were about them)',
  custom_functions: 'custom_functions (the person’s own, and the team functions they made)',
  webauthn_credentials: 'security.passkeys (names and dates; never a public key)',
  recovery_codes: 'security.recovery_codes_left (how many are unused; never a code or its hash)',
  mfa_challenges: 'not exported: second steps of sign-ins under way, 5 minutes each',
  known_devices: 'security.known_devices (when each browser was first used; never what identifies it)',
  webauthn_challenges: 'not exported: challenges of passkey ceremonies under way, kept 5 minutes at most',
};

const iso = (ms: number | string | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export async function accountExport(db: Kysely<Database>, userId: string, plan: PlanId, now: number) {
  const user = await db.selectFrom('users').select(['id', 'email', 'username', 'full_name', 'created_at', 'updated_at', 'email_verified_at']).where('id', '=', userId).executeTakeFirstOrThrow();
  const membership = await db.selectFrom('team_members').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const teamIds = [membership?.team_id, ...(await db.selectFrom('teams').select('id').where('billing_user_id', '=', userId).execute()).map((team) => team.id)];
  const ownTeams = [...new Set(teamIds.filter((id): id is string => id !== undefined))];
  const verifications = await db.selectFrom('email_verifications').select(['email', 'created_at', 'expires_at', 'used_at']).where('user_id', '=', userId).orderBy('created_at').execute();
  const functions = await db.selectFrom('custom_functions').selectAll().where('user_id', '=', userId).orderBy('name').execute();
  const passkeys = await passkeysOf(db, userId);
  const secondFactors = await secondFactorStatus(db, userId);
  const devices = await db.selectFrom('known_devices').select('first_seen_at').where('user_id', '=', userId).orderBy('first_seen_at').execute();
  const [sessions, keys, grants, resets, subscription, events, pages, months, days, rollups, teams, memberMonths, sent, received, audit] = await Promise.all([
    db.selectFrom('sessions').leftJoin('credential_activity', 'credential_activity.credential_id', 'sessions.id')
      .select(['id', 'kind', 'client_id', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'revoked_reason', 'ip', 'user_agent', 'last_used_at'])
      .where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('api_keys').leftJoin('credential_activity', 'credential_activity.credential_id', 'api_keys.id')
      .select(['id', 'name', 'prefix', 'last4', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
      .where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('device_grants').select(['client_id', 'scopes', 'status', 'created_at', 'decided_at', 'ip', 'user_agent']).where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('password_resets').select(['created_at', 'expires_at', 'used_at']).where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst(),
    db.selectFrom('billing_events').select(['id', 'provider', 'type', 'event_at', 'received_at', 'outcome']).where('user_id', '=', userId).orderBy('event_at').execute(),
    db.selectFrom('billing_test_sessions').select(['kind', 'plan', 'created_at', 'expires_at', 'used_at']).where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('usage_months').select(['month', 'queries', 'settled', 'processing_ms']).where('user_id', '=', userId).orderBy('month').execute(),
    db.selectFrom('usage_days').select(['day', 'queries', 'tokens']).where('user_id', '=', userId).orderBy('day').execute(),
    db.selectFrom('usage_rollups').select(['team_id', 'day', 'task', 'queries', 'tokens']).where('user_id', '=', userId).orderBy('day').execute(),
    ownTeams.length ? db.selectFrom('teams').select(['id', 'name', 'billing_user_id', 'created_at']).where('id', 'in', ownTeams).execute() : [],
    db.selectFrom('team_member_months').select(['team_id', 'month', 'queries']).where('user_id', '=', userId).orderBy('month').execute(),
    db.selectFrom('team_invitations').select(['team_id', 'email', 'role', 'status', 'created_at', 'expires_at']).where('invited_by', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('team_invitations').select(['team_id', 'role', 'status', 'invited_by', 'created_at', 'expires_at']).where('email', '=', user.email).orderBy('created_at').execute(),
    db.selectFrom('team_audit_log').select(['id', 'team_id', 'at', 'actor_id', 'actor_name', 'action', 'target_id', 'target_name', 'detail', 'ip'])
      .where((eb) => eb.or([eb('actor_id', '=', userId), eb('target_id', '=', userId)])).orderBy('id').execute(),
  ]);
  const n = (value: number | string | null) => (value === null ? null : Number(value));
  return {
    format: 'account-export/1' as const,
    exported_at: iso(now)!,
    tables: { ...ACCOUNT_TABLES },
    profile: { ...user, created_at: iso(user.created_at), updated_at: iso(user.updated_at), email_verified_at: iso(user.email_verified_at), plan },
    // Second factors without their secrets (no TOTP secret, no recovery code); passkeys without their keys.
    security: {
      two_factor: secondFactors.totp_enabled ? 'authenticator_app' : 'off',
      two_factor_since: secondFactors.totp_enabled_at,
      recovery_codes_left: secondFactors.recovery_codes_left,
      passkeys: passkeys.map((row) => ({ id: row.id, name: row.name, created_at: iso(row.created_at), last_used_at: iso(row.last_used_at) })),
      known_devices: devices.map((row) => ({ first_seen_at: iso(row.first_seen_at) })),
    },
    sessions: sessions.map((row) => ({ ...row, created_at: iso(row.created_at), expires_at: iso(row.expires_at), revoked_at: iso(row.revoked_at), last_used_at: iso(row.last_used_at) })),
    api_keys: keys.map((row) => ({ ...row, created_at: iso(row.created_at), expires_at: iso(row.expires_at), revoked_at: iso(row.revoked_at), last_used_at: iso(row.last_used_at) })),
    device_sign_ins: grants.map((row) => ({ ...row, created_at: iso(row.created_at), decided_at: iso(row.decided_at) })),
    password_resets: resets.map((row) => ({ created_at: iso(row.created_at), expires_at: iso(row.expires_at), used_at: iso(row.used_at) })),
    email_verifications: verifications.map((row) => ({ email: row.email, created_at: iso(row.created_at), expires_at: iso(row.expires_at), used_at: iso(row.used_at) })),
    subscription: subscription
      ? {
          ...subscription,
          cancel_at_period_end: subscription.cancel_at_period_end === 1,
          current_period_start: iso(subscription.current_period_start),
          current_period_end: iso(subscription.current_period_end),
          provider_updated_at: iso(subscription.provider_updated_at),
          updated_at: iso(subscription.updated_at),
        }
      : null,
    billing_events: events.map((row) => ({ ...row, event_at: iso(row.event_at), received_at: iso(row.received_at) })),
    custom_functions: functions.map((row) => ({ id: row.id, scope: row.scope, team_id: row.team_id, name: row.name, task: row.task, prompt: row.prompt, description: row.description, created_at: iso(row.created_at), updated_at: iso(row.updated_at) })),
    billing_pages: pages.map((row) => ({ ...row, created_at: iso(row.created_at), expires_at: iso(row.expires_at), used_at: iso(row.used_at) })),
    usage: {
      months: months.map((row) => ({ month: row.month, queries: n(row.queries), answered: n(row.settled), processing_ms: n(row.processing_ms) })),
      days: days.map((row) => ({ date: row.day, queries: n(row.queries), tokens: n(row.tokens) })),
      team_rollups: rollups.map((row) => ({ ...row, queries: n(row.queries), tokens: n(row.tokens) })),
    },
    team: {
      teams: teams.map((row) => ({ ...row, created_at: iso(row.created_at) })),
      membership: membership ? { team_id: membership.team_id, role: membership.role, monthly_query_cap: membership.monthly_query_cap, joined_at: iso(membership.joined_at) } : null,
      queries_by_month: memberMonths.map((row) => ({ ...row, queries: n(row.queries) })),
      invitations_sent: sent.map((row) => ({ ...row, created_at: iso(row.created_at), expires_at: iso(row.expires_at) })),
      invitations_received: received.map((row) => ({ ...row, created_at: iso(row.created_at), expires_at: iso(row.expires_at) })),
      audit_events: audit.map((row) => ({ ...row, at: iso(row.at) })),
    },
  };
}
