import { execSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DIST_DIR } from './manifest';

/**
 * `npm start` and `npm test` run this instead of `npm run build`: it builds only when dist/ is
 * missing or older than a file the build reads. Every folder and root file counts except the ones
 * the client build never reads (and the root's Markdown), so a new source folder counts without
 * being listed here; a needless build costs a minute, a missed one serves or tests old code.
 *
 * package-lock.json counts by its content: `npm install` rewrites it even when nothing changed,
 * which would make every start after an install rebuild. The build records the lock's hash
 * (LOCK_STAMP), and a newer lock with that same hash is no change.
 */
const ROOT = path.resolve(__dirname, '..');
const NOT_READ_BY_THE_BUILD = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage', 'screenshots', 'server', 'tests', 'docs', '.ci']);
const LOCK_FILE = 'package-lock.json';
/** Where the build records the hash of the lock file it was made with (in dist/, beside the manifest). */
export const LOCK_STAMP = 'package-lock.sha256';

function newestIn(entry: string): number {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((newest, name) => Math.max(newest, newestIn(path.join(entry, name))), stat.mtimeMs);
}

/** When the last build finished writing, or 0 without one (the manifest and page are among its last writes). */
function builtAt(dist: string): number {
  const outputs = [path.join(dist, 'web-manifest.json'), path.join(dist, 'web', 'index.html')];
  if (!outputs.every((file) => fs.existsSync(file))) return 0;
  return Math.min(...outputs.map((file) => fs.statSync(file).mtimeMs));
}

function lockHash(root: string): string | null {
  const file = path.join(root, LOCK_FILE);
  return fs.existsSync(file) ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null;
}

/** Records the lock file the build was made with (called by the build: build/webBuildPlugin.ts). */
export function stampLockFile(root = ROOT, dist = DIST_DIR): void {
  const hash = lockHash(root);
  if (hash) fs.writeFileSync(path.join(dist, LOCK_STAMP), `${hash}\n`);
}

/** Whether the lock file differs from the one the build recorded (no record: it may). */
function lockChanged(root: string, dist: string): boolean {
  const stamp = path.join(dist, LOCK_STAMP);
  return !fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() !== lockHash(root);
}

export function buildIsStale(root = ROOT, dist = DIST_DIR): boolean {
  const built = builtAt(dist);
  if (built === 0) return true;
  const sources = fs.readdirSync(root).filter((name) => !NOT_READ_BY_THE_BUILD.has(name) && !name.endsWith('.md'));
  return sources.some((name) => newestIn(path.join(root, name)) > built && (name !== LOCK_FILE || lockChanged(root, dist)));
}

if (require.main === module) {
  if (buildIsStale()) execSync('npm run build', { cwd: ROOT, stdio: 'inherit' });
  else console.log('dist/ is newer than every source: no build needed.');
}
