import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { activeSession, createSession } from '../../server/domain/sessions';
import { ENGINES, register, useTestApp } from '../helpers/testApp';

/**
 * Property-based requests against every endpoint of the OpenAPI document (so a new route is fuzzed
 * the day it is added): bodies generated from each route's schema and then broken in every way a
 * client or an attacker can (wrong types, huge strings, deep nesting, odd Unicode, unknown and
 * `__proto__` keys, wrong content types and methods), signed in, signed out and with a forged
 * token. Whatever arrives, the API answers below 500 and every error has the one error shape.
 */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  $ref?: string;
};

interface Operation {
  method: string;
  path: string;
  body?: Schema;
  signedIn: boolean;
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

/** Values a schema accepts (roughly): they get past validation, so the handler itself is fuzzed. */
function valid(schema: Schema | undefined, depth = 0, name = ''): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.anything();
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return fc.oneof(...variants.map((s) => valid(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (/email/.test(name)) return fc.emailAddress();
      if (/password/.test(name)) return fc.string({ minLength: 8, maxLength: 40, unit: 'grapheme' });
      if (/username/.test(name)) return fc.stringMatching(/^[a-z0-9_.-]{3,30}$/);
      return fc.oneof(
        ...(['grapheme-ascii', 'grapheme'] as const).map((unit) =>
          fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40), unit }),
        ),
      );
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 5, 5) });
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, valid(s, depth + 1, k)]));
      return fc.record(properties, { requiredKeys: schema.required?.filter((k) => k in properties) ?? [] });
    }
    default:
      return fc.anything();
  }
}

/** Values no schema should let through unharmed. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withNullPrototype: true, withBigInt: false, withDate: false, withTypedArray: false }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constant('\u0000\u202e\ud800 \uffff 🧮'.repeat(100)),
  fc.constant('x'.repeat(70_000)),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e308, true, null, [], {}),
);

/** Bodies that only exist as text: nesting deeper than a recursive parser survives, `__proto__` keys, broken JSON. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 10, max: 30_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 10, max: 10_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.constant('{"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}}'),
  fc.constantFrom('', '{', 'null', '"x"', '{"email": "a@b.c",}', '\ud800'),
);

/** A request body for the operation: valid, valid with one field replaced by something hostile, or just hostile. */
function bodyFor(op: Operation): fc.Arbitrary<string> {
  const base = valid(op.body);
  const broken = fc.tuple(base, fc.string({ maxLength: 12 }), hostile).map(([body, key, bad]) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return bad;
    const keys = Object.keys(body);
    const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key;
    return { ...body, [target]: bad };
  });
  return fc.oneof(
    { arbitrary: fc.oneof({ arbitrary: base, weight: 5 }, { arbitrary: broken, weight: 3 }, hostile).map((body) => JSON.stringify(body) ?? ''), weight: 9 },
    { arbitrary: hostileText, weight: 1 },
  );
}

const contentType = fc.oneof(
  { arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8'), weight: 4 },
  fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', undefined),
);

function resolveRef(doc: { components?: { schemas?: Record<string, Schema> } }, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.split('/').at(-1)!;
  return doc.components?.schemas?.[name];
}

function operationsOf(app: FastifyInstance): Operation[] {
  const doc = app.swagger() as {
    paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
    components?: { schemas?: Record<string, Schema> };
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, spec]) => ({
      method: method.toUpperCase(),
      path,
      body: resolveRef(doc, spec.requestBody?.content?.['application/json']?.schema),
      signedIn: (spec.security?.length ?? 0) > 0,
    })),
  );
}

const ERROR_CODE = /^[a-z][a-z0-9_]*$/;
const OAUTH_PROTOCOL = /^\/api\/v1\/oauth\/(token|device_authorization|revoke)$/;

describe.each(ENGINES)('fuzzing every API endpoint on %s', (engine) => {
  const ctx = useTestApp(engine);
  let userId: string;
  let operations: Operation[];

  beforeAll(async () => {
    await ctx.app.ready();
    operations = operationsOf(ctx.app).filter((op) => op.path.startsWith('/api/v1/'));
    userId = (await register(ctx.app)).user.id;
  });

  let current: { token: string; sessionId: string } | undefined;

  /** A live access token: the last one while its session lasts (logout and password changes in the fuzzing end sessions), else a new session's. */
  async function liveToken(): Promise<string> {
    if (current && (await activeSession(ctx.app.database, current.sessionId, ctx.clock.now()))) return current.token;
    const session = await createSession(ctx.app.database.db, ctx.app.tokens, userId, ctx.clock.now(), { kind: 'web', ip: '127.0.0.1', userAgent: undefined });
    current = { token: ctx.app.tokens.signAccess({ userId, sessionId: session.sessionId }), sessionId: session.sessionId };
    return current.token;
  }

  it('finds the endpoints in the OpenAPI document', () => {
    const paths = operations.map((op) => `${op.method} ${op.path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /api/v1/auth/register', 'GET /api/v1/users/me', 'PUT /api/v1/users/me/password']));
  });

  it('never answers 5xx and always uses the error shape, whatever the request', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          bodyFor(op),
          contentType,
          fc.oneof({ arbitrary: fc.constant('valid'), weight: op.signedIn ? 4 : 1 }, fc.constantFrom('none', 'forged')),
          fc.oneof({ arbitrary: fc.constant(op.method), weight: 6 }, fc.constantFrom('DELETE', 'PATCH', 'GET', 'POST', 'PUT', 'OPTIONS')),
          fc.string({ maxLength: 20 }),
          async (body, type, auth, method, path) => {
            const headers: Record<string, string> = {};
            if (type) headers['content-type'] = type;
            if (auth === 'valid') headers.authorization = `Bearer ${await liveToken()}`;
            if (auth === 'forged') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
            const url = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(path) || 'x');
            const payload = method === 'GET' ? undefined : body;
            const res = await ctx.app.inject({ method: method as 'GET', url, headers, payload });
            const where = `${method} ${url} (${type ?? 'no content type'}, ${auth} token)`;
            if (res.statusCode >= 500) failures.push(`${where} → ${res.statusCode} ${res.body.slice(0, 200)}`);
            if (res.statusCode === 400 && method === 'POST' && OAUTH_PROTOCOL.test(url)) {
              // RFC 6749 §5.2: the device sign-in's protocol calls answer as OAuth clients expect.
              expect(String((JSON.parse(res.body) as { error?: unknown }).error)).toMatch(ERROR_CODE);
            } else if (res.statusCode >= 400) {
              const error = (JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } }).error;
              expect(typeof error?.message).toBe('string');
              expect(String(error?.code)).toMatch(ERROR_CODE);
            }
            expect(res.statusCode).toBeLessThan(500);
          },
        ),
        // fast-check prints the seed of a failing run; FUZZ_SEED replays it.
        { numRuns: RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
      );
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
