/**
 * API throughput benchmark (a report, not a test): `npm run bench:api`.
 *
 * Measures, with autocannon, requests per second and p99 latency of
 *   - a bare Fastify app answering `GET /hello` (the baseline),
 *   - `GET /api/v1/health` and `GET /api/v1/users/me` of the real app on SQLite,
 *   - `GET /api/v1/users/me` of the real app on PostgreSQL,
 *   - successful `POST /api/v1/auth/login/email` (argon2id, slow by design).
 *
 * Absolute numbers depend on the machine and on whatever else it is doing, so every target is
 * reported as a ratio to the baseline measured in the same run. The targets are measured in
 * interleaved rounds (order alternating) and each reports its median over the rounds, so a noisy
 * moment hits every target alike instead of one of them.
 *
 * All servers run in this process on its main thread; autocannon runs in a worker thread so the
 * load generator does not share the servers' event loop.
 *
 * Knobs: BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per target per round, default 3).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';

const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const DURATION_S = positiveInt('BENCH_DURATION', 3);
const WARMUP_S = 1;
const GET_CONNECTIONS = 50;
const LOGIN_CONNECTIONS = 8;

const ACCOUNT = {
  email: 'bench@example.com',
  password: 'Bench-secret-2026',
  full_name: 'Bench User',
  username: 'bench_user',
};

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Minimum ratio to the baseline; null for report-only targets and for the baseline itself. */
  minRatio: number | null;
}

interface Sample {
  /** 2xx responses per second. */
  rps: number;
  p99Ms: number;
  /** Responses that were not 2xx, plus connection errors and timeouts. */
  failures: number;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return value;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Resources to release at the end, newest first; every one is tried even if another fails. */
class Cleanup {
  private readonly steps: Array<{ what: string; run: () => Promise<void> }> = [];

  add(what: string, run: () => Promise<void>): void {
    this.steps.push({ what, run });
  }

