import fs from 'node:fs';
import path from 'node:path';

const WEB_DIR = path.resolve(__dirname, '../../dist/web');

/** Every file of the production build (`npm run build`, which `npm test` runs before jest). */
function builtFiles(): string[] {
  if (!fs.existsSync(path.join(WEB_DIR, 'index.html'))) {
    throw new Error('No production build in dist/web: run `npm run build` first.');
  }
  return fs.readdirSync(WEB_DIR, { recursive: true, encoding: 'utf8' }).map((file) => path.join(WEB_DIR, file)).filter((file) => fs.statSync(file).isFile());
}

describe('the production build', () => {
  it('contains none of the development inspector', () => {
    const offenders = builtFiles().filter((file) => /statelyai|createBrowserInspector|stately\.ai\/inspect/i.test(fs.readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('ships no source maps', () => {
    expect(builtFiles().filter((file) => file.endsWith('.map'))).toEqual([]);
  });
});
