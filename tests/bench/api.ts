/**
 * API throughput benchmark (a report, not a test): `npm run bench:api`. Over 300 lines: one file for
 * every target, so that all of them are measured against the one baseline of the same run.
 *
 * Measures, with autocannon, requests per second and p99 latency of
 *   - a bare Fastify app answering `GET /hello` (the baseline),
 *   - `GET /api/v1/health` and `GET /api/v1/users/me` of the real app on SQLite,
 *   - `GET /api/v1/users/me` of the real app on PostgreSQL,
 *   - successful `POST /api/v1/auth/login/email` (argon2id, slow by design),
 *   - `POST /api/v1/query` (offline provider, 100 concurrent clients) on SQLite (synchronous=FULL)
 *     and on PostgreSQL, spread over a pool of Team users.
 *
 * Every answer of a throughput target must be 2xx: any other (a 429, a 5xx, a timeout) fails the
 * bench instead of being counted; the query targets start each run with their users on a fresh
 * day, so no budget can run out during a run. The query targets also check the counts after
 * every run: each 2xx answer has exactly one ledger row, and no user is over a limit. The disk's
 * fsync latency, which bounds the durable paths, is printed beside the figures. Every round then races 300 queries (100 connections)
 * of a Professional user with 100 of the month's queries left, on each engine: exactly 100 must be
 * admitted. An over-admit makes the run exit non-zero.
 *
 * Absolute numbers depend on the machine and on whatever else it is doing, so every target is
 * reported as a ratio to the baseline measured in the same run. The targets are measured in
 * interleaved rounds (order alternating) and each reports its median over the rounds, so a noisy
 * moment hits every target alike instead of one of them.
 *
 * All servers run in this process on its main thread; autocannon runs in a worker thread so the
 * load generator does not share the servers' event loop.
 *
 * Knobs: BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per target per round, default 3),
 * BENCH_ONLY (comma-separated parts of target names, e.g. `health,users/me`: only those targets
 * and the baseline are measured, and the races run only with a query target).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { PLANS } from '../../contract/plans';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { periodsAt } from '../../server/domain/usageReport';
import { setPlan } from '../helpers/fakeAi';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { newLoopbackAddress, postJsonFrom } from '../helpers/server';

const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const DURATION_S = positiveInt('BENCH_DURATION', 3);
const WARMUP_S = 1;
const GET_CONNECTIONS = 50;
const LOGIN_CONNECTIONS = 8;
const QUERY_CONNECTIONS = 100;
/**
 * Team users the query targets take turns with. A query here takes about 170 of a Team day's
 * 200,000 tokens, so a user answers about 1,100 a day: enough users for 10,000 queries a second.
 */
const QUERY_USERS = Math.max(40, Math.ceil((WARMUP_S + ROUNDS * DURATION_S) * 10));
const QUERY_BODY = JSON.stringify({
  task: 'analyze',
  prompt: 'Summarise each column',
  data: [
    ['Region', 'Revenue', 'Units'],
    ['North', 1200.5, 31],
    ['South', 980, 24],
    ['East', 1410.25, null],
    ['West', 760, 18],
  ],
});
/**
 * Starts each of a query target's connections at its own user (see the file). With workers,
 * autocannon takes setupClient as a module's path, which its types do not know.
 */
const SPREAD_CLIENTS = path.join(__dirname, 'spreadClients.cjs') as unknown as autocannon.Options['setupClient'];
const RACE_QUERIES = 300;
const RACE_LEFT = 100;

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
  /** Requests the connections take turns with (instead of method, headers and body). */
  requests?: autocannon.Request[];
  /** Minimum ratio to the baseline; null for report-only targets and for the baseline itself. */
  minRatio: number | null;
  /** The count check after each run; answers what is wrong, or null. */
  verify?: (run: RunCounts) => Promise<string | null>;
  /** Made before each run (the query targets start their users' day afresh). */
  beforeRun?: () => Promise<void>;
}

/** What the clients of one run saw. */
interface RunCounts {
  /** 2xx answers received. */
  ok: number;
  /** Requests sent, including those still in flight when the run ended. */
  sent: number;
  /** Answers received that were not 2xx. */
  notOk: number;
}

