import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { Config } from '../config';
import { ErrorSchema } from '../schemas';

/** Where the API's routes live; everything else the server answers (pages, files, the docs) is not API. */
export const API_PREFIX = '/api/v1';

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
    transform: ({ schema, url }) => ({ schema: url.startsWith(`${API_PREFIX}/`) ? schema : { ...schema, hide: true }, url }),
  });
}

/** The error body with a response description; without the $id, which names the shared shape once. */
function error(description: string) {
  const { $id: _id, ...shape } = ErrorSchema;
  return { ...shape, description };
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
    const common: Record<string, unknown> = {
      // Any request can meet a fault of ours, or the server shutting down (return503OnClosing).
      500: error('Something went wrong on the server.'),
      503: error('The service is shutting down or temporarily unavailable; try again shortly.'),
    };
    // The content-type parsers run before any handler: malformed JSON, a body over the limit, and
    // where JSON is the one type parsed (not in the Stripe webhook's raw-bytes scope), any other type.
    if (BODY_METHODS.has(method)) {
      common[400] = error('The request is invalid.');
      common[413] = error('The request body is too large.');
      if (this.hasContentTypeParser('application/json')) common[415] = error('The request body is not JSON.');
    }
    if (schema.headers || schema.querystring || schema.params) common[400] = error('The request is invalid.');
    if (signedIn) common[401] = error('Missing, invalid or expired access token, or the session has ended.');
    route.schema = {
      ...schema,
      operationId: schema.operationId ?? operationId(method, route.url.slice(this.prefix.length)),
      // Public unless the route says otherwise: the document then states it rather than leaving it open.
      security: schema.security ?? [],
      // The route's own answer for a status wins over the generic one.
      response: { ...common, ...(schema.response as object | undefined) },
    };
  });
}
