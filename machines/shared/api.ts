import type { AxiosRequestConfig } from 'axios';
import type { PlanId } from '../../contract/plans';
import type { AuthResponse as WireAuthResponse, Checkout, DailyUsage, FormulaCheck, Subscription, Usage, User } from '../../contract/schemas';
import type { ApiKeyInfo, CreatedApiKey, DeviceGrant, NewApiKey, Scope as ApiKeyScope, SessionInfo } from '../../contract/credentials';
import type { UsageAnalytics } from '../../contract/analytics';
import type { AuditEvent, AuditPage, InvitationPreview, InvitedRole, MyTeam, Team, TeamInvitation, TeamMember, TeamRole, TeamSecurityPolicy, TeamUsage } from '../../contract/teams';
import type { CustomFunction, FunctionScope, Task } from '../../contract/functions';
import type { RecoveryCodes, SecondFactorMethod, SecondFactorStatus, TotpSetup } from '../../contract/security';
import type { AuthenticationCredential, Passkey, PasskeyCreationOptions, PasskeyRequestOptions, RegistrationCredential } from '../../contract/passkeys';
import { LOAD_PATHS } from './loadPaths';
import { streamQuery } from './streamQuery';
import type { TokenPair } from './tokenStorage';

export type { DailyUsage, UsageAnalytics, User };
export type { AuditEvent, InvitationPreview, InvitedRole, Team, TeamInvitation, TeamMember, TeamRole, TeamUsage };
export type { CustomFunction, FunctionScope, Task };
export type { RecoveryCodes, SecondFactorMethod, SecondFactorStatus, TotpSetup };
export type { ApiKeyInfo, ApiKeyScope, CreatedApiKey, DeviceGrant, NewApiKey, SessionInfo };
export type { AuthenticationCredential, Passkey, PasskeyCreationOptions, PasskeyRequestOptions, RegistrationCredential };

/** The user comes with register; the client fetches it when a sign-in answer lacks it. */
export type AuthResponse = TokenPair & Partial<WireAuthResponse>;

export { ApiRequestError } from './apiError';

/**
 * Sends one request; any failure becomes an ApiRequestError. The HTTP client (axios) is its own
 * chunk, loaded by the first call or by `loadApiClient`, whichever comes first: the static public
 * pages never download it, and a page drawn from its early calls' answers draws without it.
 */
export async function request<T>(config: AxiosRequestConfig): Promise<T> {
  const { send } = await loadApiClient();
  return send<T>(config);
}

/** Loads the HTTP client ahead of the first call that needs it (src/app/mountApp.tsx, once the page is drawn). */
export const loadApiClient = () => import(/* webpackChunkName: "http" */ './http');

export type Opts = { signal?: AbortSignal };

/** The calls of product-spec section 7 that the auth flows make. */
export const authApi = {
  register: (body: { email: string; password: string; full_name: string; username: string }, { signal }: Opts = {}) =>
    request<AuthResponse>({ method: 'POST', url: '/auth/register', data: body, signal }),
  login: (body: { email: string; password: string }, { signal }: Opts = {}) =>
    request<AuthResponse>({ method: 'POST', url: '/auth/login/email', data: body, signal }),
  loginSecondFactor: (body: { mfa_token: string; method: SecondFactorMethod; code?: string; credential?: Record<string, unknown> }, { signal }: Opts = {}) =>
    request<AuthResponse>({ method: 'POST', url: '/auth/login/mfa', data: body, signal }),
  refresh: (refreshToken: string, { signal }: Opts = {}) =>
    request<TokenPair>({ method: 'POST', url: '/auth/refresh', data: { refresh_token: refreshToken }, signal }),
  // An empty object rather than no body: the API takes JSON bodies only.
  logout: ({ signal }: Opts = {}) => request<void>({ method: 'POST', url: '/auth/logout', data: {}, signal }),
  me: ({ signal }: Opts = {}) => request<User>({ method: 'GET', url: LOAD_PATHS.me, signal }),
  requestPasswordReset: (email: string, { signal }: Opts = {}) =>
    request<{ message: string }>({ method: 'POST', url: '/auth/password-reset-request', data: { email }, signal }),
  resetPassword: (body: { token: string; new_password: string }, { signal }: Opts = {}) =>
    request<void>({ method: 'POST', url: '/auth/password-reset', data: body, signal }),
  verifyEmail: (token: string, { signal }: Opts = {}) =>
    request<{ email_verified: true }>({ method: 'POST', url: '/auth/verify-email', data: { token }, signal }),
  resendVerification: ({ signal }: Opts = {}) => request<{ message: string }>({ method: 'POST', url: '/auth/verify-email/resend', data: {}, signal }),
};

