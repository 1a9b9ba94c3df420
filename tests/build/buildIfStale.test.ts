import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIsStale, stampLockFile } from '../../build/buildIfStale';

/**
 * The check `npm start` and `npm test` make before building, on a small tree of its own: a source
 * newer than the build makes it stale, and so does a lock file whose content changed, but not one
 * that `npm install` merely rewrote (the same bytes, a newer time).
 */
describe('the build check', () => {
  let root: string;
  let dist: string;
  const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds);
  const lock = () => path.join(root, 'package-lock.json');

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-check-'));
    dist = path.join(root, 'dist');
    fs.mkdirSync(path.join(root, 'src'));
    fs.mkdirSync(path.join(dist, 'web'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'export {};\n');
    fs.writeFileSync(lock(), '{"lockfileVersion": 3}\n');
    for (const file of [path.join(root, 'src', 'app.ts'), path.join(root, 'src'), lock()]) at(file, 1_000);
    // The build: its outputs, and the lock file it was made with.
    fs.writeFileSync(path.join(dist, 'web-manifest.json'), '{}');
    fs.writeFileSync(path.join(dist, 'web', 'index.html'), '<!doctype html>');
    stampLockFile(root, dist);
    for (const file of ['web-manifest.json', 'web/index.html']) at(path.join(dist, file), 2_000);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is fresh after a build, and stale once a source is newer', () => {
    expect(buildIsStale(root, dist)).toBe(false);
    at(path.join(root, 'src', 'app.ts'), 3_000);
    expect(buildIsStale(root, dist)).toBe(true);
  });

  it('stays fresh when a no-op npm install rewrote the lock file with the same content', () => {
    fs.writeFileSync(lock(), fs.readFileSync(lock()));
    at(lock(), 3_000);
    expect(buildIsStale(root, dist)).toBe(false);
  });

  it('is stale when the lock file changed, or when no build recorded it', () => {
    fs.writeFileSync(lock(), '{"lockfileVersion": 3, "packages": {}}\n');
    at(lock(), 3_000);
    expect(buildIsStale(root, dist)).toBe(true);
    fs.writeFileSync(lock(), '{"lockfileVersion": 3}\n');
    at(lock(), 3_000);
    fs.rmSync(path.join(dist, 'package-lock.sha256'));
    expect(buildIsStale(root, dist)).toBe(true);
  });
});
