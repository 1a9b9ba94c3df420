import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startHealthPort, STALLED_AFTER_MS, type HealthPort } from '../../server/healthPort';
import { apiSecurityHeaders } from '../../server/plugins/security';
import type { HealthBody, InstanceHealth } from '../../server/routes/health';
import { freePort, startServer } from '../helpers/server';
import { ENGINES, useTestApp } from '../helpers/testApp';

/**
 * The liveness check on `HEALTH_PORT` (decisions: `GET /api/v1/health` answers from memory in
 * milliseconds under any load): the app port's answer, from a thread of its own, which goes on
 * answering while the app's event loop is held, and calls the app stuck once it has been held for 5 s.
 */

jest.setTimeout(60_000);

const TIMEOUTS = { keepAliveTimeoutMs: 5_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 };

function openPort(health: InstanceHealth): Promise<HealthPort> {
  return startHealthPort(health, { host: '127.0.0.1', port: 0, headers: apiSecurityHeaders(false), ...TIMEOUTS });
}

/** Headers that differ per answer, left out of comparisons. */
const VARYING = ['date', 'connection', 'keep-alive'];

function lasting(headers: Iterable<[string, string]>): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !VARYING.includes(name)));
}

describe.each(ENGINES)('the health port on %s', (engine) => {
  const ctx = useTestApp(engine);
  let port: HealthPort;
  let base: string;
  beforeAll(async () => {
    port = await openPort(ctx.app.health);
    base = `http://127.0.0.1:${port.port}`;
  });
  afterAll(() => port?.close());

  it('answers GET /api/v1/health with the status, headers and body the app port answers', async () => {
    const own = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' });
    const res = await fetch(`${base}/api/v1/health`);
    expect(res.status).toBe(own.statusCode);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'ok', database: 'ok', engine, mail: 'ok' });
    expect(text).toBe(own.body);
    expect(lasting(res.headers)).toEqual(lasting(Object.entries(own.headers).map(([name, value]) => [name, String(value)])));
  });

  it('answers HEAD without a body, and 404 in the API error shape for anything else', async () => {
    const head = await fetch(`${base}/api/v1/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const [method, url] of [['GET', '/api/v1/health/ready'], ['POST', '/api/v1/health'], ['GET', '/']]) {
      const res = await fetch(`${base}${url}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'This port answers GET /api/v1/health only.' } });
    }
  });
});

/** An instance health the test sets, with its probes counted. */
function settableHealth(body: HealthBody, probedAgoMs: number) {
  const state = { body, probedAt: Date.now() - probedAgoMs, probes: 0 };
  const health: InstanceHealth = {
    answer: () => state.body,
    probedAt: () => state.probedAt,
    probe: async () => {
      state.probes += 1;
      state.probedAt = Date.now();
      return true;
    },
    refreshIfStale: () => undefined,
  };
  return { state, health };
}

