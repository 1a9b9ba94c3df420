import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer, ENGINES, register, useTestApp } from '../helpers/testApp';

/**
 * Every signed-in route of the OpenAPI document (so a new one is covered the day it is added),
 * called without a token, with an expired one, with a signed-out session's, and with another
 * user's: none of them ever shows the first user's data.
 */

interface SignedInRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
}

function signedInRoutes(app: FastifyInstance): SignedInRoute[] {
  const doc = app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  return Object.entries(doc.paths).flatMap(([url, methods]) =>
    Object.entries(methods)
      .filter(([, spec]) => (spec.security?.length ?? 0) > 0)
      .map(([method]) => ({ method: method.toUpperCase() as SignedInRoute['method'], url })),
  );
}

describe.each(ENGINES)('access control on %s', (engine) => {
  const ctx = useTestApp(engine);
  let routes: SignedInRoute[];
  let alice: Awaited<ReturnType<typeof register>>;
  let bob: Awaited<ReturnType<typeof register>>;

  beforeAll(async () => {
    await ctx.app.ready();
    routes = signedInRoutes(ctx.app);
    alice = await register(ctx.app, { full_name: 'Alice Private' });
    bob = await register(ctx.app);
  });

  const call = (route: SignedInRoute, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    ctx.app.inject({ method: route.method, url: route.url, headers, ...(route.method === 'GET' ? {} : { payload: {} }) });

  const expectRefused = (res: LightMyRequestResponse) => {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(res.body).not.toContain(alice.user.id);
    expect(res.body).not.toContain(alice.account.email);
  };

  it('finds the signed-in routes', () => {
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['GET /api/v1/users/me', 'PUT /api/v1/users/me', 'PUT /api/v1/users/me/password', 'POST /api/v1/auth/logout']),
    );
  });

  it('refuses every signed-in route without a token, with a malformed one and with a forged one', async () => {
    const forged = alice.access_token.replace(/\.[^.]+$/, '.c2lnbmF0dXJl');
    for (const route of routes) {
      for (const headers of [{}, { authorization: 'Bearer' }, { authorization: `Basic ${alice.access_token}` }, bearer(forged), bearer(alice.refresh_token)]) {
        expectRefused(await call(route, headers));
      }
    }
  });

  it('refuses an expired access token on every signed-in route', async () => {
    const start = ctx.clock.now();
    ctx.clock.advance(16 * 60_000);
    try {
      for (const route of routes) expectRefused(await call(route, bearer(alice.access_token)));
    } finally {
      ctx.clock.time = start;
    }
  });

  it('never shows one user’s data to another user’s token', async () => {
    for (const route of routes.filter((r) => !r.url.endsWith('/logout'))) {
      const res = await call(route, bearer(bob.access_token));
      expect(res.statusCode).toBeLessThan(500);
      expect(res.body).not.toContain(alice.user.id);
      expect(res.body).not.toContain(alice.account.email);
      expect(res.body).not.toContain('Alice Private');
    }
    const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(alice.access_token) });
    expect(me.json()).toMatchObject({ id: alice.user.id, full_name: 'Alice Private' });
  });

  it('refuses a signed-out session’s token on every signed-in route', async () => {
    const carol = await register(ctx.app);
    const out = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(carol.access_token), payload: {} });
    expect(out.statusCode).toBe(204);
    for (const route of routes) {
      const res = await call(route, bearer(carol.access_token));
      expect(res.statusCode).toBe(401);
    }
  });
});