/**
 * What the screens read of the answers: every usage field may be missing (the screens then show
 * zero, or the get-started card for the monthly count, product spec §2), and a subscription
 * without limits reads as the spec's defaults.
 */
export type UsageStats = Partial<Usage>;
export type SubscriptionInfo = Pick<Subscription, 'plan' | 'status'> &
  Partial<Omit<Subscription, 'plan' | 'status' | 'usage_limits'>> & { usage_limits?: Partial<Subscription['usage_limits']> | null };

/** The calls of the signed-in screens (dashboard, subscription, profile). */
export const accountApi = {
  usage: ({ signal }: Opts = {}) => request<UsageStats>({ method: 'GET', url: LOAD_PATHS.usage, signal }),
  dailyUsage: ({ signal }: Opts = {}) => request<{ days: DailyUsage[] }>({ method: 'GET', url: LOAD_PATHS.dailyUsage, signal }),
  subscription: ({ signal }: Opts = {}) => request<SubscriptionInfo>({ method: 'GET', url: LOAD_PATHS.subscription, signal }),
  checkout: (plan: PlanId, { signal }: Opts = {}) =>
    request<Checkout>({ method: 'POST', url: '/subscription/checkout', data: { plan }, signal }),
  changePassword: (body: { current_password: string; new_password: string }, { signal }: Opts = {}) =>
    request<void>({ method: 'PUT', url: '/users/me/password', data: body, signal }),
};

/** Advanced analytics, the usage CSV (Professional, Team) and the account export (every plan): decisions.md, "Professional's promises". */
export const usageApi = {
  analytics: (range: { from: string; to: string }, { signal }: Opts = {}) =>
    request<UsageAnalytics>({ method: 'GET', url: LOAD_PATHS.analytics, params: range, signal }),
  csv: (range: { from: string; to: string }, { signal }: Opts = {}) =>
    request<string>({ method: 'GET', url: '/usage/export.csv', params: range, responseType: 'text', signal }),
  accountExport: ({ signal }: Opts = {}) => request<string>({ method: 'GET', url: '/users/me/export', responseType: 'text', signal }),
};

/** The team workspace's calls (decisions.md, Teams). */
export const teamApi = {
  team: ({ signal }: Opts = {}) => request<MyTeam>({ method: 'GET', url: LOAD_PATHS.team, signal }),
  members: ({ signal }: Opts = {}) => request<{ members: TeamMember[] }>({ method: 'GET', url: LOAD_PATHS.teamMembers, signal }),
  invitations: ({ signal }: Opts = {}) => request<{ invitations: TeamInvitation[] }>({ method: 'GET', url: LOAD_PATHS.teamInvitations, signal }),
  usage: (month: string, { signal }: Opts = {}) => request<TeamUsage>({ method: 'GET', url: LOAD_PATHS.teamUsage, params: { month }, signal }),
  usageCsv: (month: string, { signal }: Opts = {}) =>
    request<string>({ method: 'GET', url: '/teams/me/usage.csv', params: { month }, responseType: 'text', signal }),
  auditLog: (before: string | null, { signal }: Opts = {}) =>
    request<AuditPage>({ method: 'GET', url: LOAD_PATHS.teamAudit, params: before ? { before } : {}, signal }),
  invite: (body: { email: string; role: InvitedRole }, { signal }: Opts = {}) =>
    request<TeamInvitation>({ method: 'POST', url: '/teams/me/invitations', data: body, signal }),
  resend: (id: string, { signal }: Opts = {}) =>
    request<TeamInvitation>({ method: 'POST', url: `/teams/me/invitations/${encodeURIComponent(id)}/resend`, data: {}, signal }),
  revoke: (id: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: `/teams/me/invitations/${encodeURIComponent(id)}`, signal }),
  updateMember: (userId: string, body: { role?: InvitedRole; monthly_query_cap?: number | null }, { signal }: Opts = {}) =>
    request<TeamMember>({ method: 'PATCH', url: `/teams/me/members/${encodeURIComponent(userId)}`, data: body, signal }),
  updateTeam: (body: { name?: string; default_monthly_query_cap?: number | null }, { signal }: Opts = {}) =>
    request<Team>({ method: 'PATCH', url: '/teams/me', data: body, signal }),
  updateSecurity: (body: TeamSecurityPolicy, { signal }: Opts = {}) => request<Team>({ method: 'PATCH', url: '/teams/me/security', data: body, signal }),
  transfer: (userId: string, { signal }: Opts = {}) => request<void>({ method: 'POST', url: '/teams/me/transfer', data: { user_id: userId }, signal }),
  removeMember: (userId: string, { signal }: Opts = {}) =>
    request<void>({ method: 'DELETE', url: `/teams/me/members/${encodeURIComponent(userId)}`, signal }),
  preview: (token: string, { signal }: Opts = {}) =>
    request<InvitationPreview>({ method: 'GET', url: `/invitations/${encodeURIComponent(token)}`, signal }),
  accept: (token: string, { signal }: Opts = {}) =>
    request<{ team: Team; role: TeamRole }>({ method: 'POST', url: `/invitations/${encodeURIComponent(token)}/accept`, data: {}, signal }),
};

