import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { openDatabase, type DatabaseHandle } from '../../../server/db/database';
import { periodsAt } from '../../../server/domain/usageReport';
import { freePort, newLoopbackAddress, startServer, type RunningServer } from '../../helpers/server';
import { setPlan } from '../../helpers/fakeAi';
import { log, loopLateness, median, positiveInt, ROUNDS, type Cleanup } from './options';
import { ACCOUNT, newPostgresDatabase, registerAccount } from './servers';

/**
 * The slow-model mode of the API bench (`npm run bench:slow`, or `BENCH_SLOW_MODEL=1 npm run bench`):
 * the gateway while thousands of queries wait on a model that takes seconds, as a real one does.
 *
 * A local fake OpenAI-compatible model (`fakeModel.ts`, a process of its own on 127.0.0.1) answers
 * in BENCH_MODEL_DELAY_MS on average (default 2,000; a streamed answer is written over that time),
 * each query's time drawn evenly within ± BENCH_MODEL_JITTER of it (default 0.25: 1.5 to 2.5 s), as a
 * real model's time varies with its answer: with one fixed time, queries slowed together once (the
 * cold start) come back together every delay and arrive as a wave, run after run. The app runs
 * as its own process (`server/main.ts`, as in production) on SQLite or PostgreSQL, with 200 Team
 * users. Closed-loop clients in this process hold BENCH_IN_FLIGHT queries in flight (default
 * 1000,5000), spread over 50 loopback addresses, for BENCH_SLOW_DURATION seconds (default 20). They
 * start one after another over one model delay, then a warm-up of one and a half model delays is
 * not measured. Each run reports:
 *   - answers/s, and as a ratio to the ideal (in flight ÷ delay): goal ≥ 0.9 at 1,000;
 *   - the gateway's overhead on each answer (its time less the model's for that query), p50 and p99: goal p99 ≤ 100 ms at 1,000;
 *   - `GET /api/v1/health` every 100 ms meanwhile (from a process of its own, `healthProbe.ts`), p50 and p99: goal p99 ≤ 50 ms;
 *     on the app's port, and on `HEALTH_PORT`, where a thread of its own answers it (server/healthPort.ts);
 *   - the app process's RSS (idle before the run, and the most during it);
 *   - the CPU time a query costs the app, the load generator and the fake model (which share the cores);
 *   - the share of the window the app's event loop (its main thread) was on a CPU, and the share it
 *     was ready but waited for one (and the same for the relay of the floor): a tail that grows with
 *     the first is the loop's own load, with the second the machine's;
 *   - the count check: each user's monthly count grew by exactly the answers they received;
 *   - for a streamed run (`Accept: text/event-stream`, at the first in-flight figure): time to first byte,
 *     and the floor: the same clients, in the same round, against a bare relay of the model's stream
 *     (`bareRelay.ts`: no session, quota, database or pacing), whose overhead is what the machine
 *     itself adds (its two cores shared with the clients and the model) and the gateway's is read against;
 *   - an abandon run (clients giving up after 500 ms, before the model answers): the queries charged
 *     must be 0, and the provider calls still open when the clients stop are reported.
 * Every round runs every engine and case once; BENCH_ROUNDS (default 3) rounds; BENCH_ENGINES and
 * BENCH_SLOW_CASES (plain,streamed,abandon) choose fewer. Only loopback
 * addresses; every loop is bounded by the run's end, every request by a 60 s timeout.
 */

const DELAY_MS = positiveInt('BENCH_MODEL_DELAY_MS', 2000);
const JITTER = (() => {
  const value = Number(process.env.BENCH_MODEL_JITTER ?? '0.25');
  if (!(value >= 0 && value <= 0.9)) throw new Error(`BENCH_MODEL_JITTER takes a share from 0 to 0.9, got "${process.env.BENCH_MODEL_JITTER}"`);
  return value;
})();
const RUN_S = positiveInt('BENCH_SLOW_DURATION', 20);
const IN_FLIGHT = (process.env.BENCH_IN_FLIGHT ?? '1000,5000').split(',').map((part) => {
  const value = Number(part.trim().replace(/_/g, ''));
  if (!Number.isInteger(value) || value < 1 || value > 20_000) throw new Error(`BENCH_IN_FLIGHT takes whole numbers from 1 to 20,000, got "${part}"`);
  return value;
});
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((part) => part.trim()) as Array<'sqlite' | 'postgres'>;
/** Which runs: `plain` at every in-flight figure, `streamed` and `abandon` at the first. */
const CASES = (process.env.BENCH_SLOW_CASES ?? 'plain,streamed,abandon').split(',').map((part) => part.trim());
const USERS = 200;
const ADDRESSES = 50;
const GIVE_UP_MS = 500;
const REQUEST_TIMEOUT_MS = 60_000;

