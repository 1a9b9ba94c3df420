import type { PlanId } from '../../contract/plans';
import type { Generated } from 'kysely';
import type { Subscription } from '../../contract/schemas';

/** Times are stored as epoch milliseconds (INTEGER on SQLite, BIGINT on PostgreSQL): one shape on both engines. */
export interface UsersTable {
  id: string;
  email: string;
  username: string;
  /** Lower-cased username, unique: usernames are unique without regard to case. */
  username_key: string;
  full_name: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
  /** When the address was confirmed through a mailed link; null until then. */
  email_verified_at: number | null;
  /** The authenticator app's secret, sealed (server/domain/secondFactors.ts); null while off. */
  totp_secret?: string | null;
  /** A secret set up but not yet confirmed by a code. */
  totp_pending_secret?: string | null;
  totp_enabled_at?: number | null;
  /** The last time step a code was accepted at: a code of it or an earlier step is refused. */
  totp_last_step?: number | null;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

export interface MfaChallengesTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  tries: number;
  used_at: number | null;
}

export interface KnownDevicesTable {
  user_id: string;
  device_hash: string;
  first_seen_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  /** Absolute end of the session: refresh fails after it, whatever the rotation. */
  expires_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
  kind: CredentialKindOfSession;
  /** The OAuth client of an add-on session; null for a web session. */
  client_id: string | null;
  /** Space-separated scopes of an add-on session; null for a web session, which may do everything. */
  scopes: string | null;
  /** Where the session was signed in from. */
  ip: string | null;
  user_agent: string | null;
}

export type CredentialKindOfSession = 'web' | 'addon';

export type DeviceGrantStatus = 'pending' | 'approved' | 'denied' | 'used';

