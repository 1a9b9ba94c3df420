import swagger from '@fastify/swagger';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Fastify, { type FastifySchema } from 'fastify';
import { documentedAnswers, type OpenApiDocument } from '../helpers/documentedAnswers';
import { bearer, checkedAgainstDocument, ENGINES, register, useTestApp, type TestContext } from '../helpers/testApp';

const STRIPE_ENV = {
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_fake',
  STRIPE_WEBHOOK_SECRET: 'whsec_test_0123456789abcdef',
  STRIPE_PRICE_PROFESSIONAL: 'price_pro_1234',
  STRIPE_PRICE_TEAM: 'price_team_5678',
};

type Operation = { operationId?: string; summary?: string; tags?: string[]; security?: unknown[]; requestBody?: unknown };

async function servedDocument(ctx: TestContext): Promise<OpenApiDocument & Record<string, unknown>> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

function operations(doc: OpenApiDocument): Array<[string, string, Operation]> {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, string, Operation] => [method.toUpperCase(), path, operation]),
  );
}

/** Redocly's recommended rules, as `redocly lint` runs them; the errors, one line each. */
async function redoclyErrors(doc: object): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
  return problems
    .filter((problem) => problem.severity === 'error')
    .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
}

describe.each(ENGINES)('the OpenAPI document on %s', (engine) => {
  const ctx = useTestApp(engine);

  it("passes Redocly's recommended rules without an error", async () => {
    expect(await redoclyErrors(await servedDocument(ctx))).toEqual([]);
  });

  it('describes the API only, with its server and its terms', async () => {
    const doc = await servedDocument(ctx);
    expect(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/v1/'))).toEqual([]);
    expect(doc.servers).toEqual([{ url: ctx.config.publicUrl }]);
    expect(doc.info).toMatchObject({ license: { name: expect.stringMatching(/Proprietary/), url: `${ctx.config.publicUrl}/terms` } });
  });

  it('describes the checked formula of a query answer, and where the data sits', async () => {
    type Schema = { type?: string; nullable?: boolean; required?: string[]; properties: Record<string, Schema> };
    type Post = { responses: Record<string, { content: Record<string, { schema: Schema }> }>; requestBody: { content: Record<string, { schema: Schema }> } };
    const doc = (await servedDocument(ctx)) as unknown as { paths: Record<string, { post: Post }> };
    const query = doc.paths['/api/v1/query']!.post;
    const answer = query.responses['200']!.content['application/json']!.schema;
    expect(answer.required).toEqual(expect.arrayContaining(['formula', 'verified', 'engine']));
    expect(answer.properties.verified!.type).toBe('boolean');
    expect(answer.properties.engine!.type).toBe('string');
    const formula = answer.properties.formula!;
    expect(formula).toMatchObject({ type: 'object', nullable: true });
    expect(Object.keys(formula.properties)).toEqual(['text', 'valid', 'value', 'error', 'references', 'functions']);
    expect(query.requestBody.content['application/json']!.schema.properties.range).toMatchObject({ type: 'string' });
  });

  it('names, sums up and tags every operation, with unique operation ids', async () => {
    const ops = operations(await servedDocument(ctx));
    const incomplete = ops.filter(([, , op]) => !op.operationId || !op.summary || !op.tags?.length || !op.security);
    expect(incomplete.map(([method, path]) => `${method} ${path}`)).toEqual([]);
    const ids = ops.map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states the security each operation really has: a request without a token is refused exactly where a token is required', async () => {
    const wrong: string[] = [];
    for (const [method, path, op] of operations(await servedDocument(ctx))) {
      const res = await ctx.app.inject({ method: method as 'GET', url: path, ...(op.requestBody ? { payload: {} } : {}) });
      const refused = res.statusCode === 401 && res.json().error.code === 'missing_token';
      if (refused !== (op.security ?? []).length > 0) wrong.push(`${method} ${path}: ${res.statusCode} ${res.body}`);
    }
    expect(wrong).toEqual([]);
  });

  // What a validating proxy found answered but undocumented: the statuses of the framework itself.
  it('documents the answers to an oversized body, a body of another type and malformed JSON', async () => {
    const { access_token } = await register(ctx.app);
    const auth = bearer(access_token);
    const json = { ...auth, 'content-type': 'application/json' };
    const cases = [
      { method: 'PUT', url: '/api/v1/users/me', headers: json, payload: JSON.stringify({ full_name: 'x'.repeat(70_000) }), status: 413 },
      { method: 'PUT', url: '/api/v1/users/me', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'Ada', status: 415 },
      { method: 'POST', url: '/api/v1/subscription/checkout', headers: { ...auth, 'content-type': 'application/xml' }, payload: '<plan/>', status: 415 },
      { method: 'POST', url: '/api/v1/subscription/checkout', headers: json, payload: '{"plan":', status: 400 },
      { method: 'POST', url: '/api/v1/auth/logout', headers: json, payload: '{', status: 400 },
    ] as const;
    // Each answer passes through the suite's check against the document (checkedAgainstDocument).
    for (const { status, ...request } of cases) expect((await ctx.app.inject(request)).statusCode).toBe(status);
  });
});

describe('the OpenAPI document with Stripe billing', () => {
  const ctx = useTestApp('sqlite', { env: STRIPE_ENV });

  it("passes Redocly's recommended rules without an error, the webhook included", async () => {
    const doc = await servedDocument(ctx);
    expect(doc.paths['/api/v1/billing/webhook']).toBeDefined();
    expect(await redoclyErrors(doc)).toEqual([]);
  });
});

describe('the check of answers against the document', () => {
  const ctx = useTestApp('sqlite');

  it('reports a status the operation does not list', async () => {
    const doc = structuredClone(await servedDocument(ctx));
    delete doc.paths['/api/v1/users/me']!.put!.responses![413];
    const { access_token } = await register(ctx.app);
    const res = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(access_token), payload: { full_name: 'x'.repeat(70_000) } });
    expect(documentedAnswers(doc)(res)).toMatch(/^PUT \/api\/v1\/users\/me answered 413, a status the document does not list/);
  });

  it('reports a body the schema for its status refuses', async () => {
    const doc = structuredClone(await servedDocument(ctx));
    const schema = doc.paths['/api/v1/users/me']!.get!.responses![200]!.content!['application/json']!.schema as { required: string[] };
    schema.required.push('nickname');
    const { access_token } = await register(ctx.app);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(access_token) });
    expect(res.statusCode).toBe(200);
    expect(documentedAnswers(doc)(res)).toMatch(/^GET \/api\/v1\/users\/me answered 200 with a body the document's schema refuses \(.*nickname/);
    expect(documentedAnswers(await servedDocument(ctx))(res)).toBeNull();
  });

  it('fails the request in the test suites, through the shared test app', async () => {
    const app = Fastify();
    await app.register(swagger, { openapi: { info: { title: 'teapot', version: '1' } } });
    const schema: FastifySchema = { response: { 200: { type: 'object' } } };
    app.get('/api/v1/teapot', { schema }, (_request, reply) => reply.status(418).send({ short: true }));
    checkedAgainstDocument(app);
    await expect(app.inject({ method: 'GET', url: '/api/v1/teapot' })).rejects.toThrow(
      'Not in the OpenAPI document: GET /api/v1/teapot answered 418, a status the document does not list',
    );
    await app.close();
  });
});
