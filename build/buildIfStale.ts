import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, WEB_DIR } from './manifest';

/**
 * `npm start` and `npm test` run this instead of `npm run build`: it builds only when dist/ is
 * missing or older than a file the build reads. Every folder and root file counts except the ones
 * the client build never reads (and the root's Markdown), so a new source folder counts without
 * being listed here; a needless build costs a minute, a missed one serves or tests old code.
 */
const ROOT = path.resolve(__dirname, '..');
const NOT_READ_BY_THE_BUILD = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage', 'screenshots', 'server', 'tests', 'docs', '.ci']);

function newestIn(entry: string): number {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((newest, name) => Math.max(newest, newestIn(path.join(entry, name))), stat.mtimeMs);
}

/** When the last build finished writing, or 0 without one (the manifest and page are among its last writes). */
function builtAt(): number {
  const outputs = [MANIFEST_FILE, path.join(WEB_DIR, 'index.html')];
  if (!outputs.every((file) => fs.existsSync(file))) return 0;
  return Math.min(...outputs.map((file) => fs.statSync(file).mtimeMs));
}

export function buildIsStale(): boolean {
  const built = builtAt();
  if (built === 0) return true;
  const sources = fs.readdirSync(ROOT).filter((name) => !NOT_READ_BY_THE_BUILD.has(name) && !name.endsWith('.md'));
  return sources.some((name) => newestIn(path.join(ROOT, name)) > built);
}

if (require.main === module) {
  if (buildIsStale()) execSync('npm run build', { cwd: ROOT, stdio: 'inherit' });
  else console.log('dist/ is newer than every source: no build needed.');
}