type Kind = 'plain' | 'streamed' | 'abandon';

interface Answer {
  user: number;
  startedAt: number;
  /** The model's time for this query (the fake reads it from the prompt). */
  modelMs: number;
  endedAt: number;
  status: number;
  firstByteMs: number | null;
  /** A 200 with the whole answer (`event: done` when streamed). */
  complete: boolean;
  /** Why no answer came, when none did: the socket error's code, or `timeout`. */
  error?: string;
}

/** A process's event loop over the measured window: on a CPU, and ready but waiting for one (`mainThreadShares`). */
interface LoopShares {
  loopBusy: number;
  loopWaiting: number;
}

/** The app's figures of one run; its loop's in `LoopShares`. */
interface RunResult extends LoopShares {
  engine: string;
  kind: Kind;
  inFlight: number;
  answersPerS: number;
  ratio: number;
  overheadP50: number;
  overheadP99: number;
  ttfbP50: number | null;
  ttfbP99: number | null;
  healthP50: number;
  healthP99: number;
  /** The prober's first check, not in the percentiles (its own start-up); null when it had no answer. */
  healthFirstMs: number | null;
  /** The same check on `HEALTH_PORT`, answered by a thread of its own (server/healthPort.ts). */
  healthPortP50: number;
  healthPortP99: number;
  rssIdleMb: number;
  rssMaxMb: number;
  /** The app process's CPU time per query sent (answered or not). */
  cpuMsPerQuery: number;
  /** The same for the load generator (this process) and the fake model: the rest of the machine's two cores. */
  benchCpuMsPerQuery: number;
  /**
   * How late the load generator's own event loop ran, p99 over the measured window: an answer's
   * end is timed on that loop, so this much of the overhead's tail can be the bench's, not the app's.
   */
  benchLoopDelayP99: number;
  /** The same for the fake model, whose late pieces are counted in the overhead too. */
  modelLoopDelayP99: number;
  modelCpuMsPerQuery: number;
  /** The same for PostgreSQL's processes (its backends and writers; 0 on SQLite, which runs in the app). */
  databaseCpuMsPerQuery: number;
  /** The share of the machine's cores busy during the run, whoever used them. */
  machineBusy: number;
  countsExact: boolean;
  charged: number;
  failures: string;
  openCallsAtEnd: number;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** The fields of /proc/<pid>/stat after the name: the 3rd field of stat is the first here. */
const statFields = (pid: number | string) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
/** Milliseconds of two clock-tick fields of stat (100 ticks a second), by their index in `statFields`. */
const tickMs = (fields: string[], at: number) => ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / 100;

/** CPU milliseconds (user and system) the process has used: a load-independent cost, on a machine others share. */
function cpuMs(pid: number): number {
  // utime and stime are the 14th and 15th fields of stat.
  return tickMs(statFields(pid), 11);
}

/**
 * CPU milliseconds of PostgreSQL on the machine (the bench's database is the only one in use): its
 * live processes', and those of the backends that have ended, which the postmaster (the one whose
 * parent is not PostgreSQL) holds as its reaped children's time.
 */
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const fields = statFields(pid);
      // utime, stime, cutime, cstime are the 14th to 17th fields of stat; the parent is the 4th.
      total += tickMs(fields, 11);
      if (fs.readFileSync(`/proc/${fields[1]}/comm`, 'utf8').trim() !== 'postgres') total += tickMs(fields, 13);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** The machine's busy and total CPU ticks since boot, from /proc/stat's first line. */
function machineTicks(): { busy: number; total: number } {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, tick) => sum + tick, 0);
  // idle and iowait are the 4th and 5th.
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

