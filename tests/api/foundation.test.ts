import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import pg from 'pg';
import { ADMIN_URL, createTestDatabase } from '../helpers/postgres';
import { appOnSameDatabase, ENGINES, useTestApp } from '../helpers/testApp';

/** Creates again the (dropped) database of `url`. */
async function recreate(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
  } finally {
    await admin.end();
  }
}

describe.each(ENGINES)('API foundation on %s', (engine) => {
  const ctx = useTestApp(engine);

  it.each(['/api/v1/health', '/api/v1/health/ready'])('reports the database as reachable on GET %s', async (url) => {
    const res = await ctx.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', engine, mail: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers each of many health checks made at once (they share one probe), and the ones after them', async () => {
    for (let wave = 0; wave < 2; wave++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => ctx.app.inject({ method: 'GET', url: '/api/v1/health/ready' })));
      for (const res of answers) expect(res.json()).toEqual({ status: 'ok', database: 'ok', engine, mail: 'ok' });
    }
  });

  it('answers an unknown API path with a JSON 404', async () => {
    for (const url of ['/api/v1/nope', '/api/elsewhere']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining(url) } });
    }
  });

  it('answers a malformed JSON body with a JSON 400', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/nope',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_json');
  });

  it('sends strict security headers and no X-Powered-By on API answers', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('health when PostgreSQL goes away', () => {
  it('answers readiness 503 degraded to every check made meanwhile, health from memory at once, and ok again once it is back', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-health-'));
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, WEB_DIR: path.join(dataDir, 'no-web'), DATABASE_URL: database.url }),
    });
    const ready = () => app.inject({ method: 'GET', url: '/api/v1/health/ready' });
    const health = () => app.inject({ method: 'GET', url: '/api/v1/health' });
    try {
      expect((await ready()).json()).toEqual({ status: 'ok', database: 'ok', engine: 'postgres', mail: 'ok' });
      await database.drop();
      const answers = await Promise.all(Array.from({ length: 5 }, ready));
      for (const res of answers) {
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ status: 'degraded', database: 'unreachable', engine: 'postgres', mail: 'ok' });
      }
      // Liveness: the process answers, with the database as last seen.
      const live = await health();
      expect([live.statusCode, live.json()]).toEqual([200, { status: 'degraded', database: 'unreachable', engine: 'postgres', mail: 'ok' }]);
      await recreate(database.url);
      expect((await ready()).statusCode).toBe(200);
      expect((await health()).json()).toEqual({ status: 'ok', database: 'ok', engine: 'postgres', mail: 'ok' });
    } finally {
      await app.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('serving the SPA', () => {
  const ctx = useTestApp('sqlite');
  let webApp: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    const webDir = path.join(ctx.dataDir, 'web');
    fs.mkdirSync(path.join(webDir, 'assets'), { recursive: true });
    fs.writeFileSync(
      path.join(webDir, 'index.html'),
      '<!doctype html><html><head><title>%%config.brandName%%</title><!--app-config--></head><body><div id="root"></div></body></html>',
    );
    fs.writeFileSync(path.join(webDir, 'assets', 'main.0123456789abcdef.js'), 'console.log(1)');
    webApp = await appOnSameDatabase(ctx, {
      config: loadConfig({ NODE_ENV: 'test', DATA_DIR: ctx.dataDir, WEB_DIR: webDir, BRAND_NAME: 'Acme </script>' }),
    });
  });
  afterAll(() => webApp.close());

  it('serves index.html with runtime config and a fresh style nonce for any page path', async () => {
    const first = await webApp.inject({ method: 'GET', url: '/no-such-page' });
    const second = await webApp.inject({ method: 'GET', url: '/dashboard' });
    expect(first.statusCode).toBe(404);
    expect(second.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/text\/html/);
    const config = /<script id="app-config" type="application\/json">(.*?)<\/script>/.exec(first.body)?.[1];
    expect(JSON.parse(config ?? '{}')).toMatchObject({ brandName: 'Acme </script>', supportEmail: 'support@sheetmind.example' });
    expect(first.body).toContain('<title>Acme &#60;/script&#62;</title>');
    const nonce = (body: string) => /<meta name="csp-nonce" content="([0-9a-f]+)">/.exec(body)?.[1];
    expect(nonce(first.body)).toBeTruthy();
    expect(nonce(first.body)).not.toBe(nonce(second.body));
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toContain(`'nonce-${nonce(first.body)}'`);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(first.headers['x-powered-by']).toBeUndefined();
  });

  it('answers the paths the SPA has a page for with 200 and any other page path with 404, both with the SPA', async () => {
    const known = ['/', '/login', '/register', '/privacy', '/terms', '/support', '/dashboard', '/subscription', '/profile', '/forgot-password', '/reset-password'];
    const variants = ['/Dashboard', '/profile/', '/reset-password?token=abc'];
    const unknown = ['/no-such-page', '/dashboard/extra', '/login-page', '/pricing'];
    const answers = await Promise.all([...known, ...variants, ...unknown].map((url) => webApp.inject({ method: 'GET', url })));
    const statusOf = Object.fromEntries([...known, ...variants, ...unknown].map((url, i) => [url, answers[i]!.statusCode]));
    expect(statusOf).toEqual(Object.fromEntries([...known.map((url) => [url, 200]), ...variants.map((url) => [url, 200]), ...unknown.map((url) => [url, 404])]));
    for (const res of answers) expect(res.body).toContain('<div id="root"></div>');
  });

  it('caches hashed assets for a year and answers missing files with 404', async () => {
    const asset = await webApp.inject({ method: 'GET', url: '/assets/main.0123456789abcdef.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await webApp.inject({ method: 'GET', url: '/assets/gone.js' });
    expect(missing.statusCode).toBe(404);
  });
});
