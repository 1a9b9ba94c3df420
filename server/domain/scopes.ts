import { SCOPES, type Scope } from '../../contract/credentials';

/**
 * What a limited credential (an API key, an add-on session) may do. A web session may do
 * everything; a limited one only the calls its scopes name, and never an account, billing, key or
 * session call: those are absent from this table on purpose.
 */
export { SCOPES, type Scope };

/** Route (method and path as Fastify registers it) → the scope it takes. */
export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = {
  'POST /api/v1/query': 'query',
  'GET /api/v1/query/usage': 'usage:read',
  'GET /api/v1/query/usage/daily': 'usage:read',
  'GET /api/v1/usage/analytics': 'usage:read',
  'GET /api/v1/usage/export.csv': 'usage:read',
  'GET /api/v1/functions': 'query',
  'POST /api/v1/functions/:name/run': 'query',
};

/**
 * What an add-on session may call besides its scopes: who it acts for, and ending itself, so the
 * add-on can say "connected as …" and offer to disconnect. API keys have no session to end.
 */
export const ADDON_SESSION_ROUTES: ReadonlySet<string> = new Set(['GET /api/v1/users/me', 'POST /api/v1/auth/logout']);

export function parseScopes(text: string): Scope[] {
  return text.split(' ').filter((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope));
}

/**
 * What a member without a second factor may still call while their team requires one (decisions.md,
 * "Team security policy"): setting one up, the profile, signing out and leaving (the team page's
 * read, to find the way out). Everything else answers 403 `two_factor_required`.
 */
export const WITHOUT_SECOND_FACTOR = new Set([
  'GET /api/v1/users/me',
  'PUT /api/v1/users/me',
  'PUT /api/v1/users/me/password',
  'POST /api/v1/auth/logout',
  'POST /api/v1/auth/verify-email/resend',
  'GET /api/v1/mfa',
  'POST /api/v1/mfa/totp/setup',
  'POST /api/v1/mfa/totp/confirm',
  'POST /api/v1/webauthn/register/options',
  'POST /api/v1/webauthn/register',
  'GET /api/v1/webauthn/credentials',
  'PATCH /api/v1/webauthn/credentials/:id',
  'GET /api/v1/sessions',
  'DELETE /api/v1/sessions/:id',
  'GET /api/v1/teams/me',
]);
/** Leaving the team: removing oneself. */
export const LEAVING_TEAM = 'DELETE /api/v1/teams/me/members/:user_id';
