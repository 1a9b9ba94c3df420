import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { startServer, type RunningServer } from '../helpers/server';
import { useRedisPrefix } from '../helpers/testApp';

/**
 * Two server processes on different ports sharing one PostgreSQL database and one Redis, as they
 * would behind a load balancer: a session started on one works on the other, refreshes of one
 * token racing across both never end the session, and rate limits count across both.
 */

jest.setTimeout(120_000);

const json = { 'content-type': 'application/json' };

describe('two instances on one PostgreSQL database and one Redis', () => {
  // Not `useTestAppWithStore`: that builds one app in this process, and these are two real server
  // processes; they share its Redis prefix, cleaned after the suite.
  const { url: REDIS_URL, prefix } = useRedisPrefix();
  let database: TestDatabase;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase();
    // No AUTH_SECRET: the first instance generates one and keeps it in the database for the other.
    const env = { DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', WEB_DIR: '/nonexistent' };
    a = await startServer(env);
    b = await startServer(env);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  const call = async (server: RunningServer, method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method,
      headers: { ...json, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { access_token: string; refresh_token: string } };
  };

  const account = (name: string) => ({
    email: `${name}-${prefix.slice(14, 22)}@example.com`,
    password: 'Two-instances-2026',
    full_name: name,
    username: `${name}_${prefix.slice(14, 22)}`,
  });

  it('accepts on one instance a session started on the other, and refreshes it there', async () => {
    const user = account('ada');
    expect((await call(a, 'POST', '/auth/register', user)).status).toBe(201);
    const login = await call(a, 'POST', '/auth/login/email', { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect((await call(b, 'GET', '/users/me', undefined, login.body.access_token)).body.email).toBe(user.email);

    const refreshed = await call(b, 'POST', '/auth/refresh', { refresh_token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect((await call(a, 'GET', '/users/me', undefined, refreshed.body.access_token)).status).toBe(200);

    // Signing out on one ends the session on both.
    expect((await call(a, 'POST', '/auth/logout', {}, refreshed.body.access_token)).status).toBe(204);
    expect((await call(b, 'GET', '/users/me', undefined, refreshed.body.access_token)).status).toBe(401);
  });

  it('never ends the session when one refresh token is refreshed on both instances at once', async () => {
    const user = account('grace');
    const registered = await call(a, 'POST', '/auth/register', user);
    let refreshToken = registered.body.refresh_token;
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', '/auth/refresh', { refresh_token: refreshToken })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
      // Every racer got the same successor, and it works on both instances.
      const successors = new Set(answers.map((r) => r.body.refresh_token));
      expect(successors.size).toBe(1);
      for (const server of [a, b]) expect((await call(server, 'GET', '/users/me', undefined, answers[0]!.body.access_token)).status).toBe(200);
      refreshToken = answers[0]!.body.refresh_token;
    }
  });

  it('evaluates no more of a burst of guesses sent to both instances at once than one account limit', async () => {
    const user = account('linus');
    await call(a, 'POST', '/auth/register', user);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', '/auth/login/email', { email: user.email, password: `Wrong-password-${i}` })),
    );
    const failed = answers.filter((answer) => answer.status === 401).length;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(10);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(100 - failed);
    for (const server of [a, b]) {
      const blocked = await call(server, 'POST', '/auth/login/email', { email: user.email, password: user.password });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
