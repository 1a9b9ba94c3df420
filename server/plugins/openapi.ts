import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { Config } from '../config';
import { ErrorSchema } from '../../contract/schemas';

/** Where the API's routes live; everything else the server answers (pages, files, the docs) is not API. */
export const API_PREFIX = '/api/v1';

/** The API's routes, and the OAuth metadata a client discovers them by (RFC 8414). */
const isApi = (url: string) => url.startsWith(`${API_PREFIX}/`) || url === '/.well-known/oauth-authorization-server';

/**
 * The OpenAPI document (served at /api/docs/json), generated from the routes' schemas. It
 * describes the API only: the SPA's pages and the test-mode checkout pages are HTML for people.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: `${config.web.brandName} API`,
        version: '1',
        // The code is UNLICENSED (proprietary): using the API is governed by the Terms of Service alone.
        termsOfService: `${config.publicUrl}/terms`,
        license: { name: 'Proprietary: use is governed by the Terms of Service', url: `${config.publicUrl}/terms` },
      },
      // The origin the SPA calls the API at; the paths carry the /api/v1 prefix.
      servers: [{ url: config.web.apiBase || config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: ({ schema, url }) => ({ schema: isApi(url) ? schema : { ...schema, hide: true }, url }),
    // Shared schemas are named by their $id (`User`, `Team`, …) rather than def-0, def-1, ….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
}

/** What an error status means on this API, as the document's response descriptions say it. */
const ERROR_ANSWERS: Record<string, string> = {
  400: 'The request is invalid: malformed JSON, or a field or header that is refused (`error.field` names it).',
  401: 'Not signed in, or the credentials or token are not valid (any more).',
  403: 'The credential may not make this call: `insufficient_scope` for an API key or add-on session without its scope (never on account, billing, key or session calls); `two_factor_required` for a member without a second factor while their team requires one.',
  409: 'The request conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  422: 'The request is well formed but cannot be carried out as it stands.',
  429: 'Too many requests; the Retry-After header says how many seconds to wait.',
  500: 'Something went wrong on the server.',
  502: 'A service the server depends on answered with an error.',
  503: 'The service is shutting down, or it or a service it depends on is temporarily unavailable; try again shortly.',
  504: 'A service the server depends on did not answer in time.',
};

/** Headers an error status always carries on this API, as the document lists them. */
const ANSWER_HEADERS: Record<string, Record<string, object>> = {
  429: { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before trying again.' } },
  401: {
    'WWW-Authenticate': {
      type: 'string',
      description: '`Bearer` (RFC 6750 §3), with `error="invalid_token"` when a token was sent but is refused.',
    },
  },
};

/** The error body with its status's description; without the $id, which names the shared shape once. */
function error(status: string) {
  const { $id: _id, ...shape } = ErrorSchema;
  return { ...shape, description: ERROR_ANSWERS[status] ?? 'The request failed.' };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `POST /auth/login/email` → `postAuthLoginEmail`: stable, unique, and never forgotten on a new route. */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/**
 * The answers the framework and the shared plugins give on a route, whatever its handler does,
 * added to the route's own schema so the document lists every status the server can send (and
 * those bodies are serialised by the same error schema). Register before the API's routes.
 */
export function documentCommonAnswers(api: FastifyInstance): void {
  api.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    const method = [route.method].flat()[0]!;
    if (method === 'HEAD') return;
    const schema: FastifySchema = route.schema ?? {};
    const signedIn = (schema.security?.length ?? 0) > 0;
    // Any request can meet a fault of ours, or the server shutting down (return503OnClosing).
    const common: Record<string, unknown> = { 500: error('500'), 503: error('503') };
    // The content-type parsers run before any handler: malformed JSON, a body over the limit, and
    // where JSON is the one type parsed (not in the Stripe webhook's raw-bytes scope), any other type.
    if (BODY_METHODS.has(method)) {
      common[400] = error('400');
      common[413] = error('413');
      if (this.hasContentTypeParser('application/json')) common[415] = error('415');
    }
    if (schema.headers || schema.querystring || schema.params) common[400] = error('400');
    if (signedIn) {
      common[401] = error('401');
      common[403] = error('403');
    }
    // The route's own answer for a status wins over the generic one; its error bodies get their status's description.
    const own = Object.entries((schema.response ?? {}) as Record<string, unknown>).map(([status, answer]) => [
      status,
      answer === ErrorSchema ? error(status) : answer,
    ]);
    const response: Record<string, unknown> = { ...common, ...Object.fromEntries(own) };
    // The headers every such answer carries: Retry-After (rateLimit.ts, usage.ts), and a signed-in
    // call's Bearer challenge (auth.ts); a sign-in's own 401 (a wrong password) is no bearer refusal.
    for (const [status, headers] of Object.entries(ANSWER_HEADERS)) {
      if (response[status] && (status !== '401' || signedIn)) response[status] = { ...(response[status] as object), headers };
    }
    route.schema = {
      ...schema,
      operationId: schema.operationId ?? operationId(method, route.url.slice(this.prefix.length)),
      // Public unless the route says otherwise: the document then states it rather than leaving it open.
      security: schema.security ?? [],
      response,
    };
  });
}