/**
 * Nanoseconds the process's main thread (its event loop) has spent on a CPU and waiting in the
 * run queue for one, from /proc/<pid>/schedstat (that of the thread whose id is the pid); null
 * where the kernel does not keep them.
 */
function mainThreadNs(pid: number): { ran: number; waited: number } | null {
  try {
    const [ran, waited] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return Number.isFinite(ran) && Number.isFinite(waited) ? { ran: ran!, waited: waited! } : null;
  } catch {
    return null;
  }
}

/**
 * The share of the measured window (`warm` to `end`) the process's main thread was on a CPU, and
 * the share it was ready but waited for one (two cores shared with the clients and the model):
 * the loop's own load, which a query's tail waits behind, apart from the machine's.
 */
function mainThreadShares(pid: number, warm: number, end: number) {
  const shares = { busy: Number.NaN, waiting: Number.NaN };
  let start: ReturnType<typeof mainThreadNs> = null;
  let startedAt = 0;
  const first = setTimeout(() => {
    start = mainThreadNs(pid);
    startedAt = performance.now();
  }, warm - performance.now());
  const last = setTimeout(() => {
    const now = mainThreadNs(pid);
    const wallNs = (performance.now() - startedAt) * 1e6;
    if (start === null || now === null || wallNs <= 0) return;
    shares.busy = (now.ran - start.ran) / wallNs;
    shares.waiting = (now.waited - start.waited) / wallNs;
  }, end - performance.now());
  return {
    shares,
    cancel() {
      clearTimeout(first);
      clearTimeout(last);
    },
  };
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The fake model process: its base URL, and its request counts when asked. */
interface ModelCounts {
  received: number;
  aborted: number;
  open: number;
  /** How late the model's event loop ran since `watch`, p99 (ms). */
  loopDelayP99: number;
}

/** Starts one of the bench's helper processes (`file` in this folder), which sends its base URL once listening; ended at cleanup. */
async function startHelper(cleanup: Cleanup, what: string, file: string, args: string[]): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child: ChildProcess = fork(path.join(__dirname, file), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  cleanup.add(`${what} process`, async () => {
    if (child.connected) child.disconnect();
    if (child.exitCode === null) child.kill();
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { baseUrl: string }).baseUrl));
    child.once('exit', (code) => reject(new Error(`the ${what} exited with ${code}`)));
  });
  return { child, baseUrl };
}

async function startModel(cleanup: Cleanup): Promise<{ baseUrl: string; pid: number; watch: () => void; counts: () => Promise<ModelCounts> }> {
  const { child, baseUrl } = await startHelper(cleanup, 'fake model', 'fakeModel.ts', [String(DELAY_MS)]);
  const counts = () =>
    new Promise<ModelCounts>((resolve) => {
      child.once('message', (message) => {
        const { counts: requests, loopDelayP99 } = message as { counts: Omit<ModelCounts, 'loopDelayP99'>; loopDelayP99: number };
        resolve({ ...requests, loopDelayP99 });
      });
      child.send('counts');
    });
  return { baseUrl, pid: child.pid!, watch: () => child.send('watch'), counts };
}

/** The bare relay of the streamed runs' floor, a process of its own in front of the fake model. */
async function startRelay(cleanup: Cleanup, modelUrl: string): Promise<{ baseUrl: string; pid: number }> {
  const { child, baseUrl } = await startHelper(cleanup, 'bare relay', 'bareRelay.ts', [modelUrl]);
  return { baseUrl, pid: child.pid! };
}

interface Deployed {
  server: RunningServer;
  /** The base URL of the server's HEALTH_PORT. */
  healthPortUrl: string;
  database: DatabaseHandle;
  users: Array<{ token: string; userId: string }>;
}