/** A device sign-in (RFC 8628) from its request until its device code is spent or expires. */
export interface DeviceGrantsTable {
  id: string;
  device_code_hash: string;
  /** Hash of the normalised user code (upper case, no dash). */
  user_code_hash: string;
  client_id: string;
  scopes: string;
  status: DeviceGrantStatus;
  /** Who approved or denied it. */
  user_id: string | null;
  created_at: number;
  expires_at: number;
  /** The polling interval this client must keep, grown by every `slow_down`. */
  interval_s: number;
  last_polled_at: number | null;
  decided_at: number | null;
  /** Where the device asked from, shown on the approval page. */
  ip: string;
  user_agent: string | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  key_hash: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

/** A session's or key's last use (kept apart from `sessions`; see the migration). */
export interface CredentialActivityTable {
  credential_id: string;
  last_used_at: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: number;
  used_at: number | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A link mailed to confirm an address (server/domain/emailVerification.ts). */
export interface EmailVerificationsTable {
  token_hash: string;
  user_id: string;
  /** The address the link was sent to: it confirms this one only. */
  email: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export type SubscriptionStatus = Subscription['status'];

export interface SubscriptionsTable {
  user_id: string;
  plan: PlanId;
  status: SubscriptionStatus;
  current_period_start: number | null;
  current_period_end: number | null;
  /** 0 or 1: at `current_period_end` the plan becomes `scheduled_plan`. */
  cancel_at_period_end: number;
  scheduled_plan: PlanId | null;
  provider: 'test' | 'stripe';
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  /** Provider time (ms) of the newest event applied; older events are ignored. */
  provider_updated_at: number;
  updated_at: number;
}

export interface BillingEventsTable {
  /** The provider's event id: unique, so an event is applied at most once. */
  id: string;
  provider: 'test' | 'stripe';
  type: string;
  user_id: string | null;
  /** Provider time of the event (ms). */
  event_at: number;
  received_at: number;
  outcome: 'applied' | 'stale' | 'ignored' | 'refused';
}

/** A test-mode hosted checkout (single use) or billing-management page (short-lived). */
export interface BillingTestSessionsTable {
  token_hash: string;
  kind: 'checkout' | 'manage';
  user_id: string;
  /** The plan being bought (checkout) or the downgrade the user asked for (manage). */
  plan: PlanId;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Accepted queries of one user in one UTC calendar month ('2026-11'). */
export interface UsageMonthsTable {
  user_id: string;
  month: string;
  /** Accepted queries, answered or in flight: the counter the monthly limit applies to. */
  queries: number;
  /** Answered queries and their summed processing time, for the month's mean. */
  settled: number;
  processing_ms: number;
}

/** Tokens and queries of one user in one UTC day ('2026-11-22'). */
export interface UsageDaysTable {
  user_id: string;
  day: string;
  queries: number;
  /** Tokens of answered queries plus the reservations of queries in flight. */
  tokens: number;
  /** Tokens granted to the latest reservation (reported back by the statement that took it). */
  last_grant: number;
  /** Queries refunded because their client left, and the tokens the provider had spent on them: the operator's, never the plan's. */
  abandoned_queries: Generated<number>;
  abandoned_tokens: Generated<number>;
}

export type LedgerStatus = 'reserved' | 'settled';

/** One accepted query: counts and times only, never its prompt, data or answer. */
export interface UsageLedgerTable {
  user_id: string;
  /** The client's Idempotency-Key, or a time-ordered id (UUIDv7) when it sent none. */
  request_id: string;
  task: string;
  month: string;
  day: string;
  status: LedgerStatus;
  reserved_tokens: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  processing_time_ms: number | null;
  created_at: number;
  settled_at: number | null;
  /** The team the query was made for, when its user was a member then. */
  team_id: string | null;
  /** Which credential made the query (null for rows older than credentials). */
  credential_kind: 'web' | 'addon' | 'key' | null;
  credential_id: string | null;
}

/**
 * Team ledger rows the retention job pruned, rolled up per team, member, UTC day and task: what the
 * team's usage and members list read of them (`teamUsage.ts` reads ledger rows and rollups as one).
 */
export interface UsageRollupsTable {
  team_id: string;
  user_id: string;
  month: string;
  day: string;
  task: string;
  queries: number;
  /** Tokens as the ledger reads count them: used by answered queries, reserved by the others. */
  tokens: number;
  /** The newest `created_at` of the rows rolled in. */
  last_at: number;
}

/** Accepted queries of one user in one second (epoch seconds), kept for a minute. */
export interface UsageSecondsTable {
  user_id: string;
  second: number;
  queries: number;
}

export type TeamRole = 'owner' | 'admin' | 'member';

export interface TeamsTable {
  id: string;
  name: string;
  /**
   * Whose subscription row holds the team's Team subscription: always the owner, since billing
   * follows ownership (a transfer moves both). While it runs, it is every member's plan.
   */
  billing_user_id: string;
  /** The monthly query cap new members get; null: none. */
  default_monthly_query_cap: number | null;
  created_at: number;
  updated_at: number;
  /** 1 while members must have a second factor (decisions.md, "Team security policy"). */
  require_two_factor?: number;
  /** Hours a member's session lasts; null: the usual 30 days. */
  session_max_age_hours?: number | null;
}

export interface TeamMembersTable {
  team_id: string;
  /** Unique: a user is in at most one team. */
  user_id: string;
  role: TeamRole;
  monthly_query_cap: number | null;
  joined_at: number;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  /** Trimmed and lower-cased, as account emails are. */
  email: string;
  role: Exclude<TeamRole, 'owner'>;
  token_hash: string;
  invited_by: string | null;
  status: InvitationStatus;
  created_at: number;
  expires_at: number;
}

/** One invitation mail sent (an invitation or its resend): what the invitation mail limits count. */
export interface InvitationMailsTable {
  id: string;
  team_id: string;
  /** The address it went to, trimmed and lower-cased. */
  email: string;
  sent_at: number;
}

/** Queries a member made for the team in one UTC month: what a member cap is taken from. */
export interface TeamMemberMonthsTable {
  team_id: string;
  user_id: string;
  month: string;
  queries: number;
}

/** One team event; names are copied in, so the log reads right after people leave or rename. */
export interface TeamAuditLogTable {
  /** UUIDv7: time-ordered, the log's order and its paging cursor. */
  id: string;
  team_id: string;
  at: number;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_id: string | null;
  target_name: string | null;
  detail: string | null;
  ip: string | null;
}

/** A saved prompt offered as a cell function (custom functions), owned by a person or a team. */
export interface CustomFunctionsTable {
  id: string;
  /** `user:<id>` or `team:<id>`: the name is unique under it. */
  owner_key: string;
  /** Who made it (for a team's function, the admin who did). */
  user_id: string;
  team_id: string | null;
  scope: 'personal' | 'team';
  name: string;
  task: string;
  prompt: string;
  description: string;
  created_at: number;
  updated_at: number;
}

/** A mail in the durable queue (server/mail/queue.ts). */
export interface MailOutboxTable {
  id: string;
  kind: string;
  recipient: string;
  /** Kept until the mail is sent or given up, then cleared: mails carry one-time links. */
  subject: string | null;
  body: string | null;
  ref: string | null;
  status: 'pending' | 'sent' | 'failed' | 'superseded';
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

export interface MailAttemptsTable {
  mail_id: string;
  attempt: number;
  at: number;
  outcome: 'sent' | 'failed';
  error: string | null;
}

/** A passkey (WebAuthn credential) under its credential id, base64url. */
export interface WebauthnCredentialsTable {
  id: string;
  user_id: string;
  name: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter as last seen (0 for authenticators that keep none). */
  counter: number;
  /** JSON array of the transports the browser reported at registration. */
  transports: string;
  created_at: number;
  last_used_at: number | null;
}

export type WebauthnPurpose = 'register' | 'authenticate';

/** A WebAuthn challenge handed out, until used once or expired. */
export interface WebauthnChallengesTable {
  challenge: string;
  /** Whose ceremony it is; null for a discoverable sign-in, where the passkey names the user. */
  user_id: string | null;
  purpose: WebauthnPurpose;
  created_at: number;
  expires_at: number;
}

export interface Database {
  users: UsersTable;
  settings: SettingsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  password_resets: PasswordResetsTable;
  email_verifications: EmailVerificationsTable;
  subscriptions: SubscriptionsTable;
  billing_events: BillingEventsTable;
  billing_test_sessions: BillingTestSessionsTable;
  usage_months: UsageMonthsTable;
  usage_days: UsageDaysTable;
  usage_ledger: UsageLedgerTable;
  usage_seconds: UsageSecondsTable;
  usage_rollups: UsageRollupsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  invitation_mails: InvitationMailsTable;
  team_member_months: TeamMemberMonthsTable;
  team_audit_log: TeamAuditLogTable;
  device_grants: DeviceGrantsTable;
  api_keys: ApiKeysTable;
  recovery_codes: RecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  known_devices: KnownDevicesTable;
  credential_activity: CredentialActivityTable;
  custom_functions: CustomFunctionsTable;
  mail_outbox: MailOutboxTable;
  mail_attempts: MailAttemptsTable;
  webauthn_credentials: WebauthnCredentialsTable;
  webauthn_challenges: WebauthnChallengesTable;
}

export type Engine = 'sqlite' | 'postgres';
