import { openDatabase, type DatabaseHandle } from '../../server/db/database';
import { setPlan } from '../helpers/fakeAi';
import { bearer, ENGINES, post, register, useTestApp } from '../helpers/testApp';

/**
 * The session check of every signed-in request answers from the database as it is now, even
 * though SQLite keeps its answers between changes and PostgreSQL reads many sessions at once (`keyedRead`): a change made here, or by another
 * process on the same database, shows on the very next request.
 */
describe.each(ENGINES)('the session check on %s', (engine) => {
  const ctx = useTestApp(engine);
  /** Another connection to the same database, as a second instance or an operator's tool has. */
  let other: DatabaseHandle;
  beforeAll(async () => {
    other = await openDatabase({ databaseUrl: ctx.config.databaseUrl, dataDir: ctx.config.dataDir });
  });
  afterAll(() => other.close());

  const me = (token: string) => ctx.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });

  it('refuses a session another process revoked, at the next request', async () => {
    const user = await register(ctx.app);
    expect((await me(user.access_token)).statusCode).toBe(200);
    expect((await me(user.access_token)).statusCode).toBe(200);
    await other.db.updateTable('sessions').set({ revoked_at: ctx.clock.now(), revoked_reason: 'operator' }).where('user_id', '=', user.user.id).execute();
    const res = await me(user.access_token);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { code: 'session_revoked' } });
  });

  it('shows a plan another process recorded, at the next request', async () => {
    const user = await register(ctx.app);
    expect((await me(user.access_token)).json()).toMatchObject({ subscription_plan: 'free' });
    await setPlan(other.db, user.user.id, 'team', ctx.clock.now());
    expect((await me(user.access_token)).json()).toMatchObject({ subscription_plan: 'team' });
  });

  it('shows a profile change and refuses a signed-out token, at the next request', async () => {
    const user = await register(ctx.app);
    expect((await me(user.access_token)).statusCode).toBe(200);
    const renamed = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/me', headers: bearer(user.access_token), payload: { full_name: 'Grace Hopper' } });
    expect(renamed.statusCode).toBe(200);
    expect((await me(user.access_token)).json()).toMatchObject({ full_name: 'Grace Hopper' });
    const logout = await post(ctx.app, '/api/v1/auth/logout', { refresh_token: user.refresh_token }, bearer(user.access_token));
    expect(logout.statusCode).toBe(204);
    expect((await me(user.access_token)).statusCode).toBe(401);
  });

  it('answers many requests at once each with its own user, and refuses the revoked ones among them', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, () => register(ctx.app)));
    const revoked = users.filter((_, i) => i % 3 === 0);
    for (const user of revoked) {
      await other.db.updateTable('sessions').set({ revoked_at: ctx.clock.now(), revoked_reason: 'operator' }).where('user_id', '=', user.user.id).execute();
    }
    const answers = await Promise.all(users.flatMap((user) => [me(user.access_token), me(user.access_token)]));
    answers.forEach((res, i) => {
      const user = users[Math.floor(i / 2)]!;
      if (revoked.includes(user)) expect(res.statusCode).toBe(401);
      else expect(res.json()).toMatchObject({ id: user.user.id, email: user.user.email });
    });
  });

  it('ends a session at its absolute end even when nothing in the database changed since the last request', async () => {
    const user = await register(ctx.app);
    await other.db.updateTable('sessions').set({ expires_at: ctx.clock.now() + 60_000 }).where('user_id', '=', user.user.id).execute();
    expect((await me(user.access_token)).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    expect((await me(user.access_token)).statusCode).toBe(401);
  });
});