interface Sample {
  /** 2xx responses per second. */
  rps: number;
  p99Ms: number;
  /** Responses that were not 2xx, plus connection errors and timeouts. */
  failures: number;
  /** What the failures were: 'HTTP 429', 'timeout', 'error'; with their counts. */
  failureKinds: Map<string, number>;
  /** What the target's count check found wrong, if anything. */
  problem: string | null;
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
async function startRealApp(cleanup: Cleanup, tmpRoot: string, name: string, databaseUrl?: string): Promise<{ url: string; app: FastifyInstance }> {
  const dataDir = path.join(tmpRoot, name);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const app = await buildApp({ config });
  cleanup.add(`${name} app`, () => app.close());
  return { url: await listen(app), app };
}

async function registerAccount(baseUrl: string, account: typeof ACCOUNT = ACCOUNT): Promise<{ token: string; userId: string }> {
  // From an address of its own: the bench makes more accounts than one address may sign up.
  const res = await postJsonFrom(`${baseUrl}/api/v1/auth/register`, account, newLoopbackAddress());
  const { text } = res;
  if (res.status !== 201) throw new Error(`register at ${baseUrl} failed: ${res.status} ${text}`);
  const body = JSON.parse(text) as { access_token?: unknown; user?: { id?: unknown } };
  if (typeof body.access_token !== 'string' || typeof body.user?.id !== 'string') throw new Error(`register at ${baseUrl} answered no access_token`);
  return { token: body.access_token, userId: body.user.id };
}

let accounts = 0;
/** A new user on `plan`, registered through the API and put on the plan as billing would. */
async function planUser(baseUrl: string, app: FastifyInstance, plan: 'professional' | 'team') {
  accounts += 1;
  const name = `${plan}_${accounts}`;
  const user = await registerAccount(baseUrl, { ...ACCOUNT, email: `${name}@example.com`, username: name });
  await setPlan(app.database.db, user.userId, plan, Date.now());
  return user;
}

const TEAM_DAILY_TOKENS = PLANS.find((plan) => plan.id === 'team')!.limits.dailyTokens;

/**
 * The query target of one engine: 100 connections taking turns with a pool of Team users, and
 * the count check after each run.
 */
async function queryTarget(name: string, baseUrl: string, app: FastifyInstance, minRatio: number | null): Promise<Target> {
  const users = [];
  // A few at a time: each registration hashes a password with argon2id.
  for (let i = 0; i < QUERY_USERS; i += 4) users.push(...(await Promise.all([0, 1, 2, 3].map(() => planUser(baseUrl, app, 'team')))));
  const ids = users.map((user) => user.userId);
  const { db } = app.database;
  const ledgerRows = async () =>
    Number((await db.selectFrom('usage_ledger').select((eb) => eb.fn.countAll().as('n')).where('user_id', 'in', ids).executeTakeFirstOrThrow()).n);
  const counters = async () =>
    Number((await db.selectFrom('usage_months').select((eb) => eb.fn.sum('queries').as('n')).where('user_id', 'in', ids).executeTakeFirstOrThrow()).n ?? 0);
  let counted = await ledgerRows();
  const headers = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
  return {
    name,
    url: `${baseUrl}/api/v1/query`,
    method: 'POST',
    // The preflight's request; the runs take turns with `requests`.
    headers: headers(users[0]!.token),
    body: QUERY_BODY,
    connections: QUERY_CONNECTIONS,
    requests: users.map((user) => ({
      method: 'POST',
      path: '/api/v1/query',
      headers: headers(user.token),
      body: QUERY_BODY,
    })),
    minRatio,
    // Every run starts its users on a fresh day (their usage_days rows gone, as at midnight UTC):
    // a run then cannot exhaust a daily budget however fast the server is (a user's 200,000 Team
    // tokens last about 1,100 queries, and a run spreads over QUERY_USERS users), so every answer
    // of a run is a real query and any other answer fails the bench.
    async beforeRun() {
      await db.deleteFrom('usage_days').where('user_id', 'in', ids).execute();
    },
    async verify({ ok, sent, notOk }) {
      // Queries the server was still answering when the clients stopped finish first.
      let rows = await ledgerRows();
      for (let before = -1; rows !== before; ) {
        before = rows;
        await new Promise((resolve) => setTimeout(resolve, 250));
        rows = await ledgerRows();
      }
      const added = rows - counted;
      counted = rows;
      const over = await db.selectFrom('usage_days').select('user_id').where('user_id', 'in', ids).where('tokens', '>', TEAM_DAILY_TOKENS).execute();
      const counter = await counters();
      if (counter !== rows) return `counters say ${counter} queries, the ledger ${rows}`;
      // Each answer has its row; the rest are requests cut off by the end of the run.
      if (added < ok || added > sent - notOk) return `${ok} answers (${sent - notOk} at most) but ${added} ledger rows`;
      if (over.length > 0) return `${over.length} users over the daily tokens`;
      return null;
    },
  };
}

/**
 * 300 queries at once (100 connections) from a Professional user with 100 of the month's queries
 * left; answers how many were admitted.
 */
async function race(baseUrl: string, app: FastifyInstance): Promise<number> {
  const user = await planUser(baseUrl, app, 'professional');
  const limit = PLANS.find((plan) => plan.id === 'professional')!.limits.monthlyQueries;
  const used = limit - RACE_LEFT;
  await app.database.db
    .insertInto('usage_months')
    .values({ user_id: user.userId, month: periodsAt(Date.now()).month, queries: used, settled: used, processing_ms: 0 })
    .execute();
  const result = await autocannon({
    url: `${baseUrl}/api/v1/query`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
    body: JSON.stringify({ task: 'ask', prompt: 'How many queries are left?' }),
    connections: QUERY_CONNECTIONS,
    amount: RACE_QUERIES,
    workers: 1,
  });
  return result['2xx'];
}

/** One request per target before measuring: a wrong token or route must stop the run, not skew it. */
async function preflight(target: Target): Promise<void> {
  const res = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await res.text();
  if (!res.ok) throw new Error(`preflight of "${target.name}" failed: ${res.status} ${text.slice(0, 200)}`);
  const problem = await target.verify?.({ ok: 1, sent: 1, notOk: 0 });
  if (problem) throw new Error(`count check of "${target.name}" after its preflight: ${problem}`);
}

async function measure(target: Target, durationS: number): Promise<Sample> {
  await target.beforeRun?.();
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    ...(target.requests ? { requests: target.requests, setupClient: SPREAD_CLIENTS } : {}),
    connections: target.connections,
    duration: durationS,
    // The load generator gets its own thread (and core), away from the servers' event loop.
    workers: 1,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  const failureKinds = new Map<string, number>();
  for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) if (!status.startsWith('2')) failureKinds.set(`HTTP ${status}`, count);
  if (result.timeouts > 0) failureKinds.set('timeout', result.timeouts);
  // Autocannon counts each timeout as an error as well.
  if (result.errors > result.timeouts) failureKinds.set('connection error', result.errors - result.timeouts);
  const problem = target.verify ? await target.verify({ ok: result['2xx'], sent: result.requests.sent, notOk: result.non2xx }) : null;
  return { rps: result['2xx'] / result.duration, p99Ms: result.latency.p99, failures, failureKinds, problem };
}