async function deploy(cleanup: Cleanup, tmpRoot: string, engine: 'sqlite' | 'postgres', modelUrl: string): Promise<Deployed> {
  const dataDir = path.join(tmpRoot, `slow-${engine}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const databaseUrl = engine === 'postgres' ? await newPostgresDatabase(cleanup) : null;
  const healthPort = await freePort();
  const server = await startServer({
    LOG_LEVEL: 'silent',
    HEALTH_PORT: String(healthPort),
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web'),
    LLM_BASE_URL: modelUrl,
    LLM_MODEL: 'bench-model',
    LLM_TIMEOUT_MS: '30000',
    LLM_MAX_TOKENS: '300',
    // Registering the bench's users is not what is measured.
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_PASSES: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  cleanup.add(`${engine} app process`, async () => void (await server.stop()));
  const database = await openDatabase({ databaseUrl, dataDir });
  cleanup.add(`the bench's handle on the ${engine} database`, () => database.close());
  const users = [];
  for (let i = 0; i < USERS; i++) {
    const name = `slow_${engine}_${i}`;
    const user = await registerAccount(server.baseUrl, { ...ACCOUNT, email: `${name}@example.com`, username: name });
    await setPlan(database.db, user.userId, 'team', Date.now());
    users.push(user);
  }
  return { server, healthPortUrl: `http://127.0.0.1:${healthPort}`, database, users };
}

/** Each user's count of queries this month. */
async function monthCounts(database: DatabaseHandle, userIds: string[]): Promise<Map<string, number>> {
  const rows = await database.db.selectFrom('usage_months').select(['user_id', 'queries']).where('month', '=', periodsAt(Date.now()).month).where('user_id', 'in', userIds).execute();
  return new Map(rows.map((row) => [row.user_id, Number(row.queries)]));
}

/** Waits (at most 30 s) until none of the users has a query reserved: every refund and settlement is in. */
async function quiet(database: DatabaseHandle, userIds: string[]): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const [row] = await database.db.selectFrom('usage_ledger').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'reserved').where('user_id', 'in', userIds).execute();
    if (Number(row!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log('  (some queries were still reserved 30 s after the run)');
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function ask(url: string, token: string, localAddress: string, kind: Kind, user: number): Promise<Answer> {
  const modelMs = Math.round(DELAY_MS * (1 + JITTER * (2 * Math.random() - 1)));
  const payload = JSON.stringify({ task: 'ask', prompt: `What does this range say about sales in the North? [answer in ${modelMs} ms]` });
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let status = 0;
    let body = '';
    let firstByteMs: number | null = null;
    let settled = false;
    const finish = (complete: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ user, startedAt, modelMs, endedAt: performance.now(), status, firstByteMs, complete, error });
    };
    const request = http.request(
      `${url}/api/v1/query`,
      {
        method: 'POST',
        agent,
        localAddress,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(kind === 'streamed' ? { accept: 'text/event-stream' } : {}),
        },
      },
      (response) => {
        status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          firstByteMs ??= performance.now() - startedAt;
          // The end is all the checks need; the answer itself is small.
          body = (body + piece).slice(-4096);
        });
        response.on('end', () => finish(status === 200 && (kind === 'streamed' ? body.includes('event: done') : body.trimEnd().endsWith('}'))));
        response.on('error', (error: NodeJS.ErrnoException) => finish(false, error.code ?? error.message));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(false, 'timeout');
    }, kind === 'abandon' ? GIVE_UP_MS : REQUEST_TIMEOUT_MS);
    request.on('error', (error: NodeJS.ErrnoException) => finish(false, error.code ?? error.message));
    request.end(payload);
  });
}

/**
 * Closed-loop clients holding `inFlight` queries in flight against `url`, each of its own user
 * (`tokens`, in turn) and from one of ADDRESSES loopback addresses, from now until `end`.
 * The clients start one after another over one model delay, as many people's queries would, not
 * all in the same millisecond: a closed loop started at once keeps its first wave together (every
 * answer takes the same delay), and the last query of each wave waits for the gateway to take in
 * the whole wave before it, which measures the burst rather than the gateway. The answers from
 * `warm` (after the ramp and 1.5 model delays) are the run's.
 */
