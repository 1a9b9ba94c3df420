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
 * main thread; autocannon runs in a worker thread so the load generator does not share their loop.
 *
 * Two modes, off by default for what they cost:
 *   - BENCH_SEEDED=1: a second database of each engine, migrated by the app and seeded in SQL
 *     (`seedSql.ts`) with BENCH_SEED_USERS users (default 100,000) and BENCH_SEED_LEDGER_ROWS
 *     ledger rows (default 10,000,000) over 13 months; the read and query targets run on it too,
 *     and a table sets each beside its empty-database twin (goal: seeded / empty >= 0.85).
 *   - BENCH_INSTANCES=N (N >= 2): N app processes on one PostgreSQL database, the load generator
 *     giving its connections to them in turn; the query is measured on all N and on one alone, and
 *     its race runs across all N.
 *
 * Knobs: BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per target per round, default 3),
 * BENCH_ONLY (comma-separated parts of target names, e.g. `health,users/me`: only those targets
 * and the baseline are measured, a seeded target with its empty twin; the races run only with a
 * query target of their deployment).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Engine } from '../../../server/db/types';
import { fsyncLatency, measure, preflight, race, type Sample } from './measure';
import { Cleanup, DURATION_S, GET_CONNECTIONS, INSTANCES, LOGIN_CONNECTIONS, log, ONLY, ROUNDS, SEED_LEDGER_ROWS, SEED_USERS, SEEDED, WARMUP_S } from './options';
import { printCountChecks, printFailures, printInstances, printReport, printSeeded, type Races, type SeededPair } from './report';
import { addHistory, engineName, formatBytes } from './seeding';
import { ACCOUNT, newPostgresDatabase, registerAccount, startApp, startBaseline, startProcesses, startSeededApp, type Deployment } from './servers';
import { getTarget, queryTarget, type Target } from './targets';