describe('the health port and the app thread', () => {
  it('follows the app thread answer within a second, and asks it for a fresh database probe when the last is over 5 s old, once', async () => {
    const ok: HealthBody = { status: 'ok', database: 'ok', engine: 'sqlite', mail: 'ok' };
    const { state, health } = settableHealth(ok, 6_000);
    const port = await openPort(health);
    try {
      const url = `http://127.0.0.1:${port.port}/api/v1/health`;
      expect(await (await fetch(url)).json()).toEqual(ok);
      expect(await (await fetch(url)).json()).toEqual(ok);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(state.probes).toBe(1);

      state.body = { status: 'degraded', database: 'unreachable', engine: 'sqlite', mail: 'degraded' };
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(state.body);
      expect(state.probes).toBe(1);
    } finally {
      await port.close();
    }
  });

  it('answers at once while the app thread is held, and 503 degraded once it has been held for 5 s; ok again when it is free', async () => {
    const ok: HealthBody = { status: 'ok', database: 'ok', engine: 'sqlite', mail: 'ok' };
    const { health } = settableHealth(ok, 0);
    const port = await openPort(health);
    // A server on this thread, as the app's port is: while the thread is held it cannot answer.
    const appPort = net.createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
    await new Promise<void>((resolve) => appPort.listen(0, '127.0.0.1', resolve));
    const appPortNumber = (appPort.address() as net.AddressInfo).port;
    // A client in a process of its own: checks the health port every 100 ms for 9 s, and the
    // app's port once, 1 s in, and prints each answer with the time it was asked and took.
    const client = spawn(
      process.execPath,
      [
        '-e',
        `
        const ask = async (url) => {
          const at = Date.now();
          try {
            const res = await fetch(url, { signal: AbortSignal.timeout(8000) });
            const body = await res.text();
            console.log(JSON.stringify({ url, at, ms: Date.now() - at, status: res.status, body }));
          } catch (error) {
            console.log(JSON.stringify({ url, at, ms: Date.now() - at, error: String(error) }));
          }
        };
        console.log(JSON.stringify({ started: Date.now() }));
        setTimeout(() => ask('http://127.0.0.1:${appPortNumber}/'), 1000);
        const timer = setInterval(() => ask('http://127.0.0.1:${port.port}/api/v1/health'), 100);
        setTimeout(() => clearInterval(timer), 9000);
        `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    client.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ended = new Promise((resolve) => client.once('exit', resolve));
    try {
      while (!output.includes('started')) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Hold this thread (the app's, here) for 6.5 s: no callback, timer or heartbeat runs meanwhile.
      const heldFrom = Date.now();
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500);
      const heldUntil = Date.now();
      await ended;
      const answers = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { url: string; at: number; ms: number; status?: number; body?: string; started?: number })
        .filter((answer) => answer.url);
      const health = answers.filter((answer) => answer.url.endsWith('/api/v1/health'));
      const whileHeld = health.filter((answer) => answer.at > heldFrom + 100 && answer.at < heldUntil - 100);
      expect(whileHeld.length).toBeGreaterThan(30);
      // Every check asked while the thread was held was answered while it was still held.
      for (const answer of whileHeld) expect(answer.at + answer.ms).toBeLessThan(heldUntil);
      // The app's port, asked 1 s in, answered only once the thread was free.
      const own = answers.find((answer) => !answer.url.endsWith('/api/v1/health'))!;
      expect(own.at + own.ms).toBeGreaterThanOrEqual(heldUntil - 50);
      // The last heartbeat came at most 0.5 s before the hold: ok up to 4.5 s into it, stuck after 5 s.
      const early = whileHeld.filter((answer) => answer.at < heldFrom + STALLED_AFTER_MS - 600);
      const late = whileHeld.filter((answer) => answer.at > heldFrom + STALLED_AFTER_MS + 100);
      expect(early.length).toBeGreaterThan(10);
      expect(late.length).toBeGreaterThan(3);
      for (const answer of early) expect([answer.status, JSON.parse(answer.body!)]).toEqual([200, ok]);
      for (const answer of late) expect([answer.status, JSON.parse(answer.body!)]).toEqual([503, { ...ok, status: 'degraded' }]);
      // Free again: the next heartbeat, within 0.5 s, makes it ok.
      const after = health.filter((answer) => answer.at > heldUntil + 700);
      expect(after.length).toBeGreaterThan(5);
      for (const answer of after) expect(answer.status).toBe(200);
    } finally {
      client.kill();
      appPort.close();
      await port.close();
    }
  });
});

describe('HEALTH_PORT on the running server', () => {
  it('answers the liveness check on both ports, and stops with the server on SIGTERM', async () => {
    const healthPort = await freePort();
    const server = await startServer({ HEALTH_PORT: String(healthPort) });
    try {
      const [onApp, onHealth] = await Promise.all([fetch(`${server.baseUrl}/api/v1/health`), fetch(`http://127.0.0.1:${healthPort}/api/v1/health`)]);
      expect(onHealth.status).toBe(200);
      expect(await onHealth.json()).toEqual(await onApp.json());
      expect(server.output()).toContain(`health check listening on port ${healthPort}`);
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${healthPort}/api/v1/health`)).rejects.toThrow();
  });

  it('stops the server with one line naming HEALTH_PORT when that port is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-health-port-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: String(await freePort()), HEALTH_PORT: String((taken.address() as net.AddressInfo).port) },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Configuration error: HEALTH_PORT: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE/)]);
    } finally {
      taken.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