/**
 * The disk's fsync latency where the SQLite database lives (its durable writes wait for it, as
 * PostgreSQL's commits do for its WAL): 200 rewrites of one 4 KiB block, each synced; median and p99 in ms.
 */
function fsyncLatency(dir: string): { medianMs: number; p99Ms: number } {
  const file = path.join(dir, 'fsync-probe');
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      const start = process.hrtime.bigint();
      fs.writeSync(fd, block, 0, block.length, 0);
      fs.fsyncSync(fd);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  return { medianMs: median(times), p99Ms: times[Math.ceil(times.length * 0.99) - 1]! };
}

const formatFsync = ({ medianMs, p99Ms }: { medianMs: number; p99Ms: number }) => `median ${medianMs.toFixed(2)} ms, p99 ${p99Ms.toFixed(2)} ms`;

/** Throughput targets answer only 2xx: any other answer (a 429 of an exhausted budget, a 5xx, a timeout) fails the run. */
function printFailures(targets: Target[], samples: Map<Target, Sample[]>): boolean {
  const failed = targets.filter((target) => samples.get(target)!.some((sample) => sample.failures > 0));
  console.log(failed.length === 0 ? 'answers: PASS (every answer 2xx)' : `answers: FAIL (answers other than 2xx in: ${failed.map((t) => t.name).join(', ')})`);
  return failed.length === 0;
}

