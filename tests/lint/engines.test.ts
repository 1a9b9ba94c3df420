import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * The project says which Node it runs on (package.json `engines`); every installed package must
 * say it runs there too, or `npm install` warns and the package may use what that Node lacks.
 */
describe('the Node the project runs on', () => {
  it('is one every package in package-lock.json declares', () => {
    const root = path.resolve(__dirname, '../..');
    const project = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
    const oldest = semver.minVersion(project.engines.node)!.version;
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node !== undefined && !semver.satisfies(oldest, node);
      })
      .map(([where, entry]) => `${where}@${entry.version}: node ${(entry.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
