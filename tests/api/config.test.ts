import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../server/config';
import { hashPassword, verifyPassword } from '../../server/domain/passwords';
import { atProductionHashCost } from '../helpers/testApp';

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
    expect(config).toMatchObject({ port: 3000, dataDir: '/srv/app/data', databaseUrl: null, databasePoolSize: 20 });
    expect(config.web).toMatchObject({ brandName: 'SheetMind', supportEmail: 'support@sheetmind.example' });
    expect(config.passwordHashing).toEqual({ memoryKiB: 19_456, passes: 2 });
    expect(config.retention).toEqual({ months: 13, intervalMinutes: 60 });
  });

  it('hashes passwords with argon2id at 19 MiB and 2 passes unless told otherwise (the tests lower it)', async () => {
    const stored = await atProductionHashCost(() => hashPassword('Correct-horse-1'));
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(stored, 'Correct-horse-1')).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
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
