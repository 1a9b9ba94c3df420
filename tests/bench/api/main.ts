/**
 * API throughput benchmark (a report, not a test): `npm run bench` (`npm run bench:api`).
 *
 * Measures, with autocannon, requests per second and p99 latency of
 *   - a bare Fastify app answering `GET /hello` (the baseline),
 *   - `GET /api/v1/health` of the real app on SQLite; `GET /api/v1/users/me`, `/query/usage` and
 *     `/query/usage/daily` on SQLite and on PostgreSQL,
 *   - successful `POST /api/v1/auth/login/email` (argon2id, slow by design),
 *   - `POST /api/v1/query` (offline provider, 100 concurrent clients) on SQLite (synchronous=FULL)
 *     and on PostgreSQL, spread over a pool of Team users.
 * The bench's own users are registered through the API and given 13 months of history in SQL.
 *
 * Every answer of a throughput target must be 2xx: any other (a 429, a 5xx, a timeout) fails the
 * bench instead of being counted; the query targets start each run with their users on a fresh
 * day, so no budget can run out during a run. The query targets also check the counts after
 * every run (`targets.ts`). The disk's fsync latency, which bounds the durable paths, is printed
 * beside the figures. Every round then races 300 queries (100 connections) of a Professional user
 * with 100 of the month's queries left, on every deployment with a query target: exactly 100 must
 * be admitted. An over-admit makes the run exit non-zero.
 *
 * Absolute numbers depend on the machine and on whatever else it is doing, so every target is
 * reported as a ratio to the baseline measured in the same run. The targets are measured in
 * interleaved rounds (order alternating) and each reports its median over the rounds, so a noisy
 * moment hits every target alike instead of one of them. The servers run in this process on its
 * main thread (but for BENCH_INSTANCES's); autocannon runs in a worker thread so the load
 * generator does not share their loop.
 *
 * Two parts a run may skip for what they cost (both on by default, so `npm run bench` prints all):
 *   - BENCH_SEEDED (default 1; 0 skips it): a second database of each engine, migrated by the app and seeded in SQL
 *     (`seedSql.ts`) with BENCH_SEED_USERS users (default 100,000) and BENCH_SEED_LEDGER_ROWS
 *     ledger rows (default 10,000,000) over 13 months; the read and query targets run on it too,
 *     and a table sets each beside its empty-database twin (goal: seeded / empty >= 0.85).
 *   - BENCH_INSTANCES=N (default 2; 1 skips it): N app processes on one PostgreSQL database, the load generator
 *     giving its connections to them in turn; the query is measured on all N and on one alone, and
 *     its race runs across all N.
 *
 * Knobs: BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per target per round, default 3),
 * BENCH_ONLY (comma-separated parts of target names, e.g. `health,users/me`: only those targets
 * and the baseline are measured, a seeded target with its empty twin; the races run only with a
 * query target of their deployment).
 *
 * `npm run bench:slow` (or BENCH_SLOW_MODEL=1) runs the slow-model mode instead: the gateway while
 * thousands of queries wait on a model that takes seconds (`slowModel.ts`).
 *
 * The parts: `options.ts` (knobs), `servers.ts` (apps, processes, accounts), `seedSql.ts` and
 * `seeding.ts` (the seeded databases), `targets.ts` and `specs.ts` (what is measured, in which
 * order), `measure.ts` (autocannon, the race, fsync), `report.ts` (the printed tables),
 * `assistant.ts` (the offline assistant's explain and formula on 10,000 cells, as a ratio to analyze).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAssistant } from './assistant';
import { fsyncLatency, measure, preflight, race, type Sample } from './measure';
import { Cleanup, DURATION_S, INSTANCES, log, ONLY, ROUNDS, WARMUP_S } from './options';
import { printCountChecks, printFailures, printInstances, printReport, printSeeded, type Races, type SeededPair } from './report';
import { startBaseline } from './servers';
import { runSlowModel } from './slowModel';
import { allSpecs, choose, Deployments } from './specs';
import type { Target } from './targets';

async function main(): Promise<void> {
  // The assistant's answers are measured in this process, apart from the servers: BENCH_ONLY=assistant runs them alone.
  const assistant = ONLY.length === 0 || ONLY.some((part) => 'assistant'.includes(part));
  if (assistant && ONLY.length > 0 && ONLY.every((part) => 'assistant'.includes(part))) return benchAssistant();
  const cleanup = new Cleanup();
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-bench-'));
  cleanup.add('temp dir', async () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
  if (process.argv.includes('--slow-model') || process.env.BENCH_SLOW_MODEL === '1') {
    try {
      if (!(await runSlowModel(cleanup, tmpRoot))) process.exitCode = 1;
    } finally {
      await cleanup.runAll();
    }
    return;
  }
  try {
    const fsyncBefore = fsyncLatency(tmpRoot);
    log(`fsync latency of the disk: ${fsyncBefore}`);
    log('starting servers, registering the bench users…');
    const deployments = new Deployments(cleanup, tmpRoot);
    const chosen = choose(allSpecs(deployments, await startBaseline(cleanup)), ONLY);
    const targets: Target[] = [];
    for (const spec of chosen) targets.push(await spec.make());
    const byName = new Map(targets.map((target) => [target.name, target]));
    const pairs: SeededPair[] = chosen.flatMap((spec) => (spec.emptyTwin ? [{ empty: byName.get(spec.emptyTwin)!, seeded: byName.get(spec.name)! }] : []));
    const racing = chosen.flatMap((spec) => (spec.race ? [spec.race] : []));
    const races: Races[] = racing.map(({ name }) => ({ name, admitted: [] }));

    for (const target of targets) await preflight(target);
    log(`warming up (${WARMUP_S} s per target)…`);
    for (const target of targets) await measure(target, WARMUP_S);

    const samples = new Map<Target, Sample[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const sample = await measure(target, DURATION_S);
        samples.get(target)!.push(sample);
        log(`round ${round + 1}/${ROUNDS}  ${target.name.padEnd(34)} ${sample.rps.toFixed(0).padStart(7)} req/s  p99 ${sample.p99Ms} ms`);
      }
      for (const [i, { deployment }] of racing.entries()) races[i]!.admitted.push(await race(await deployment()));
    }
    printReport(targets, samples, { before: fsyncBefore, after: fsyncLatency(tmpRoot) });
    printInstances(byName.get('query (1 PostgreSQL process)'), byName.get(`query (${INSTANCES} PostgreSQL processes)`), INSTANCES, samples);
    printSeeded(pairs, samples, targets[0]!, deployments.seeding);
    if (assistant) benchAssistant();
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