/** A target by name, made only when chosen: making one may register users or seed a database. */
interface Spec {
  name: string;
  make: () => Promise<Target>;
  /** The empty database's target a seeded one is set beside (chosen with it). */
  emptyTwin?: string;
  /** The race of this query target's deployment. */
  race?: { name: string; deployment: () => Promise<Deployment> };
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-bench-'));
  cleanup.add('temp dir', async () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
  try {
    const fsyncBefore = fsyncLatency(tmpRoot);
    log(`fsync latency of the disk: ${fsyncBefore}`);
    log('starting servers…');
    const baselineUrl = await startBaseline(cleanup);
    const seeding: string[] = [];
    const apps: Record<Engine, () => Promise<Deployment>> = {
      sqlite: once(() => startApp(cleanup, tmpRoot, 'sqlite')),
      postgres: once(async () => startApp(cleanup, tmpRoot, 'postgres', await newPostgresDatabase(cleanup))),
    };
    const seededApp = (engine: Engine) =>
      once(async () => {
        const { deployment, seeded } = await startSeededApp(cleanup, tmpRoot, engine, Date.now());
        const size = `${SEED_USERS.toLocaleString('en')} users, ${SEED_LEDGER_ROWS.toLocaleString('en')} ledger rows over 13 months`;
        seeding.push(`${engineName(engine)}: ${size}, seeded in ${seeded.seconds.toFixed(1)} s, ${formatBytes(seeded.bytes)} on disk`);
        return deployment;
      });
    const processes = once(() => startProcesses(cleanup, tmpRoot, INSTANCES));
    // The account of the GET targets, one per deployment, with history like every bench user's.
    const tokens = new Map<Deployment, Promise<string>>();
    const tokenOf = (deployment: Deployment) => {
      if (!tokens.has(deployment)) {
        const made = registerAccount(deployment.urls[0]!).then(async ({ token, userId }) => {
          await addHistory(deployment.db, deployment.engine, [userId]);
          return token;
        });
        tokens.set(deployment, made);
      }
      return tokens.get(deployment)!;
    };
    const read = (name: string, deployment: () => Promise<Deployment>, route: string, minRatio: number | null): Spec['make'] => async () => {
      const made = await deployment();
      return getTarget(name, made, route, await tokenOf(made), minRatio);
    };
    const query = (name: string, deployment: () => Promise<Deployment>, minRatio: number | null): Spec => ({
      name,
      make: async () => queryTarget(name, await deployment(), minRatio),
      race: { name: name.replace(/^query \((.*)\)$/, '$1'), deployment },
    });
    /** The read and query targets of one engine; the seeded ones name their empty twins. */
    const engineSpecs = (engine: Engine, seeded: boolean): Spec[] => {
      const deployment = seeded ? seededApp(engine) : apps[engine];
      const label = `${engineName(engine)}${seeded ? ', seeded' : ''}`;
      const ratio = (empty: number | null) => (seeded ? null : empty);
      const reads: Array<[string, string, number | null]> = [
        ['users/me', 'users/me', engine === 'sqlite' ? 0.5 : 0.25],
        ['usage', 'query/usage', null],
        ['usage/daily', 'query/usage/daily', null],
      ];
      const twin = (kind: string) => (seeded ? { emptyTwin: `${kind} (${engineName(engine)})` } : {});
      return [
        ...reads.map(([kind, route, minRatio]) => ({ name: `${kind} (${label})`, make: read(`${kind} (${label})`, deployment, route, ratio(minRatio)), ...twin(kind) })),
        { ...query(`query (${label})`, deployment, ratio(engine === 'sqlite' ? 0.3 : null)), ...twin('query') },
      ];
    };
    const [sqliteReads, pgReads] = [engineSpecs('sqlite', false), engineSpecs('postgres', false)];
    const onlyOne = once(async () => ({ ...(await processes()), urls: [(await processes()).urls[0]!] }));
    const specs: Spec[] = [
      { name: 'baseline GET /hello', make: async () => ({ name: 'baseline GET /hello', url: `${baselineUrl}/hello`, method: 'GET', connections: GET_CONNECTIONS, minRatio: null }) },
      {
        name: 'health (SQLite)',
        make: async () => ({ name: 'health (SQLite)', url: `${(await apps.sqlite()).urls[0]}/api/v1/health`, method: 'GET', connections: GET_CONNECTIONS, minRatio: 0.85 }),
      },
      // users/me, usage and usage/daily of both engines, then login, then the two queries.
      ...[0, 1, 2].flatMap((i) => [sqliteReads[i]!, pgReads[i]!]),
      {
        name: 'login (SQLite, argon2id)',
        make: async () => {
          const sqlite = await apps.sqlite();
          await tokenOf(sqlite);
          const body = JSON.stringify({ email: ACCOUNT.email, password: ACCOUNT.password });
          const url = `${sqlite.urls[0]}/api/v1/auth/login/email`;
          return { name: 'login (SQLite, argon2id)', url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: LOGIN_CONNECTIONS, minRatio: null };
        },
      },
      sqliteReads[3]!,
      pgReads[3]!,
      ...(INSTANCES > 1
        ? [
            { name: 'query (PostgreSQL, 1 process)', make: async () => queryTarget('query (PostgreSQL, 1 process)', await onlyOne(), null) },
            query(`query (PostgreSQL, ${INSTANCES} processes)`, processes, null),
          ]
        : []),
      ...(SEEDED ? [...engineSpecs('sqlite', true), ...engineSpecs('postgres', true)] : []),
    ];

    const matched = specs.filter((spec, index) => index === 0 || ONLY.length === 0 || ONLY.some((part) => spec.name.includes(part)));
    if (matched.length === 1) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} matches no target`);
    const twins = new Set(matched.map((spec) => spec.emptyTwin).filter(Boolean));
    const chosen = specs.filter((spec) => matched.includes(spec) || twins.has(spec.name));
    log('registering the bench users…');
    const targets: Target[] = [];
    for (const spec of chosen) targets.push(await spec.make());
    const byName = new Map(targets.map((target) => [target.name, target]));
    const pairs: SeededPair[] = chosen.filter((spec) => spec.emptyTwin).map((spec) => ({ empty: byName.get(spec.emptyTwin!)!, seeded: byName.get(spec.name)! }));
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
    printInstances(byName.get('query (PostgreSQL, 1 process)'), byName.get(`query (PostgreSQL, ${INSTANCES} processes)`), INSTANCES, samples);
    printSeeded(pairs, samples, targets[0]!, seeding);
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
