import os from 'node:os';
import { DURATION_S, median, RACE_LEFT, RACE_QUERIES, ROUNDS } from './options';
import type { Sample } from './measure';
import type { Target } from './targets';

/**
 * The printed report: every target as a ratio to the baseline of the same run, what failed, the
 * count checks and races, and the side-by-side tables of the seeded and multi-process modes. The
 * functions that judge answer whether the run passed; the caller sets the exit code.
 */

export type Samples = Map<Target, Sample[]>;

export interface Races {
  name: string;
  admitted: number[];
}

/** A target measured on the seeded database, and the same one on the empty database. */
export interface SeededPair {
  empty: Target;
  seeded: Target;
}

/** The least seeded / empty ratio the issue asks for ("within 15%"). */
const SEEDED_GOAL = 0.85;

const rpsOf = (samples: Samples, target: Target) => median(samples.get(target)!.map((s) => s.rps));
const formatRps = (rps: number) => rps.toFixed(rps < 100 ? 1 : 0);

export function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

export function printReport(targets: Target[], samples: Samples, fsync: { before: string; after: string }): void {
  const baseline = targets[0]!;
  const baselineRps = rpsOf(samples, baseline);
  const rows = targets.map((target) => {
    const rps = rpsOf(samples, target);
    const ratio = rps / baselineRps;
    const isBaseline = target === baseline;
    const verdict = isBaseline ? 'baseline' : target.minRatio === null ? 'report' : ratio >= target.minRatio ? 'PASS' : 'BELOW';
    return [
      target.name,
      formatRps(rps),
      median(samples.get(target)!.map((s) => s.p99Ms)).toFixed(0),
      ratio.toFixed(3),
      isBaseline ? '-' : target.minRatio === null ? 'none' : `>= ${target.minRatio.toFixed(2)}`,
      verdict,
    ];
  });
  console.log('');
  console.log(`API benchmark: ${ROUNDS} interleaved rounds x ${DURATION_S} s per target, median over rounds`);
  // Other work on the machine slows every target, but not alike: the ratios are only comparable at similar load.
  console.log(`load average at the end: ${os.loadavg().map((n) => n.toFixed(2)).join(', ')} on ${os.availableParallelism()} cores`);
  // The durable paths (every query's ledger row) are bound by the disk: its figure beside theirs.
  console.log(`fsync latency of the disk (4 KiB): before the run ${fsync.before}; after it ${fsync.after}`);
  table(['target', 'median req/s', 'p99 ms', 'ratio', 'target ratio', 'result'], rows);
  console.log('');
  console.log('req/s per round:');
  for (const target of targets) {
    const runs = samples.get(target)!;
    const kinds = new Map<string, number>();
    for (const [kind, count] of runs.flatMap((s) => [...s.failureKinds])) kinds.set(kind, (kinds.get(kind) ?? 0) + count);
    const failures = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
    console.log(`  ${target.name}: ${runs.map((s) => formatRps(s.rps)).join(', ')}${failures ? `  (failed: ${failures}!)` : ''}`);
  }
}

/**
 * The seeded database beside the empty one: each target's ratio to the baseline on both, and their
 * quotient against the goal. Report-only, like the other ratios: the exit code is the checks'.
 */
export function printSeeded(pairs: SeededPair[], samples: Samples, baseline: Target, seeding: string[]): void {
  if (pairs.length === 0) return;
  const baselineRps = rpsOf(samples, baseline);
  const rows = pairs.map(({ empty, seeded }) => {
    const emptyRatio = rpsOf(samples, empty) / baselineRps;
    const seededRatio = rpsOf(samples, seeded) / baselineRps;
    const quotient = seededRatio / emptyRatio;
    return [empty.name, emptyRatio.toFixed(3), seededRatio.toFixed(3), quotient.toFixed(3), `>= ${SEEDED_GOAL}`, quotient >= SEEDED_GOAL ? 'PASS' : 'BELOW'];
  });
  console.log('');
  console.log('seeded against empty database (ratios to the baseline; the bench users have the same history on both):');
  for (const line of seeding) console.log(`  ${line}`);
  table(['target', 'empty', 'seeded', 'seeded / empty', 'goal', 'result'], rows);
}

/** The query on several processes beside one process, both measured from this one the same way. */
export function printInstances(one: Target | undefined, many: Target | undefined, count: number, samples: Samples): void {
  if (!one || !many) return;
  const quotient = rpsOf(samples, many) / rpsOf(samples, one);
  console.log('');
  console.log(`PostgreSQL query on ${count} processes against 1 (round-robin in the load generator): ${quotient.toFixed(2)}x the req/s`);
}

/** Throughput targets answer only 2xx: any other answer (a 429 of an exhausted budget, a 5xx, a timeout) fails the run. */
export function printFailures(targets: Target[], samples: Samples): boolean {
  const failed = targets.filter((target) => samples.get(target)!.some((sample) => sample.failures > 0));
  console.log(failed.length === 0 ? 'answers: PASS (every answer 2xx)' : `answers: FAIL (answers other than 2xx in: ${failed.map((t) => t.name).join(', ')})`);
  return failed.length === 0;
}

/** The count checks: true when no run admitted a query it should not have. */
export function printCountChecks(targets: Target[], samples: Samples, races: Races[]): boolean {
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
