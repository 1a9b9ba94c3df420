// Where a jest run's CPU goes, file by file: on a shared machine wall times say little, core-seconds
// say what a file costs. Opt-in: `TEST_CPU_REPORT=/tmp/cpu.json npx jest --reporters default
// --reporters ./tests/setup/cpuReporter.js …`. Works in band (one worker, as jest.config.js sets),
// where the tests run in jest's own process. Per file it records the jest process's CPU, that of the
// processes it started and waited for (the reliability tests' servers), and, with TEST_CPU_PG_PID
// set to a PostgreSQL postmaster's pid (a server of one's own: the machine's serves others too),
// that server's processes' CPU. Prints the files by CPU at the end and writes them as JSON.
const fs = require('node:fs');
const path = require('node:path');

const TICK = 100; // clock ticks per second (USER_HZ) on Linux

/** user + system seconds of a pid, and of its waited-for children, from /proc. */
function procTimes(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]) / TICK);
    return { own: utime + stime, children: cutime + cstime, ppid: Number(fields[1]) };
  } catch {
    return { own: 0, children: 0, ppid: 0 };
  }
}

/** A PostgreSQL server's CPU so far: the postmaster, its live processes and those it reaped. */
function serverSeconds(pid) {
  let total = 0;
  const main = procTimes(pid);
  total += main.own + main.children;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = procTimes(entry);
    if (child.ppid === pid) total += child.own;
  }
  return total;
}

function sample() {
  const self = procTimes(process.pid);
  const pgPid = Number(process.env.TEST_CPU_PG_PID);
  return { at: Date.now(), jest: process.cpuUsage(), children: self.children, pg: pgPid ? serverSeconds(pgPid) : 0 };
}

class CpuReporter {
  constructor() {
    this.started = new Map();
    this.files = [];
  }
  onTestFileStart(test) {
    this.started.set(test.path, sample());
  }
  onTestFileResult(test, result) {
    const start = this.started.get(test.path);
    if (!start) return;
    const end = sample();
    const jest = (end.jest.user - start.jest.user + end.jest.system - start.jest.system) / 1e6;
    const children = end.children - start.children;
    const pg = end.pg - start.pg;
    this.files.push({
      file: path.relative(process.cwd(), test.path),
      project: test.context.config.displayName?.name,
      tests: result.numPassingTests + result.numFailingTests,
      wall: (end.at - start.at) / 1000,
      jest,
      children,
      pg,
      cpu: jest + children + pg,
    });
  }
  onRunComplete() {
    const files = this.files.sort((a, b) => b.cpu - a.cpu);
    const sum = (key) => files.reduce((total, file) => total + file[key], 0);
    const f = (n) => n.toFixed(1).padStart(7);
    const lines = files.map((file) => `${f(file.cpu)}${f(file.jest)}${f(file.children)}${f(file.pg)}${f(file.wall)}  ${file.file}`);
    process.stdout.write(`\n    cpu   jest  child     pg   wall  file (seconds)\n${lines.join('\n')}\n${f(sum('cpu'))}${f(sum('jest'))}${f(sum('children'))}${f(sum('pg'))}${f(sum('wall'))}  total\n`);
    if (process.env.TEST_CPU_REPORT) fs.writeFileSync(process.env.TEST_CPU_REPORT, JSON.stringify(files, null, 1));
  }
}
module.exports = CpuReporter;
