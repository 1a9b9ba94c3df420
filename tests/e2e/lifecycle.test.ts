import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../helpers/server';

jest.setTimeout(60_000);

const account = { email: 'shutdown@example.com', password: 'Graceful-exit-2026', full_name: 'Shut Down', username: 'shut_down' };

describe('server lifecycle', () => {
  it('creates the SQLite database under DATA_DIR, and on SIGTERM answers all 100 requests in flight in full, then exits 0', async () => {
    const server = await startServer({ LOG_LEVEL: 'info' });
    expect(fs.existsSync(path.join(server.dataDir, 'sheetmind.db'))).toBe(true);
    const json = { 'content-type': 'application/json' };
    const created = await fetch(`${server.baseUrl}/api/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) });
    expect(created.status).toBe(201);

    // Sign-ins hash a password each (tens of ms on the thread pool), so most of the 100 are still
    // being worked on when the signal arrives, right after the server has received the last one.
    const login = JSON.stringify({ email: account.email, password: account.password });
    let answered = 0;
    const inFlight = Array.from({ length: 100 }, () =>
      fetch(`${server.baseUrl}/api/v1/auth/login/email`, { method: 'POST', headers: json, body: login }).then(async (r) => {
        answered += 1;
        return { status: r.status, body: (await r.json()) as { access_token?: string } };
      }),
    );
    const received = () => server.output().split('\n').filter((line) => line.includes('"incoming request"') && line.includes('/auth/login/email')).length;
    while (received() < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    const answeredBeforeSignal = answered;
    const exit = server.stop('SIGTERM');
    const answers = await Promise.all(inFlight);
    await expect(exit).resolves.toBe(0);
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers.every((a) => typeof a.body.access_token === 'string')).toBe(true);
    expect(server.output()).toContain('shutting down');
    // The signal really came while requests were being worked on.
    expect(answeredBeforeSignal).toBeLessThan(100);
  });
});
