import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey, liveApiKeys, revokeApiKey, type ApiKeyView } from '../domain/apiKeys';
import { requireVerifiedEmail } from '../domain/emailVerification';
import type { Scope } from '../domain/scopes';
import { ApiError } from '../errors';
import { consume, type Limit } from '../plugins/rateLimit';
import { ApiKeyInfoSchema, CreatedApiKeySchema, NewApiKeySchema } from '../../contract/credentials';
import { ErrorSchema, Text } from '../../contract/schemas';

/** Keys made per account: plenty for every integration, too few to fill the table. */
export const API_KEY_CREATE_LIMIT: Limit = { what: 'API keys created', max: 20, windowMs: 60 * 60_000 };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const wire = (key: ApiKeyView) => ({ ...key, created_at: iso(key.created_at)!, expires_at: iso(key.expires_at), last_used_at: iso(key.last_used_at) });

/** Personal API keys ("custom integrations"). Managed by a web session only; a key cannot manage keys. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.database;
  app.addHook('onRequest', app.authenticate);

  app.post(
    '/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key; the answer holds the key, shown this once and never again',
        security: [{ bearer: [] }],
        body: NewApiKeySchema,
        response: { 201: CreatedApiKeySchema, 403: Type.Object(ErrorSchema.properties, { description: '`email_unverified` until the account has confirmed its address.' }), 429: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { userId } = request.auth!;
      requireVerifiedEmail(request.currentUser!);
      const name = request.body.name.trim();
      if (name === '') throw new ApiError(400, 'invalid_input', 'The name is empty.', { field: 'name' });
      await consume(app.rateLimits, [[`api-key-create:${userId}`, API_KEY_CREATE_LIMIT]]);
      const key = await createApiKey(db, userId, { name, scopes: request.body.scopes as Scope[], expiresInDays: request.body.expires_in_days ?? null }, app.clock.now());
      request.log.info({ event: 'api_key.created', userId, keyId: key.id, ip: request.ip }, 'API key created');
      return reply.status(201).send({ ...wire(key), key: key.key });
    },
  );

  app.get(
    '/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'The API keys that still work (never their secret), newest first',
        security: [{ bearer: [] }],
        response: { 200: Type.Object({ api_keys: Type.Array(ApiKeyInfoSchema) }) },
      },
    },
    async (request) => ({ api_keys: (await liveApiKeys(db, request.auth!.userId, app.clock.now())).map(wire) }),
  );

  app.delete(
    '/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Revoke an API key at once: its next request is refused',
        security: [{ bearer: [] }],
        params: Type.Object({ id: Text({ minLength: 1, maxLength: 100 }) }),
        response: { 204: Type.Null(), 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { userId } = request.auth!;
      if (!(await revokeApiKey(db, userId, request.params.id, app.clock.now()))) {
        throw new ApiError(404, 'api_key_not_found', 'There is no working API key with this id.', { field: 'id' });
      }
      request.log.info({ event: 'api_key.revoked', userId, keyId: request.params.id, ip: request.ip }, 'API key revoked');
      return reply.status(204).send(null);
    },
  );
};
