import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, migrationsHash } from './migratedDatabases';

/** The machine's PostgreSQL (trust auth); override with TEST_POSTGRES_URL. */
export const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The jest run's id (set by `tests/setup/databases.ts`), in the names of the databases it leaves
 * to be dropped at its end: `sheetmind_test_<run>_…`, the run being its start in seconds (base 36)
 * and 6 random hex digits.
 */
const RUN_VARIABLE = 'SHEETMIND_TEST_RUN';
const PREFIX = 'sheetmind_test_';

export interface TestDatabase {
  url: string;
  /** Drops it now. */
  drop(): Promise<void>;
  /**
   * Drops it with the jest run's other databases, when the run ends (`dropRunDatabases`), or now
   * outside a jest run. PostgreSQL (up to 15) checkpoints for each DROP DATABASE, which took 1–2.5 s
   * on this machine's disk; drops made together share one checkpoint.
   */
  dropWithRun(): Promise<void>;
}

function urlOf(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a connection to the server's `postgres` database. */
async function asAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  await asAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * A fresh, empty database of its own for one test file. With `template`, a copy of that database
 * instead (which no one may be connected to).
 */
export async function createTestDatabase(template?: string): Promise<TestDatabase> {
  const run = process.env[RUN_VARIABLE];
  const name = `${PREFIX}${run ? `${run}_` : ''}${crypto.randomBytes(6).toString('hex')}`;
  await asAdmin((admin) => admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  return {
    url: urlOf(name),
    drop: () => dropDatabase(name),
    dropWithRun: async () => {
      if (!run) await dropDatabase(name);
    },
  };
}

/**
 * A database of its own at the latest migration, as the app leaves a new one when it first opens
 * it: a copy of a template database that the migrations ran on once (see `migratedDatabases.ts`).
 * Migrating each test's database itself took some 1.5 s; copying the template takes a fraction.
 * Its commits do not wait for the disk (`synchronous_commit = off`, which PostgreSQL allows each
 * session): what a session sees, and when, is the same; only a crash of PostgreSQL itself could lose
 * the last commits. A synced commit took some 15 ms of waiting on this machine's disk.
 */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  const template = `sheetmind_template_${migrationsHash()}`;
  await asAdmin(async (admin) => {
    // One process builds the template, under a name of its own, while the others wait; the
    // rename makes it appear whole.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (found.rowCount) return;
    const building = `${template}_${crypto.randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    try {
      await migrate({ databaseUrl: urlOf(building) });
      // No connection may be open to a template while it is copied: none can be.
      await admin.query(`ALTER DATABASE ${building} WITH ALLOW_CONNECTIONS false`);
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } catch (error) {
      await dropDatabase(building);
      throw error;
    }
  });
  const database = await createTestDatabase(template);
  await asAdmin((admin) => admin.query(`ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET synchronous_commit = off`));
  return database;
}

/** Starts a jest run whose databases `dropRunDatabases` drops at its end (a run started before keeps its own). */
export function startRun(): void {
  process.env[RUN_VARIABLE] ??= `${Math.floor(Date.now() / 1000).toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
}

/**
 * Drops the run's databases, and those of runs that started over a day ago (killed before their
 * end), a few at a time: the drops in flight together share a checkpoint.
 */
export async function dropRunDatabases(): Promise<void> {
  const run = process.env[RUN_VARIABLE];
  if (!run) return;
  const dayAgo = Math.floor(Date.now() / 1000) - 24 * 3600;
  const { rows } = await asAdmin((admin) => admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${PREFIX}%`]));
  const ours = rows
    .map((row) => row.datname)
    .filter((name) => {
      const [, started, random] = /^sheetmind_test_([0-9a-z]+)_([0-9a-f]{6})_[0-9a-f]{12}$/.exec(name) ?? [];
      return started !== undefined && (`${started}_${random}` === run || parseInt(started, 36) < dayAgo);
    });
  const queue = [...ours];
  await Promise.all(
    Array.from({ length: Math.min(10, queue.length) }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) await dropDatabase(name);
    }),
  );
}
