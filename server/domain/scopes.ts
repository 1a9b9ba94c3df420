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
