import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * The API benchmark's knobs (read once, checked, named in the error when wrong), its fixed sizes,
 * and the small helpers every part of it uses. See `main.ts` for what the benchmark measures.
 */

export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]?.replace(/[_,]/g, '');
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got "${process.env[name]}"`);
  return value;
}

function flag(name: string, fallback: boolean): boolean {
  const raw = (process.env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (['0', 'false', 'no'].includes(raw)) return false;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  throw new Error(`${name} must be 1 or 0, got "${process.env[name]}"`);
}

export const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
export const DURATION_S = positiveInt('BENCH_DURATION', 3);
/** Parts of target names: only those targets (and the baseline) are measured. */
export const ONLY = (process.env.BENCH_ONLY ?? '').split(',').map((part) => part.trim()).filter(Boolean);
/**
 * Also measure the read and query targets on a second database of each engine, seeded in SQL
 * (about 3 minutes and 8.5 GB of disk at the default size); `BENCH_SEEDED=0` skips it.
 */
export const SEEDED = flag('BENCH_SEEDED', true);
export const SEED_USERS = positiveInt('BENCH_SEED_USERS', 100_000);
export const SEED_LEDGER_ROWS = positiveInt('BENCH_SEED_LEDGER_ROWS', 10_000_000);
/** App processes behind the bench's round-robin for the PostgreSQL query; 1: none started. */
export const INSTANCES = positiveInt('BENCH_INSTANCES', 2);

export const WARMUP_S = 1;
export const GET_CONNECTIONS = 50;
export const LOGIN_CONNECTIONS = 8;
export const QUERY_CONNECTIONS = 100;
/**
 * Team users a query target takes turns with. A query here takes about 170 of a Team day's
 * 200,000 tokens, so a user answers about 1,100 a day: enough users for 10,000 queries a second.
 */
export const QUERY_USERS = Math.max(40, Math.ceil((WARMUP_S + ROUNDS * DURATION_S) * 10));
export const RACE_QUERIES = 300;
export const RACE_LEFT = 100;
/**
 * Ledger rows of history each of the bench's own users gets: what an average seeded user has
 * (10,000,000 rows over 100,000 users), so its reads and upserts find rows of its own.
 */
export const HISTORY_PER_USER = 100;

export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Seconds since `start` (a `performance.now()`), to a tenth. */
export const secondsSince = (start: number) => ((performance.now() - start) / 1000).toFixed(1);

/** Resources to release at the end, newest first; every one is tried even if another fails. */
export class Cleanup {
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

/**
 * How late this process's event loop runs while watched (a timer every 10 ms): `stop` answers the
 * p99 of its lateness in ms. The histogram counts nanoseconds, the timer's own 10 ms in every sample.
 */
export function loopLateness(): { start(): void; stop(): number } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  return {
    start() {
      histogram.reset();
      histogram.enable();
    },
    stop() {
      histogram.disable();
      return Math.max(0, histogram.percentile(99) / 1e6 - 10);
    },
  };
}