/** The approval page's calls: look a user code up, then approve or deny it. */
/** The code, with the add-on's link key when the page came from its link (no guess, so no guessing limit). */
const codeBody = (userCode: string, linkKey: string | null) => ({ user_code: userCode, ...(linkKey ? { link_key: linkKey } : {}) });

export const deviceApi = {
  lookup: (userCode: string, linkKey: string | null, { signal }: Opts = {}) =>
    request<DeviceGrant>({ method: 'POST', url: '/oauth/device/lookup', data: codeBody(userCode, linkKey), signal }),
  decide: (decision: 'approve' | 'deny', userCode: string, linkKey: string | null, { signal }: Opts = {}) =>
    request<DeviceGrant>({ method: 'POST', url: `/oauth/device/${decision}`, data: codeBody(userCode, linkKey), signal }),
};

/** The profile's "Sessions and devices" and "API keys". */
export const credentialsApi = {
  sessions: ({ signal }: Opts = {}) => request<{ sessions: SessionInfo[] }>({ method: 'GET', url: LOAD_PATHS.sessions, signal }),
  endSession: (id: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: `/sessions/${encodeURIComponent(id)}`, signal }),
  endOtherSessions: ({ signal }: Opts = {}) => request<{ ended: number }>({ method: 'POST', url: '/sessions/end-others', data: {}, signal }),
  apiKeys: ({ signal }: Opts = {}) => request<{ api_keys: ApiKeyInfo[] }>({ method: 'GET', url: LOAD_PATHS.apiKeys, signal }),
  createApiKey: (body: NewApiKey, { signal }: Opts = {}) => request<CreatedApiKey>({ method: 'POST', url: '/api-keys', data: body, signal }),
  revokeApiKey: (id: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: `/api-keys/${encodeURIComponent(id)}`, signal }),
};

/** What POST /query answers (the parts the Quick Start Guide shows). */
export interface QueryAnswer {
  answer: string | null;
  tokens: { prompt: number; completion: number; total: number };
  processing_time_ms: number;
  usage: UsageStats;
  /** The formula the answer shows, as the server's engine checked it on the data. */
  formula: FormulaCheck | null;
  verified: boolean;
}

export const queryApi = {
  /** One query, answered as it is written (server-sent events): `onDelta` sees each piece of the answer. */
  ask: (body: { task: 'analyze' | 'formula'; prompt: string; data: Array<Array<string | number>> }, options: Opts & { onDelta: (text: string) => void }) =>
    streamQuery<QueryAnswer>(body, options),
};

/** What a function is made or changed with. */
export type FunctionFields = Pick<CustomFunction, 'name' | 'task' | 'prompt' | 'description'>;

/** Custom functions (`/functions`): the caller's and their team's. */
export const functionsApi = {
  list: ({ signal }: Opts = {}) => request<{ functions: CustomFunction[] }>({ method: 'GET', url: LOAD_PATHS.functions, signal }),
  create: (body: FunctionFields & { scope: FunctionScope }, { signal }: Opts = {}) => request<CustomFunction>({ method: 'POST', url: '/functions', data: body, signal }),
  update: (id: string, body: Partial<FunctionFields>, { signal }: Opts = {}) =>
    request<CustomFunction>({ method: 'PATCH', url: `/functions/${encodeURIComponent(id)}`, data: body, signal }),
  remove: (id: string, { signal }: Opts = {}) => request<void>({ method: 'DELETE', url: `/functions/${encodeURIComponent(id)}`, signal }),
  /** Runs a function on cells, answered as it is written (server-sent events), as `queryApi.ask`. */
  run: (name: string, input: Array<Array<string | number>>, options: Opts & { onDelta: (text: string) => void }) =>
    streamQuery<QueryAnswer>({ input }, { ...options, path: `/functions/${encodeURIComponent(name)}/run` }),
};