function closedLoop(url: string, tokens: string[], kind: Kind, inFlight: number) {
  const addresses = Array.from({ length: ADDRESSES }, () => newLoopbackAddress());
  const rampMs = DELAY_MS;
  const warm = performance.now() + rampMs + DELAY_MS * 1.5;
  const end = warm + RUN_S * 1000;
  const drive = async () => {
    const answers: Answer[] = [];
    const client = async (slot: number) => {
      const user = slot % tokens.length;
      await new Promise((resolve) => setTimeout(resolve, (slot * rampMs) / inFlight));
      while (performance.now() < end) answers.push(await ask(url, tokens[user]!, addresses[slot % ADDRESSES]!, kind, user));
    };
    await Promise.all(Array.from({ length: inFlight }, (_, slot) => client(slot)));
    return answers;
  };
  return { warm, end, drive };
}

/**
 * What a run's answers show: answers a second that ended in the window (`warm` to `end`), and the
 * overhead (the answer's time less the model's) and time to first byte of those that started in it.
 */
function answerFigures(answers: Answer[], warm: number, end: number) {
  const measured = answers.filter((answer) => answer.startedAt >= warm && answer.complete);
  const overheads = measured.map((answer) => answer.endedAt - answer.startedAt - answer.modelMs);
  const ttfb = measured.map((answer) => answer.firstByteMs ?? Number.NaN);
  return {
    answersPerS: answers.filter((answer) => answer.complete && answer.endedAt >= warm && answer.endedAt <= end).length / RUN_S,
    overheadP50: percentile(overheads, 50),
    overheadP99: percentile(overheads, 99),
    ttfbP50: percentile(ttfb, 50),
    ttfbP99: percentile(ttfb, 99),
  };
}

