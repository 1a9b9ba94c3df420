import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../server/config';
import { appOnSameDatabase, post, register, useTestApp } from '../helpers/testApp';

/** A web folder like the production build, plus the files an attacker probes for. */
function webFolder(root: string): string {
  const webDir = path.join(root, 'web');
  fs.mkdirSync(path.join(webDir, 'assets'), { recursive: true });
  fs.mkdirSync(path.join(webDir, '.git'), { recursive: true });
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><html><head><title>%%config.brandName%%</title><!--app-config--></head><body><div id="root"></div></body></html>');
  fs.writeFileSync(path.join(webDir, 'assets', 'main.0123456789abcdef.js'), 'console.log(1)');
  fs.writeFileSync(path.join(webDir, 'assets', 'main.0123456789abcdef.js.map'), '{"sources":["secret.ts"]}');
  fs.writeFileSync(path.join(webDir, '.env'), 'AUTH_SECRET=leaked');
  fs.writeFileSync(path.join(webDir, '.git', 'config'), '[core]');
  return webDir;
}

describe.each([false, true])('security headers (behind a TLS proxy: %s)', (trustProxy) => {
  const ctx = useTestApp('sqlite');
  let web: FastifyInstance;

  beforeAll(async () => {
    web = await appOnSameDatabase(ctx, {
      config: loadConfig({ NODE_ENV: 'test', DATA_DIR: ctx.dataDir, WEB_DIR: webFolder(ctx.dataDir), TRUST_PROXY: String(trustProxy) }),
    });
  });
  afterAll(() => web.close());

  it('gives every page a strict CSP with a fresh nonce, no framing, no sniffing and a referrer policy', async () => {
    const pages = await Promise.all(['/', '/login', '/dashboard'].map((url) => web.inject({ method: 'GET', url })));
    const nonces = new Set<string>();
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      const nonce = /style-src[^;]*'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(page.body).toContain(`content="${nonce}"`);
      nonces.add(nonce!);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(page.headers['x-powered-by']).toBeUndefined();
      expect(page.headers['strict-transport-security'] !== undefined).toBe(trustProxy);
    }
    expect(nonces.size).toBe(pages.length);
  });

  it('sends auth answers with Cache-Control: no-store, and HSTS only behind TLS', async () => {
    const { account } = await register(web);
    const login = await post(web, '/api/v1/auth/login/email', { email: account.email, password: account.password });
    expect(login.statusCode).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
    expect(login.headers['referrer-policy']).toBe('no-referrer');
    expect(login.headers['x-powered-by']).toBeUndefined();
    expect(login.headers['strict-transport-security'] !== undefined).toBe(trustProxy);
  });

  it.each(['/.env', '/.git/config', '/.git/', '/assets/main.0123456789abcdef.js.map', '/server/config.ts', '/package.json'])(
    'answers %s with 404 and never its content',
    async (url) => {
      const res = await web.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/leaked|\[core\]|secret\.ts/);
    },
  );

  it('still serves the hashed bundle itself', async () => {
    const res = await web.inject({ method: 'GET', url: '/assets/main.0123456789abcdef.js' });
    expect(res.statusCode).toBe(200);
  });
});
