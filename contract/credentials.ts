import { Type, type Static } from '@sinclair/typebox';
import { DisplayText } from './schemas';

/**
 * The wire shapes of the add-on sign-in (/link), "Sessions and devices" and API keys:
 * server/routes/oauth.ts, sessions.ts and apiKeys.ts answer with them, the client reads their
 * static types (machines/shared/api.ts).
 */

/** What a limited credential (an API key, an add-on session) may be allowed; server/domain/scopes.ts maps them to routes. */
export const SCOPES = ['query', 'usage:read'] as const;
export type Scope = (typeof SCOPES)[number];

const NullableTime = (options: { description?: string } = {}) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], options);

/** A device sign-in waiting at /link, as POST /oauth/device/lookup answers it (RFC 8628 §5.4: who, when, where). */
export const DeviceGrantSchema = Type.Object({
  user_code: Type.String(),
  client_id: Type.String(),
  client_name: Type.String(),
  scopes: Type.Array(Type.String()),
  requested_at: Type.String({ format: 'date-time' }),
  ip: Type.String({ description: 'Where the device asked from.' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.String({ format: 'date-time' }),
});
export type DeviceGrant = Static<typeof DeviceGrantSchema>;

/** A live session as GET /sessions lists it. */
export const SessionInfoSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('web'), Type.Literal('addon')]),
  client: Type.Union([Type.String(), Type.Null()], { description: "An add-on session's client name; null for the web." }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: NullableTime({ description: 'Kept to the minute: at most about a minute behind.' }),
  ip: Type.Union([Type.String(), Type.Null()], { description: 'Where it signed in from.' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'The session making this request.' }),
});
export type SessionInfo = Static<typeof SessionInfoSchema>;

export const ScopesSchema = Type.Array(Type.Unsafe<Scope>({ type: 'string', enum: [...SCOPES] }), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true });

/** An API key as GET /api-keys lists it (never its secret). */
export const ApiKeyInfoSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  last4: Type.String(),
  scopes: ScopesSchema,
  created_at: Type.String({ format: 'date-time' }),
  expires_at: NullableTime(),
  last_used_at: NullableTime({ description: 'Kept to the minute.' }),
});
export type ApiKeyInfo = Static<typeof ApiKeyInfoSchema>;

/** POST /api-keys's body. */
export const NewApiKeySchema = Type.Object(
  {
    name: DisplayText({ minLength: 1, maxLength: 100 }),
    scopes: ScopesSchema,
    expires_in_days: Type.Optional(
      Type.Union([Type.Literal(30), Type.Literal(90), Type.Literal(365), Type.Null()], { description: 'Days until it expires; null or absent: never.' }),
    ),
  },
  { additionalProperties: false },
);
export type NewApiKey = Static<typeof NewApiKeySchema>;

/** POST /api-keys's answer: the key with its secret, shown this once. */
export const CreatedApiKeySchema = Type.Composite([Type.Object({ key: Type.String({ description: '`sm_live_…`: send as `Authorization: Bearer`.' }) }), ApiKeyInfoSchema]);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;
