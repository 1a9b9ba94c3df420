import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { PLANS } from '../../../contract/plans';
import { periodsAt } from '../../../server/domain/usageReport';
import { median, QUERY_CONNECTIONS, RACE_LEFT, RACE_QUERIES } from './options';
import { planUser, type Deployment } from './servers';
import type { Target } from './targets';

/**
 * The measurements: one run of a target with autocannon (in a worker thread, so the load
 * generator does not share the in-process servers' event loop), the preflight, the race of 300
 * queries against 100 left, and the disk's fsync latency.
 */

export interface Sample {
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

/**
 * Starts each of a query target's connections at its own user. With workers, autocannon takes
 * setupClient as a module's path, which its types do not know.
 */
const SPREAD_CLIENTS = path.join(__dirname, 'spreadClients.cjs') as unknown as autocannon.Options['setupClient'];

/**
 * Autocannon takes several URLs and gives its connections to them in turn (connection i to URL
 * i mod n; its README), which its types do not know.
 */
const toUrls = (url: string | string[]) => url as string;

/** One request per target (and instance) before measuring: a wrong token or route must stop the run, not skew it. */
export async function preflight(target: Target): Promise<void> {
  const urls = [target.url].flat();
  for (const url of urls) {
    const res = await fetch(url, { method: target.method, headers: target.headers, body: target.body });
    const text = await res.text();
    if (!res.ok) throw new Error(`preflight of "${target.name}" at ${url} failed: ${res.status} ${text.slice(0, 200)}`);
  }
  const problem = await target.verify?.({ ok: urls.length, sent: urls.length, notOk: 0 });
  if (problem) throw new Error(`count check of "${target.name}" after its preflight: ${problem}`);
}

export async function measure(target: Target, durationS: number): Promise<Sample> {
  await target.beforeRun?.();
  const result = await autocannon({
    url: toUrls(target.url),
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
 * 300 queries at once (100 connections, spread over the deployment's instances in turn) from a
 * Professional user with 100 of the month's queries left; answers how many were admitted.
 */
export async function race(deployment: Deployment): Promise<number> {
  const user = await planUser(deployment, 'professional');
  const limit = PLANS.find((plan) => plan.id === 'professional')!.limits.monthly_queries;
  const used = limit - RACE_LEFT;
  await deployment.db
    .insertInto('usage_months')
    .values({ user_id: user.userId, month: periodsAt(Date.now()).month, queries: used, settled: used, processing_ms: 0 })
    .execute();
  const result = await autocannon({
    url: toUrls(deployment.urls.map((url) => `${url}/api/v1/query`)),
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
    body: JSON.stringify({ task: 'ask', prompt: 'How many queries are left?' }),
    connections: QUERY_CONNECTIONS,
    amount: RACE_QUERIES,
    workers: 1,
  });
  return result['2xx'];
}

/**
 * The disk's fsync latency where the SQLite databases live (their durable writes wait for it, as
 * PostgreSQL's commits do for its WAL): 200 rewrites of one 4 KiB block, each synced; median and p99 in ms.
 */
export function fsyncLatency(dir: string): string {
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
  return `median ${median(times).toFixed(2)} ms, p99 ${times[Math.ceil(times.length * 0.99) - 1]!.toFixed(2)} ms`;
}
