import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { startServer, type RunningServer } from '../helpers/server';

/**
 * Crash loop: a load generator writes through the API (registrations with unique emails) and
 * records only what was acknowledged with a 2xx; the server is killed with SIGKILL at a random
 * moment and started again on the same data. After every restart each acknowledged write must be
 * there, and the database must be sound. `CRASH_CYCLES` sets the cycles per engine (30 for the
 * full run; `npm test` runs fewer to fit CI's time).
 */

const CYCLES = Number(process.env.CRASH_CYCLES ?? 6);
const json = { 'content-type': 'application/json' };

jest.setTimeout(60_000 + CYCLES * 20_000);

interface Acknowledged {
  emails: Set<string>;
}

/** Writes as fast as it can until the server dies; remembers only what the server acknowledged. */
async function writeUntilKilled(server: RunningServer, acked: Acknowledged, runId: string): Promise<number> {
  let sent = 0;
  const worker = async (lane: number) => {
    for (let i = 0; ; i++) {
      const id = `${runId}-${lane}-${i}`;
      const email = `crash-${id}@example.com`;
      sent += 1;
      try {
        const res = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ email, password: `Crash-loop-${id}`, full_name: 'Crash Loop', username: `c_${crypto.createHash('sha1').update(id).digest('hex').slice(0, 20)}` }),
        });
        if (res.status === 201) acked.emails.add(email);
        else if (res.status >= 500) return;
      } catch {
        return; // the server is gone
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return sent;
}

interface Inspector {
  missing(acked: Acknowledged): Promise<string[]>;
  integrity(): Promise<string>;
  close(): Promise<void>;
}

function sqliteInspector(dataDir: string): Inspector {
  // Opened between runs, while no server is up; read-write, so a WAL left by the crash is recovered.
  const open = () => new SQLite(path.join(dataDir, 'sheetmind.db'));
  return {
    async missing(acked) {
      const db = open();
      try {
        const stored = new Set((db.prepare('select email from users').all() as Array<{ email: string }>).map((r) => r.email));
        return [...acked.emails].filter((email) => !stored.has(email));
      } finally {
        db.close();
      }
    },
    async integrity() {
      const db = open();
      try {
        return (db.pragma('integrity_check', { simple: true }) as string) ?? '';
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

function postgresInspector(url: string): Inspector {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    async missing(acked) {
      const { rows } = await pool.query<{ email: string }>('select email from users');
      const stored = new Set(rows.map((r) => r.email));
      return [...acked.emails].filter((email) => !stored.has(email));
    },
    async integrity() {
      // Every session and refresh token belongs to a user that exists (foreign keys held through the crashes).
      const { rows } = await pool.query<{ orphans: string }>(
        'select count(*) as orphans from sessions s left join users u on u.id = s.user_id where u.id is null',
      );
      return rows[0]!.orphans === '0' ? 'ok' : `${rows[0]!.orphans} orphaned sessions`;
    },
    close: () => pool.end(),
  };
}

describe.each(['sqlite', 'postgres'] as const)('crash loop on %s', (engine) => {
  let database: TestDatabase | undefined;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-crash-'));
    if (engine === 'postgres') database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged write through ${CYCLES} SIGKILLs`, async () => {
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', WEB_DIR: '/nonexistent', AUTH_SECRET: 'crash-loop-secret-crash-loop-secret-0', ...(database ? { DATABASE_URL: database.url } : {}) };
    const inspector = engine === 'sqlite' ? sqliteInspector(dataDir) : postgresInspector(database!.url);
    const acked: Acknowledged = { emails: new Set() };
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const server = await startServer(env);
        const writing = writeUntilKilled(server, acked, `${engine}${cycle}`);
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
        await server.stop('SIGKILL');
        await writing;
        expect(await inspector.missing(acked)).toEqual([]);
      }
      expect(await inspector.integrity()).toBe('ok');
      // The load really wrote something in most cycles.
      expect(acked.emails.size).toBeGreaterThan(CYCLES);
    } finally {
      await inspector.close();
    }
  });
});