async function run(deployed: Deployed, engine: string, kind: Kind, inFlight: number, model: Awaited<ReturnType<typeof startModel>>): Promise<RunResult> {
  const { server, healthPortUrl, database, users } = deployed;
  const userIds = users.map((user) => user.userId);
  const pid = server.process.pid!;
  const before = await monthCounts(database, userIds);
  const rssIdleMb = rssMb(pid);
  const cpuBefore = cpuMs(pid);
  const benchCpuBefore = cpuMs(process.pid);
  const modelCpuBefore = cpuMs(model.pid);
  const databaseCpuBefore = engine === 'postgres' ? postgresCpuMs() : 0;
  const machineBefore = machineTicks();
  let rssMaxMb = rssIdleMb;
  const { warm, end, drive } = closedLoop(server.baseUrl, users.map((user) => user.token), kind, inFlight);
  const loop = mainThreadShares(pid, warm, end);
  // Health is probed from a process of its own, from the end of the warm-up to the end of the run:
  // on the app's port, and on HEALTH_PORT by a second prober.
  const probe = (baseUrl: string) =>
    new Promise<{ times: number[]; firstMs: number | null }>((resolve) => {
      setTimeout(() => {
        const prober = fork(path.join(__dirname, 'healthProbe.ts'), [baseUrl, newLoopbackAddress()], { execArgv: ['--import', 'tsx'] });
        prober.once('message', (message) => resolve(message as { times: number[]; firstMs: number | null }));
        prober.once('exit', () => resolve({ times: [], firstMs: null }));
        setTimeout(() => prober.connected && prober.send('stop'), end - performance.now());
      }, warm - performance.now());
    });
  const health = probe(server.baseUrl);
  const healthOnPort = probe(healthPortUrl);
  const sampler = setInterval(() => (rssMaxMb = Math.max(rssMaxMb, rssMb(pid))), 200);
  const lateness = loopLateness();
  let benchLoopDelayP99 = Number.NaN;
  const watching = setTimeout(() => lateness.start(), warm - performance.now());
  const unwatching = setTimeout(() => (benchLoopDelayP99 = lateness.stop()), end - performance.now());
  let openCallsAtEnd = 0;
  let modelLoopDelayP99 = Number.NaN;
  const watchModel = setTimeout(() => model.watch(), warm - performance.now());
  const atEnd = setTimeout(
    () =>
      void model.counts().then((counts) => {
        openCallsAtEnd = counts.open;
        modelLoopDelayP99 = counts.loopDelayP99;
      }),
    end - performance.now(),
  );
  let answers: Answer[];
  try {
    answers = await drive();
  } finally {
    loop.cancel();
    clearInterval(sampler);
    clearTimeout(atEnd);
    clearTimeout(watchModel);
    clearTimeout(watching);
    clearTimeout(unwatching);
  }
  const { times: healthMs, firstMs: healthFirstMs } = await health;
  const { times: healthPortMs } = await healthOnPort;
  await quiet(database, userIds);
  const cpuMsPerQuery = (cpuMs(pid) - cpuBefore) / Math.max(1, answers.length);
  const benchCpuMsPerQuery = (cpuMs(process.pid) - benchCpuBefore) / Math.max(1, answers.length);
  const modelCpuMsPerQuery = (cpuMs(model.pid) - modelCpuBefore) / Math.max(1, answers.length);
  const databaseCpuMsPerQuery = engine === 'postgres' ? (postgresCpuMs() - databaseCpuBefore) / Math.max(1, answers.length) : 0;
  const machineAfter = machineTicks();
  const machineBusy = (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total);
  const after = await monthCounts(database, userIds);

  const received = new Map<string, number>();
  for (const answer of answers) if (answer.complete) received.set(userIds[answer.user]!, (received.get(userIds[answer.user]!) ?? 0) + 1);
  let countsExact = true;
  let charged = 0;
  for (const id of userIds) {
    const grew = (after.get(id) ?? 0) - (before.get(id) ?? 0);
    charged += grew;
    if (grew !== (received.get(id) ?? 0)) countsExact = false;
  }
  const figures = answerFigures(answers, warm, end);
  const failureKinds = new Map<string, number>();
  for (const answer of answers) {
    if (answer.complete || kind === 'abandon') continue;
    const what = answer.status === 0 ? `no answer (${answer.error ?? 'closed'})` : `HTTP ${answer.status}`;
    failureKinds.set(what, (failureKinds.get(what) ?? 0) + 1);
  }
  return {
    engine,
    kind,
    inFlight,
    ...figures,
    ratio: figures.answersPerS / (inFlight / (DELAY_MS / 1000)),
    ttfbP50: kind === 'streamed' ? figures.ttfbP50 : null,
    ttfbP99: kind === 'streamed' ? figures.ttfbP99 : null,
    healthP50: percentile(healthMs, 50),
    healthP99: percentile(healthMs, 99),
    healthFirstMs,
    healthPortP50: percentile(healthPortMs, 50),
    healthPortP99: percentile(healthPortMs, 99),
    rssIdleMb,
    rssMaxMb,
    cpuMsPerQuery,
    benchCpuMsPerQuery,
    benchLoopDelayP99,
    modelLoopDelayP99,
    modelCpuMsPerQuery,
    databaseCpuMsPerQuery,
    machineBusy,
    loopBusy: loop.shares.busy,
    loopWaiting: loop.shares.waiting,
    countsExact,
    charged: kind === 'abandon' ? charged : Number.NaN,
    failures: [...failureKinds].map(([what, n]) => `${n} ${what}`).join(', ') || 'none',
    openCallsAtEnd,
  };
}

/** A streamed run's floor: the same closed loop against the bare relay (`bareRelay.ts`). */
interface FloorResult extends LoopShares {
  inFlight: number;
  answersPerS: number;
  overheadP50: number;
  overheadP99: number;
  ttfbP50: number;
  ttfbP99: number;
  relayCpuMsPerAnswer: number;
  machineBusy: number;
  failed: number;
}

async function runFloor(relay: { baseUrl: string; pid: number }, inFlight: number): Promise<FloorResult> {
  const cpuBefore = cpuMs(relay.pid);
  const machineBefore = machineTicks();
  const { warm, end, drive } = closedLoop(relay.baseUrl, ['none'], 'streamed', inFlight);
  const loop = mainThreadShares(relay.pid, warm, end);
  const answers = await drive().finally(() => loop.cancel());
  const machineAfter = machineTicks();
  return {
    inFlight,
    ...answerFigures(answers, warm, end),
    relayCpuMsPerAnswer: (cpuMs(relay.pid) - cpuBefore) / Math.max(1, answers.length),
    machineBusy: (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total),
    loopBusy: loop.shares.busy,
    loopWaiting: loop.shares.waiting,
    failed: answers.filter((answer) => !answer.complete).length,
  };
}

