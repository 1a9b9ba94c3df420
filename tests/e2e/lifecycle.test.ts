import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer } from '../helpers/server';

jest.setTimeout(60_000);

const account = { email: 'shutdown@example.com', password: 'Graceful-exit-2026', full_name: 'Shut Down', username: 'shut_down' };

interface Answer {
  status: number;
  body: { access_token?: string };
}

/** Sends a sign-in's headers at once and holds its body back until `finish` is called. */
function heldSignIn(baseUrl: string, body: string) {
  const request = http.request(`${baseUrl}/api/v1/auth/login/email`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
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

    // The 100 sign-ins are in flight for certain when the signal comes: the server has received
    // each one's headers, and none of their bodies has been sent yet.
    const signIns = Array.from({ length: 100 }, () => heldSignIn(server.baseUrl, JSON.stringify({ email: account.email, password: account.password })));
    const logged = (text: string) => server.output().split('\n').filter((line) => line.includes(text));
    while (logged('"incoming request"').filter((line) => line.includes('/auth/login/email')).length < 100) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const exit = server.stop('SIGTERM');
    while (logged('shutting down').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    for (const signIn of signIns) signIn.finish();
    const answers = await Promise.all(signIns.map((signIn) => signIn.answer));
    await expect(exit).resolves.toBe(0);
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers.every((a) => typeof a.body.access_token === 'string')).toBe(true);
  });
});
