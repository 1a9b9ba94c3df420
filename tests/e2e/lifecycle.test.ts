import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../helpers/server';

jest.setTimeout(60_000);

describe('server lifecycle', () => {
  it('creates the SQLite database under DATA_DIR and exits 0 on SIGTERM after answering requests in flight', async () => {
    const server = await startServer({ LOG_LEVEL: 'info' });
    expect(fs.existsSync(path.join(server.dataDir, 'sheetmind.db'))).toBe(true);
    const inFlight = Array.from({ length: 20 }, () => fetch(`${server.baseUrl}/api/v1/health`).then((r) => r.status));
    const exit = server.stop('SIGTERM');
    const statuses = await Promise.allSettled(inFlight);
    await expect(exit).resolves.toBe(0);
    // Each request was either answered in full or refused before it was accepted: none was cut off.
    for (const result of statuses) {
      if (result.status === 'fulfilled') expect([200, 503]).toContain(result.value);
    }
    expect(server.output()).toContain('shutting down');
  });
});
