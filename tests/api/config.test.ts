import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../server/config';

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
    expect(config).toMatchObject({ port: 3000, dataDir: '/srv/app/data', databaseUrl: null });
    expect(config.web).toMatchObject({ brandName: 'SheetMind', supportEmail: 'support@sheetmind.example' });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ SUPPORT_EMAIL: 'nobody' }, 'SUPPORT_EMAIL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ CORS_ORIGINS: 'https://ok.example,ftp://bad' }, 'CORS_ORIGINS'],
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
