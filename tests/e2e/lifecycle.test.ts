import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer } from '../helpers/server';

jest.setTimeout(60_000);

const account = { email: 'shutdown@example.com', password: 'Graceful-exit-2026', full_name: 'Shut Down', username: 'shut_down' };

interface Answer {
  status: number;
  body: { full_name?: string };
}

/** Sends a profile update's headers at once and holds its body back until `finish` is called. */
function heldUpdate(baseUrl: string, token: string, body: string) {
  const request = http.request(`${baseUrl}/api/v1/users/me`, {
    method: 'PUT',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
    });
    request.on('error', reject);
  });
  request.flushHeaders();
  return { answer, finish: () => request.end(body) };
}

describe('server lifecycle', () => {
  it('creates the SQLite database under DATA_DIR, and on SIGTERM answers all 100 requests in flight in full, then exits 0', async () => {
    const server = await startServer({ LOG_LEVEL: 'info' });
    expect(fs.existsSync(path.join(server.dataDir, 'sheetmind.db'))).toBe(true);
    const created = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    expect(created.status).toBe(201);
    const { access_token: token } = (await created.json()) as { access_token: string };

    // The 100 writes are in flight for certain when the signal comes: the server has received
    // each one's headers, and none of their bodies has been sent yet. (Not sign-ins: 100 at once
    // for one account are, rightly, refused by the guessing limits but for ten.)
    const updates = Array.from({ length: 100 }, (_, i) => heldUpdate(server.baseUrl, token, JSON.stringify({ full_name: `Shut Down ${i}` })));
    const logged = (text: string) => server.output().split('\n').filter((line) => line.includes(text));
    while (logged('"incoming request"').filter((line) => line.includes('/users/me')).length < 100) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const exit = server.stop('SIGTERM');
    while (logged('shutting down').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    for (const update of updates) update.finish();
    const answers = await Promise.all(updates.map((update) => update.answer));
    await expect(exit).resolves.toBe(0);
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers.map((a) => a.body.full_name)).toEqual(Array.from({ length: 100 }, (_, i) => `Shut Down ${i}`));
  });
});