const fixed = (value: number | null, digits = 0) => (value === null || Number.isNaN(value) ? '' : value.toFixed(digits));

/** The event loop's shares of the window, as `mainThreadShares` measures them (blank where the kernel keeps none). */
const loopShares = (whose: string, { loopBusy, loopWaiting }: LoopShares) =>
  Number.isNaN(loopBusy) ? `${whose} loop not measured` : `${whose} loop on a CPU ${fixed(loopBusy * 100)} % of the window and waiting for one ${fixed(loopWaiting * 100)} %`;

function describe(result: RunResult): string {
  const what = `${result.engine} ${result.kind} ${result.inFlight}`;
  const health = `health p50/p99 ${fixed(result.healthP50, 1)}/${fixed(result.healthP99, 1)} ms (first check ${result.healthFirstMs === null ? 'unanswered' : `${fixed(result.healthFirstMs)} ms`}), on HEALTH_PORT ${fixed(result.healthPortP50, 1)}/${fixed(result.healthPortP99, 1)} ms`;
  if (result.kind === 'abandon') {
    return `${what}: charged ${result.charged} (goal 0), app CPU ${fixed(result.cpuMsPerQuery, 2)} ms a query, provider calls open when the clients stopped ${result.openCallsAtEnd} (clients ${result.inFlight}), ${health}, RSS ${fixed(result.rssIdleMb)} → ${fixed(result.rssMaxMb)} MB`;
  }
  return (
    `${what}: ${fixed(result.answersPerS)} answers/s, ratio ${fixed(result.ratio, 2)}, overhead p50/p99 ${fixed(result.overheadP50)}/${fixed(result.overheadP99)} ms, ` +
    (result.ttfbP50 !== null ? `first byte p50/p99 ${fixed(result.ttfbP50)}/${fixed(result.ttfbP99)} ms, ` : '') +
    `${health}, RSS ${fixed(result.rssIdleMb)} → ${fixed(result.rssMaxMb)} MB ` +
    `(${fixed(((result.rssMaxMb - result.rssIdleMb) * 1024) / result.inFlight)} KB a query in flight), app CPU ${fixed(result.cpuMsPerQuery, 2)} ms a query (load generator ${fixed(result.benchCpuMsPerQuery, 2)}, its loop late by up to ${fixed(result.benchLoopDelayP99)} ms at p99, model ${fixed(result.modelCpuMsPerQuery, 2)} and its loop ${fixed(result.modelLoopDelayP99)} ms${result.engine === 'postgres' ? `, PostgreSQL ${fixed(result.databaseCpuMsPerQuery, 2)}` : ''}), ${loopShares("the app's", result)}, machine ${fixed(result.machineBusy * 100)} % busy, counts ${result.countsExact ? 'exact' : 'WRONG'}, failures ${result.failures}`
  );
}

function describeFloor(floor: FloorResult): string {
  return (
    `bare relay streamed ${floor.inFlight} (the floor): ${fixed(floor.answersPerS)} answers/s, overhead p50/p99 ${fixed(floor.overheadP50)}/${fixed(floor.overheadP99)} ms, ` +
    `first byte p50/p99 ${fixed(floor.ttfbP50)}/${fixed(floor.ttfbP99)} ms, relay CPU ${fixed(floor.relayCpuMsPerAnswer, 2)} ms an answer, ${loopShares("the relay's", floor)}, machine ${fixed(floor.machineBusy * 100)} % busy, failures ${floor.failed}`
  );
}