  async runAll(): Promise<void> {
    for (const step of [...this.steps].reverse()) {
      try {
        await step.run();
      } catch (error) {
        log(`cleanup: ${step.what} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.steps.length = 0;
  }
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

async function startBaseline(cleanup: Cleanup): Promise<string> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  cleanup.add('baseline app', () => app.close());
  return listen(app);
}

/** The real app on SQLite (no `databaseUrl`) or PostgreSQL, with its own temp data dir. */
async function startRealApp(cleanup: Cleanup, tmpRoot: string, name: string, databaseUrl?: string): Promise<string> {
  const dataDir = path.join(tmpRoot, name);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const app = await buildApp({ config });
  cleanup.add(`${name} app`, () => app.close());
  return listen(app);
}

async function registerAccount(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ACCOUNT),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`register at ${baseUrl} failed: ${res.status} ${text}`);
  const body = JSON.parse(text) as { access_token?: unknown };
  if (typeof body.access_token !== 'string') throw new Error(`register at ${baseUrl} answered no access_token`);
  return body.access_token;
}

/** One request per target before measuring: a wrong token or route must stop the run, not skew it. */
async function preflight(target: Target): Promise<void> {
  const res = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await res.text();
  if (!res.ok) throw new Error(`preflight of "${target.name}" failed: ${res.status} ${text.slice(0, 200)}`);
}

async function measure(target: Target, durationS: number): Promise<Sample> {
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: target.connections,
    duration: durationS,
    // The load generator gets its own thread (and core), away from the servers' event loop.
    workers: 1,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  return { rps: result['2xx'] / result.duration, p99Ms: result.latency.p99, failures };
}

function formatRow(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

function printReport(targets: Target[], samples: Map<Target, Sample[]>): void {
  const baseline = targets[0]!;
  const baselineRps = median(samples.get(baseline)!.map((s) => s.rps));
  const header = ['target', 'median req/s', 'p99 ms', 'ratio', 'target ratio', 'result'];
  const rows = targets.map((target) => {
    const runs = samples.get(target)!;
    const rps = median(runs.map((s) => s.rps));
    const ratio = rps / baselineRps;
    const isBaseline = target === baseline;
    const verdict = isBaseline ? 'baseline' : target.minRatio === null ? 'report' : ratio >= target.minRatio ? 'PASS' : 'BELOW';
    return [
      target.name,
      rps.toFixed(rps < 100 ? 1 : 0),
      median(runs.map((s) => s.p99Ms)).toFixed(0),
      ratio.toFixed(3),
      isBaseline ? '-' : target.minRatio === null ? 'none' : `>= ${target.minRatio.toFixed(2)}`,
      verdict,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  console.log('');
  console.log(`API benchmark: ${ROUNDS} interleaved rounds x ${DURATION_S} s per target, median over rounds`);
  console.log(formatRow(header, widths));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(formatRow(row, widths));
  console.log('');
  console.log('req/s per round:');
  for (const target of targets) {
    const runs = samples.get(target)!;
    const failures = runs.reduce((sum, s) => sum + s.failures, 0);
    const perRound = runs.map((s) => s.rps.toFixed(s.rps < 100 ? 1 : 0)).join(', ');
    console.log(`  ${target.name}: ${perRound}${failures > 0 ? `  (${failures} non-2xx/errors!)` : ''}`);
  }
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-bench-'));
  cleanup.add('temp dir', async () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
  try {
    log('starting servers…');
    const baselineUrl = await startBaseline(cleanup);
    const sqliteUrl = await startRealApp(cleanup, tmpRoot, 'sqlite');
    const pgDatabase: TestDatabase = await createTestDatabase();
    // Added before the PG app, so it runs after the app (and its pool) has closed.
    cleanup.add('PostgreSQL database', () => pgDatabase.drop());
    const pgUrl = await startRealApp(cleanup, tmpRoot, 'postgres', pgDatabase.url);

    const sqliteToken = await registerAccount(sqliteUrl);
    const pgToken = await registerAccount(pgUrl);

    const targets: Target[] = [
      { name: 'baseline GET /hello', url: `${baselineUrl}/hello`, method: 'GET', connections: GET_CONNECTIONS, minRatio: null },
      { name: 'health (SQLite)', url: `${sqliteUrl}/api/v1/health`, method: 'GET', connections: GET_CONNECTIONS, minRatio: 0.85 },
      {
        name: 'users/me (SQLite)',
        url: `${sqliteUrl}/api/v1/users/me`,
        method: 'GET',
        headers: { authorization: `Bearer ${sqliteToken}` },
        connections: GET_CONNECTIONS,
        minRatio: 0.5,
      },
      {
        name: 'users/me (PostgreSQL)',
        url: `${pgUrl}/api/v1/users/me`,
        method: 'GET',
        headers: { authorization: `Bearer ${pgToken}` },
        connections: GET_CONNECTIONS,
        minRatio: 0.25,
      },
      {
        name: 'login (SQLite, argon2id)',
        url: `${sqliteUrl}/api/v1/auth/login/email`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ACCOUNT.email, password: ACCOUNT.password }),
        connections: LOGIN_CONNECTIONS,
        minRatio: null,
      },
    ];

    for (const target of targets) await preflight(target);
    log(`warming up (${WARMUP_S} s per target)…`);
    for (const target of targets) await measure(target, WARMUP_S);

    const samples = new Map<Target, Sample[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const sample = await measure(target, DURATION_S);
        samples.get(target)!.push(sample);
        log(`round ${round + 1}/${ROUNDS}  ${target.name.padEnd(26)} ${sample.rps.toFixed(0).padStart(7)} req/s  p99 ${sample.p99Ms} ms`);
      }
    }
    printReport(targets, samples);
  } finally {
    await cleanup.runAll();
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    console.error('benchmark crashed:', error);
    process.exit(1);
  },
);
