/**
 * `npm test`: the type check, the lint, the production build and every jest project, arranged so
 * that both cores of a small machine stay busy from the first second to the last, ending with the
 * one line CI reads, "N passed, N failed".
 *
 * Two lanes of jest runs, one worker each, side by side:
 * - node: the tests that need no build (ui in jsdom, api through inject, reliability's server
 *   processes) start at once; then, once the build is there, the build's own tests;
 * - browser: once the build is there, the browser files (e2e, paths), one at a time: each runs a
 *   server process and Chromium, which alone keep both cores busy most of the time;
 * and then a few browser files that either lane takes, each as the lane is free, so that the lanes
 * end together however quick each part runs on the day.
 * The type check and the lint run beside them at a lower priority, and a failure of either counts
 * as one failed test. A failed build counts as one too, and the runs that need it do not start.
 *
 * Arguments (`npm test -- <pattern>`) go to one plain jest run over every project instead, after
 * the build.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/**
 * The files either lane runs after its own, largest first, each in a jest run of its own taken by
 * the lane that is free first: some 5 minutes of work (Chromium paths and the largest model tests
 * in jsdom) that evens out the lanes, whose lengths against each other change from day to day
 * (docs/performance.md, "The test suite").
 */
const SHARED_TAIL: Array<{ file: string; project: string }> = [
  { file: 'tests/paths/team.paths.test.ts', project: 'paths' },
  { file: 'tests/model/team.model.test.tsx', project: 'ui' },
  { file: 'tests/paths/link.paths.test.ts', project: 'paths' },
  { file: 'tests/model/credentials.model.test.tsx', project: 'ui' },
  { file: 'tests/model/auth.model.test.tsx', project: 'ui' },
  { file: 'tests/paths/inviteForm.paths.test.ts', project: 'paths' },
  { file: 'tests/paths/invitation.paths.test.ts', project: 'paths' },
];
const inTail = (project: string) => SHARED_TAIL.filter((spec) => spec.project === project).map((spec) => spec.file);

interface JestRun {
  name: string;
  projects: string[];
  /** Only the files whose path matches one of these. */
  only?: string[];
  /** Not the files whose path matches one of these. */
  skip?: string[];
  needsBuild: boolean;
}

const LANES: JestRun[][] = [
  [
    { name: 'node', projects: ['ui', 'api', 'reliability'], skip: inTail('ui'), needsBuild: false },
    { name: 'node-late', projects: ['build'], needsBuild: true },
  ],
  [{ name: 'browser', projects: ['e2e', 'paths'], skip: inTail('paths'), needsBuild: true }],
];

interface Counts {
  passed: number;
  failed: number;
  /** What failed, by name: "[lane] file › test", or a step ("typecheck"). */
  failures: string[];
}

/** Colours for a terminal only (the children write to a pipe, so they cannot tell). */
const COLOR = process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : undefined);

/** Runs a command, its output's lines prefixed with `[name]`; resolves with its exit code. */
function run(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; lowPriority?: boolean } = {}): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...(COLOR ? { FORCE_COLOR: COLOR } : {}), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (options.lowPriority && child.pid) {
      try {
        os.setPriority(child.pid, 10);
      } catch {
        // Not allowed here: it runs at the normal priority.
      }
    }
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
    }
    child.on('error', (error) => {
      process.stdout.write(`[${name}] ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(`[${name}] ${status === 0 ? 'done' : `failed (exit ${status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      resolve(status);
    });
  });
}

/** One jest run; a run that died before its reporter wrote counts (a crash, a signal) counts as one failure. */
async function runJest(name: string, args: string[], countsFile: string): Promise<Counts> {
  const env = { TEST_COUNTS_FILE: countsFile, FORCE_COLOR: COLOR ?? '0' };
  const code = await run(name, process.execPath, [require.resolve('jest/bin/jest'), ...args], { env });
  if (!fs.existsSync(countsFile)) return { passed: 0, failed: 1, failures: [`[${name}] jest ended (exit ${code}) before its reporter wrote the counts`] };
  const counts: Counts = JSON.parse(fs.readFileSync(countsFile, 'utf8'));
  const failures = counts.failures.map((failure) => `[${name}] ${failure}`);
  if (code !== 0 && counts.failed === 0) return { ...counts, failed: 1, failures: [...failures, `[${name}] jest exited with ${code}`] };
  return { ...counts, failures };
}

function jestArgs(spec: JestRun): string[] {
  const args = ['--selectProjects', ...spec.projects];
  // On the command line, the ignore patterns replace jest's default one.
  if (spec.skip) args.push('--testPathIgnorePatterns', '/node_modules/', ...spec.skip);
  if (spec.only) args.push('--', ...spec.only);
  return args;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-test-counts-'));
  const countsFile = (name: string) => path.join(dir, `${name.replace(/\W+/g, '-')}.json`);
  const extra = process.argv.slice(2);

  const build = run('build', process.execPath, ['--import', 'tsx', 'build/buildIfStale.ts']);
  const steps = {
    build,
    typecheck: run('typecheck', bin('tsc'), ['--noEmit'], { lowPriority: true }),
    lint: run('lint', bin('eslint'), ['.'], { lowPriority: true }),
  };
  const built = build.then((code) => code === 0);
  const tail: JestRun[] = SHARED_TAIL.map(({ file, project }) => ({
    name: path.basename(file).replace(/\.test\.tsx?$/, ''),
    projects: [project],
    only: [file],
    needsBuild: project === 'paths',
  }));
  const lanes: Promise<Counts[]>[] = extra.length
    ? [built.then(async (ok) => (ok ? [await runJest('jest', extra, countsFile('jest'))] : []))]
    : LANES.map(async (lane) => {
        const counts: Counts[] = [];
        for (const spec of lane) {
          if (spec.needsBuild && !(await built)) return counts;
          counts.push(await runJest(spec.name, jestArgs(spec), countsFile(spec.name)));
        }
        for (let spec = tail.shift(); spec; spec = tail.shift()) counts.push(await runJest(spec.name, jestArgs(spec), countsFile(spec.name)));
        return counts;
      });

  const failedSteps: string[] = [];
  for (const [name, step] of Object.entries(steps)) if ((await step) !== 0) failedSteps.push(`${name} (its output is above, prefixed [${name}])`);
  const counts = (await Promise.all(lanes)).flat();
  fs.rmSync(dir, { recursive: true, force: true });
  const passed = counts.reduce((sum, c) => sum + c.passed, 0);
  const failed = counts.reduce((sum, c) => sum + c.failed, failedSteps.length);
  const failures = [...failedSteps, ...counts.flatMap((c) => c.failures)];
  // The names again at the very end: a CI log may keep only its last lines.
  process.stdout.write(`\n${failures.map((failure) => `failed: ${failure}\n`).join('')}${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

void main();
