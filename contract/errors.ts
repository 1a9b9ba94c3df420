/**
 * The stable `code` of every error body the API sends (`{"error": {"code", "message", "field"?}}`,
 * contract/schemas.ts). The server can throw no other (server/errors.ts types its ApiError with
 * this list); clients branch on the codes, never on the messages.
 */
export const ERROR_CODES = [
  // Requests the server cannot read or accept
  'invalid_request',
  'invalid_json',
  'invalid_input',
  'payload_too_large',
  'unsupported_media_type',
  'headers_too_large',
  'uri_too_long',
  'request_timeout',
  'method_not_allowed',
  'not_acceptable',
  'not_found',
  'forbidden',
  'conflict',
  'too_many_connections',
  // Accounts and sessions
  'unauthorized',
  'missing_token',
  'invalid_token',
  'invalid_refresh_token',
  'refresh_token_reused',
  'session_revoked',
  'invalid_credentials',
  'invalid_current_password',
  'invalid_reset_token',
  'email_taken',
  'username_taken',
  'password_too_short',
  'password_too_long',
  'password_too_common',
  'password_unchanged',
  'rate_limited',
  'busy',
  // Connecting the add-on: device sign-in, API keys, sessions
  'insufficient_scope',
  'api_key_invalid',
  'api_key_revoked',
  'api_key_expired',
  'api_key_not_found',
  'session_not_found',
  'invalid_user_code',
  'user_code_not_found',
  'user_code_expired',
  'user_code_used',
  // Queries and metering
  'query_too_large',
  'data_too_large',
  'monthly_quota_exceeded',
  'daily_tokens_exceeded',
  'request_in_progress',
  'idempotency_key_reused',
  'provider_busy',
  'provider_error',
  'provider_timeout',
  // Billing
  'invalid_plan',
  'already_on_plan',
  'no_subscription',
  'no_subscription_item',
  'payment_provider_unavailable',
  'missing_signature',
  'invalid_signature',
  // The server's own failures
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
