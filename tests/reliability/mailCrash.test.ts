import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { freePort, startServer, type RunningServer } from '../helpers/server';
import { SmtpSink } from '../helpers/smtpSink';

/**
 * An instance killed (SIGKILL) while it sends a mail it queued: the mail server never answered it,
 * so nothing was delivered; the next instance on the same database sends the mail once its lease
 * runs out, exactly once, and the link in it works. On both engines.
 */

jest.setTimeout(120_000);

/** Waits for `check` to hold (the value, not a time), up to `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(['sqlite', 'postgres'] as const)('a mail queued by an instance killed before sending it, on %s', (engine) => {
  let sink: SmtpSink;
  let database: TestDatabase | undefined;
  let dataDir: string;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    sink = new SmtpSink(await freePort());
    await sink.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-mail-crash-'));
    if (engine === 'postgres') database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sink.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The mail's row, read from the database both instances use. */
  async function mailRows(): Promise<Array<{ status: string; attempts: number }>> {
    if (database) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query('select status, attempts from mail_outbox')).rows;
      } finally {
        await client.end();
      }
    }
    const db = new Database(path.join(dataDir, 'sheetmind.db'), { readonly: true });
    try {
      return db.prepare('select status, attempts from mail_outbox').all() as Array<{ status: string; attempts: number }>;
    } finally {
      db.close();
    }
  }

  it('is sent once by the next instance', async () => {
    // Short lease and polling, so the next instance takes the mail over in about a second.
    const env = {
      SMTP_URL: sink.url,
      MAIL_LEASE_MS: '1500',
      MAIL_POLL_MS: '100',
      LOG_LEVEL: 'warn',
      WEB_DIR: '/nonexistent',
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    sink.mode = 'hold';
    const first = await startServer(env);
    servers.push(first);
    const email = `crash-${engine}-${Date.now()}@example.com`;
    const post = (server: RunningServer, url: string, body: object) =>
      fetch(`${server.baseUrl}/api/v1${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const account = { email, password: 'Crash-test-2026-x', full_name: 'Crash Test', username: `crash_${engine}_${Date.now() % 1e6}` };
    // Registering queues the mail with the link that verifies the address.
    expect((await post(first, '/auth/register', account)).status).toBe(201);
    // Queued and being sent: the mail server holds it without answering. Then the instance dies.
    await until(() => sink.held === 1, 'the first instance to send');
    await first.stop('SIGKILL');
    expect(sink.to(email)).toEqual([]);

    sink.mode = 'accept';
    const next = await startServer(env);
    servers.push(next);
    await until(async () => (await mailRows()).some((row) => row.status === 'sent'), 'the next instance to send');
    expect(await mailRows()).toEqual([{ status: 'sent', attempts: 2 }]);
    expect(sink.to(email)).toHaveLength(1);
    const token = new URL(/(http:\/\/\S+verify-email\?token=\S+)/.exec(sink.to(email)[0]!.text!)![1]!).searchParams.get('token');
    expect((await post(next, '/auth/verify-email', { token })).status).toBe(200);
  });
});