export async function runSlowModel(cleanup: Cleanup, tmpRoot: string): Promise<boolean> {
  log(`slow-model bench: model delay ${DELAY_MS} ms ± ${JITTER * 100} %, ${RUN_S} s a run, in flight ${IN_FLIGHT.join(', ')}, engines ${ENGINES.join(', ')}, ${ROUNDS} rounds`);
  const model = await startModel(cleanup);
  const deployments = new Map<string, Deployed>();
  for (const engine of ENGINES) {
    log(`starting the app on ${engine}, registering ${USERS} users…`);
    deployments.set(engine, await deploy(cleanup, tmpRoot, engine, model.baseUrl));
  }
  const cases = ([...IN_FLIGHT.map((n) => ['plain', n]), ['streamed', IN_FLIGHT[0]!], ['abandon', IN_FLIGHT[0]!]] as Array<[Kind, number]>).filter(([kind]) =>
    CASES.includes(kind),
  );
  const streamed = cases.find(([kind]) => kind === 'streamed');
  const relay = streamed ? await startRelay(cleanup, model.baseUrl) : null;
  const results: RunResult[] = [];
  const floors: FloorResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const engine of ENGINES) {
      for (const [kind, inFlight] of cases) {
        const result = await run(deployments.get(engine)!, engine, kind, inFlight, model);
        results.push(result);
        log(`round ${round}/${ROUNDS}  ${describe(result)}`);
      }
    }
    if (relay && streamed) {
      const floor = await runFloor(relay, streamed[1]);
      floors.push(floor);
      log(`round ${round}/${ROUNDS}  ${describeFloor(floor)}`);
    }
  }
  console.log('\nSlow-model runs (every run; medians below):');
  for (const result of results) console.log(`- ${describe(result)}`);
  for (const floor of floors) console.log(`- ${describeFloor(floor)}`);
  console.log('\n| run | answers/s (ideal) | ratio | overhead p50 / p99 | first byte p50 / p99 | health p50 / p99 | on HEALTH_PORT | RSS idle → max | counts | charged |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  let passed = true;
  for (const engine of ENGINES) {
    for (const [kind, inFlight] of cases) {
      const mine = results.filter((r) => r.engine === engine && r.kind === kind && r.inFlight === inFlight);
      const med = (pick: (r: RunResult) => number | null) => median(mine.map(pick).filter((v): v is number => v !== null && !Number.isNaN(v)));
      const exact = mine.every((r) => r.countsExact);
      const charged = kind === 'abandon' ? mine.map((r) => r.charged).join(', ') : '';
      if (!exact || (kind === 'abandon' && mine.some((r) => r.charged !== 0))) passed = false;
      const ideal = inFlight / (DELAY_MS / 1000);
      console.log(
        `| ${engine}, ${kind}, ${inFlight} in flight | ${kind === 'abandon' ? '0 answered' : `${fixed(med((r) => r.answersPerS))} (${fixed(ideal)})`} | ${kind === 'abandon' ? '' : fixed(med((r) => r.ratio), 2)} | ` +
          `${kind === 'abandon' ? '' : `${fixed(med((r) => r.overheadP50))} / ${fixed(med((r) => r.overheadP99))} ms`} | ${kind === 'streamed' ? `${fixed(med((r) => r.ttfbP50))} / ${fixed(med((r) => r.ttfbP99))} ms` : ''} | ` +
          `${fixed(med((r) => r.healthP50), 1)} / ${fixed(med((r) => r.healthP99), 1)} ms | ${fixed(med((r) => r.healthPortP50), 1)} / ${fixed(med((r) => r.healthPortP99), 1)} ms | ${fixed(med((r) => r.rssIdleMb))} → ${fixed(med((r) => r.rssMaxMb))} MB | ${exact ? 'exact' : 'WRONG'} | ${charged} |`,
      );
    }
  }
  if (streamed && floors.length) {
    const med = (pick: (floor: FloorResult) => number) => median(floors.map(pick));
    console.log(
      `| bare relay (the floor), streamed, ${streamed[1]} in flight | ${fixed(med((f) => f.answersPerS))} (${fixed(streamed[1] / (DELAY_MS / 1000))}) | ${fixed(med((f) => f.answersPerS) / (streamed[1] / (DELAY_MS / 1000)), 2)} | ` +
        `${fixed(med((f) => f.overheadP50))} / ${fixed(med((f) => f.overheadP99))} ms | ${fixed(med((f) => f.ttfbP50))} / ${fixed(med((f) => f.ttfbP99))} ms | | | | | |`,
    );
  }
  return passed;
}