function formatRow(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

interface Races {
  name: string;
  admitted: number[];
}

/** The count checks: true when no run admitted a query it should not have. */
function printCountChecks(targets: Target[], samples: Map<Target, Sample[]>, races: Races[]): boolean {
  let clean = true;
  console.log('');
  console.log('count checks (counters = ledger rows; each 2xx has its ledger row; no user over a limit):');
  for (const target of targets.filter((t) => t.verify)) {
    const problems = samples.get(target)!.map((s) => s.problem);
    clean &&= problems.every((p) => p === null);
    console.log(`  ${target.name}: ${problems.map((p) => p ?? 'ok').join(', ')}`);
  }
  if (races.every((r) => r.admitted.length === 0)) return clean;
  console.log(`race (${RACE_QUERIES} queries at once, ${RACE_LEFT} left in the month; over-admits per round):`);
  for (const { name, admitted } of races) {
    const over = admitted.map((n) => Math.max(0, n - RACE_LEFT));
    clean &&= admitted.every((n) => n === RACE_LEFT);
    console.log(`  ${name}: admitted ${admitted.join(', ')}; over-admits ${over.join(', ')}`);
  }
  console.log(clean ? 'count checks: PASS (0 over-admits)' : 'count checks: FAIL');
  return clean;
}

function printReport(targets: Target[], samples: Map<Target, Sample[]>, fsync: { before: string; after: string }): void {
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
  // Other work on the machine slows every target, but not alike: the ratios are only comparable at similar load.
  console.log(`load average at the end: ${os.loadavg().map((n) => n.toFixed(2)).join(', ')} on ${os.availableParallelism()} cores`);
  // The durable paths (every query's ledger row) are bound by the disk: its figure beside theirs.
  console.log(`fsync latency of the disk (4 KiB): before the run ${fsync.before}; after it ${fsync.after}`);
  console.log(formatRow(header, widths));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(formatRow(row, widths));
  console.log('');
  console.log('req/s per round:');
  for (const target of targets) {
    const runs = samples.get(target)!;
    const kinds = new Map<string, number>();
    for (const [kind, count] of runs.flatMap((s) => [...s.failureKinds])) kinds.set(kind, (kinds.get(kind) ?? 0) + count);
    const failures = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
    const perRound = runs.map((s) => s.rps.toFixed(s.rps < 100 ? 1 : 0)).join(', ');
    console.log(`  ${target.name}: ${perRound}${failures ? `  (failed: ${failures}!)` : ''}`);
  }
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-bench-'));
  cleanup.add('temp dir', async () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
  try {
    const fsyncBefore = formatFsync(fsyncLatency(tmpRoot));
    log(`fsync latency of the disk: ${fsyncBefore}`);
    log('starting servers…');
    const baselineUrl = await startBaseline(cleanup);
    const sqlite = await startRealApp(cleanup, tmpRoot, 'sqlite');
    const sqliteUrl = sqlite.url;
    const pgDatabase: TestDatabase = await createTestDatabase();
    // Added before the PG app, so it runs after the app (and its pool) has closed.
    cleanup.add('PostgreSQL database', () => pgDatabase.drop());
    const postgres = await startRealApp(cleanup, tmpRoot, 'postgres', pgDatabase.url);
    const pgUrl = postgres.url;

    const sqliteToken = (await registerAccount(sqliteUrl)).token;
    const pgToken = (await registerAccount(pgUrl)).token;
    log('registering the query users…');

    const allTargets: Target[] = [
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
      await queryTarget('query (SQLite)', sqliteUrl, sqlite.app, 0.3),
      await queryTarget('query (PostgreSQL)', pgUrl, postgres.app, null),
    ];
    const targets = [...allTargets];
    const only = (process.env.BENCH_ONLY ?? '').split(',').map((part) => part.trim()).filter(Boolean);
    if (only.length > 0) {
      const chosen = allTargets.filter((t, index) => index === 0 || only.some((part) => t.name.includes(part)));
      if (chosen.length === 1) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} matches no target`);
      targets.splice(0, targets.length, ...chosen);
    }
    const racing = targets.some((t) => t.name.startsWith('query'));
    const races: Races[] = [
      { name: 'SQLite', admitted: [] },
      { name: 'PostgreSQL', admitted: [] },
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
      if (!racing) continue;
      races[0]!.admitted.push(await race(sqliteUrl, sqlite.app));
      races[1]!.admitted.push(await race(pgUrl, postgres.app));
    }
    printReport(targets, samples, { before: fsyncBefore, after: formatFsync(fsyncLatency(tmpRoot)) });
    const answered = printFailures(targets, samples);
    if (!printCountChecks(targets, samples, races) || !answered) process.exitCode = 1;
  } finally {
    await cleanup.runAll();
  }
}

main().then(
  () => undefined,
  (error: unknown) => {
    console.error('benchmark crashed:', error);
    process.exit(1);
  },
);
