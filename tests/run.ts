/**
 * `npm test`'s test step: two jest runs side by side, one per core. One runs the browser tests
 * (e2e, paths: a server process and Chromium each, never two files at once, so their timings stay
 * those of one browser test); the other the rest (ui in jsdom, api through inject, reliability's
 * server processes, build). The two take about as long as each other. Each is one worker; together they keep both
 * cores busy, which one jest with two workers does not do safely (two browser files at once
 * starve each other). Ends with the one line CI reads, "N passed, N failed", of both runs.
 *
 * Arguments (`npm test -- <pattern>`) go to one plain jest run over every project instead.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const JEST = require.resolve('jest/bin/jest');
const RUNS = [
  { name: 'browser', projects: ['e2e', 'paths'] },
  { name: 'node', projects: ['ui', 'api', 'reliability', 'build'] },
];

interface Counts {
  passed: number;
  failed: number;
}

function runJest(name: string, args: string[], countsFile: string): Promise<{ code: number; counts: Counts }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, ...args], {
      env: { ...process.env, TEST_COUNTS_FILE: countsFile, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : '0') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
    }
    child.on('exit', (code, signal) => {
      // A run that died before its reporter wrote counts (a crash, a signal) counts as one failure.
      const counts: Counts = fs.existsSync(countsFile) ? JSON.parse(fs.readFileSync(countsFile, 'utf8')) : { passed: 0, failed: 1 };
      resolve({ code: code ?? (signal ? 1 : 0), counts });
    });
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-test-counts-'));
  const extra = process.argv.slice(2);
  const runs = extra.length ? [{ name: 'jest', args: extra }] : RUNS.map((run) => ({ name: run.name, args: ['--selectProjects', ...run.projects] }));
  const results = await Promise.all(runs.map((run) => runJest(run.name, run.args, path.join(dir, `${run.name}.json`))));
  fs.rmSync(dir, { recursive: true, force: true });
  const passed = results.reduce((sum, result) => sum + result.counts.passed, 0);
  const failed = results.reduce((sum, result) => sum + result.counts.failed, 0);
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exitCode = results.some((result) => result.code !== 0) || failed > 0 ? 1 : 0;
}

void main();
