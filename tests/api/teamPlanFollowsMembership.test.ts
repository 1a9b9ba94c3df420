import type { FastifyInstance } from 'fastify';
import { join, payFor, teamOwner, type Account } from '../helpers/teams';
import { ENGINES, bearer, register, useSecondInstance, useTestApp } from '../helpers/testApp';

/**
 * The session check that runs on every request reads the user's plan with it, and SQLite keeps
 * its answers until the database changes (server/db/keyedReads.ts). Membership decides the plan,
 * so a join, a removal or a leave must show on the very next request, on the instance that made
 * the change and on another one sharing the database (its own handle: its own cache on SQLite,
 * its own pool on PostgreSQL), even when that instance has just answered the same session many times.
 */
describe.each(ENGINES)('the effective plan follows team membership at once on %s', (engine) => {
  const ctx = useTestApp(engine);
  const second = useSecondInstance(ctx);

  const call = (app: FastifyInstance, method: 'GET' | 'DELETE', url: string, who: Account) =>
    app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.access_token) });
  /** The plan both instances answer with, read by several requests at once (each one's session check). */
  async function plans(who: Account): Promise<string[]> {
    const answers = await Promise.all(
      [ctx.app, second.current, ctx.app, second.current].flatMap((app) => [call(app, 'GET', '/users/me', who), call(app, 'GET', '/subscription/me', who)]),
    );
    return [...new Set(answers.map((res, i) => (i % 2 === 0 ? res.json().subscription_plan : res.json().plan)))];
  }

  it('is Team from the request after joining and the own plan from the request after removal or leaving', async () => {
    const owner = await teamOwner(ctx);
    const free = await register(ctx.app);
    const pro = await register(ctx.app);
    await payFor(ctx, pro, 'professional');
    // Both instances have just answered these sessions: whatever they keep is warm.
    expect(await plans(free)).toEqual(['free']);
    expect(await plans(pro)).toEqual(['professional']);

    await join(ctx, owner, free);
    await join(ctx, owner, pro);
    expect(await plans(free)).toEqual(['team']);
    expect(await plans(pro)).toEqual(['team']);

    // Removed by the owner through the other instance.
    expect((await call(second.current, 'DELETE', `/teams/me/members/${free.user.id}`, owner)).statusCode).toBe(204);
    expect(await plans(free)).toEqual(['free']);
    // Leaving through the first.
    expect((await call(ctx.app, 'DELETE', `/teams/me/members/${pro.user.id}`, pro)).statusCode).toBe(204);
    expect(await plans(pro)).toEqual(['professional']);

    // And back again.
    await join(ctx, owner, free);
    expect(await plans(free)).toEqual(['team']);
  });
});
