import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../server/app';
import { ConfigError, loadConfig } from '../../server/config';
import { hashPassword, verifyPassword } from '../../server/domain/passwords';
import { freePort } from '../helpers/server';
import { atProductionHashCost, newAccount } from '../helpers/testApp';

function startWith(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: '/tmp/sheetmind-config-test', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({ port: 3000, healthPort: null, dataDir: '/srv/app/data', databaseUrl: null, databasePoolSize: 20 });
    expect(config.web).toMatchObject({ brandName: 'SheetMind', supportEmail: 'support@sheetmind.example' });
    expect(config.passwordHashing).toEqual({ memoryKiB: 19_456, passes: 2 });
    expect(config.retention).toEqual({ months: 13, intervalMinutes: 60 });
    // Idle kept-alive connections go after 5 s when browsers reach the server directly, after 72 s behind a proxy.
    expect(config.connections).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000, maxConnectionsPerAddress: 256 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8' }).connections.keepAliveTimeoutMs).toBe(72_000);
  });

  it('hashes passwords with argon2id at 19 MiB and 2 passes unless told otherwise (the tests lower it)', async () => {
    const stored = await atProductionHashCost(() => hashPassword('Correct-horse-1'));
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(stored, 'Correct-horse-1')).toBe(true);
  });

  it.each([
    [{}, 'http://localhost:3000'],
    [{ HOST: '0.0.0.0', PORT: '8080' }, 'http://localhost:8080'],
    [{ HOST: '::', PORT: '8080' }, 'http://localhost:8080'],
    [{ HOST: '127.0.0.1', PORT: '3000' }, 'http://127.0.0.1:3000'],
    [{ HOST: '::1', PORT: '3000' }, 'http://[::1]:3000'],
    [{ HOST: 'sheets.internal', PORT: '80' }, 'http://sheets.internal:80'],
    [{ HOST: '127.0.0.1', PUBLIC_URL: 'https://app.example.com/' }, 'https://app.example.com'],
  ])('takes the PUBLIC_URL of %p to be %s: where the server listens, unless set', (env, publicUrl) => {
    expect(loadConfig(env).publicUrl).toBe(publicUrl);
  });

  it('with HOST=127.0.0.1 and no PUBLIC_URL, sends a paid checkout back to the origin the person opened', async () => {
    const port = await freePort();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-origin-'));
    const app = await buildApp({ config: loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: root, WEB_DIR: path.join(root, 'no-web') }) });
    try {
      await app.listen({ port: app.config.port, host: app.config.host });
      const origin = `http://127.0.0.1:${port}`;
      const json = { 'content-type': 'application/json' };
      const registered = await fetch(`${origin}/api/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(newAccount()) });
      const auth = { ...json, authorization: `Bearer ${((await registered.json()) as { access_token: string }).access_token}` };
      const checkout = await fetch(`${origin}/api/v1/subscription/checkout`, { method: 'POST', headers: auth, body: JSON.stringify({ plan: 'professional' }) });
      const checkoutUrl = new URL(((await checkout.json()) as { checkout_url: string }).checkout_url);
      expect(checkoutUrl.origin).toBe(origin);
      const form = new URLSearchParams({ token: checkoutUrl.searchParams.get('token')!, card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', action: 'pay' });
      const paid = await fetch(checkoutUrl, { method: 'POST', body: form, redirect: 'manual' });
      expect(paid.status).toBe(303);
      const back = new URL(paid.headers.get('location')!);
      expect(back.href).toBe(`${origin}/subscription?checkout=success`);
      // Followed, it reaches this very server, where the same tokens read the paid plan.
      const landed = await fetch(back, { redirect: 'manual' });
      expect(landed.headers.get('content-security-policy')).toContain(`form-action 'self' ${origin}`);
      const plan = await fetch(`${back.origin}/api/v1/subscription/me`, { headers: auth });
      expect(((await plan.json()) as { plan: string }).plan).toBe('professional');
    } finally {
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ HEALTH_PORT: 'abc' }, 'HEALTH_PORT'],
    [{ HEALTH_PORT: '0' }, 'HEALTH_PORT'],
    [{ PORT: '8080', HEALTH_PORT: '8080' }, 'HEALTH_PORT'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ SUPPORT_EMAIL: 'nobody' }, 'SUPPORT_EMAIL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ CORS_ORIGINS: 'https://ok.example,ftp://bad' }, 'CORS_ORIGINS'],
    [{ PASSWORD_HASH_MEMORY_KIB: '4' }, 'PASSWORD_HASH_MEMORY_KIB'],
    // One month would not keep the dashboard's last 30 days.
    [{ RETENTION_MONTHS: '1' }, 'RETENTION_MONTHS'],
    [{ RETENTION_INTERVAL_MINUTES: 'hourly' }, 'RETENTION_INTERVAL_MINUTES'],
  ])('rejects %p naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it('stops the server with one line naming PORT when PORT is bad', () => {
    const run = startWith({ PORT: 'eighty' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Configuration error: PORT: /)]);
  });

  it('stops the server with one line naming DATABASE_URL when the database cannot be reached', () => {
    const run = startWith({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Configuration error: DATABASE_URL: /)]);
  });
});
