/**
 * Databases at the latest migration, made by copying one the migrations ran on, once: the API
 * tests build some two hundred apps, each on a new database, and running the migrations took
 * about a second of each on SQLite (a synced commit per migration) and 1.5 s on PostgreSQL.
 * The app still runs its migrations when it opens the copy; they find nothing to do, as on any
 * restart. The templates are named by a hash of the migrations' source, so a changed migration
 * gets a template of its own, and a test never sees a database that its migrations did not make.
 * `tests/api/migrations.test.ts` checks the migrations themselves, from an empty database.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/database';
import { sqliteFile } from '../../server/db/sqlite';

const MIGRATIONS = path.resolve(__dirname, '../../server/db/migrations');

let memory: string | undefined;

/**
 * Where the API tests keep their apps' folders (the SQLite files): /dev/shm where the machine has
 * it writable, else the temporary folder. The app syncs every SQLite commit, and a synced 4 KiB
 * write took some 15 ms on this machine's disk; in memory a sync returns at once, and the code
 * runs as it does on disk.
 */
export function testDataRoot(): string {
  if (memory) return memory;
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    memory = '/dev/shm';
  } catch {
    memory = os.tmpdir();
  }
  return memory;
}

let hash: string | undefined;

/** 12 hex digits of a hash of every file of the migrations (names and contents). */
export function migrationsHash(): string {
  if (hash) return hash;
  const digest = crypto.createHash('sha256');
  for (const name of fs.readdirSync(MIGRATIONS, { recursive: true, encoding: 'utf8' }).sort()) {
    const file = path.join(MIGRATIONS, name);
    if (!fs.statSync(file).isFile()) continue;
    digest.update(`${name}\0${fs.readFileSync(file, 'utf8')}\0`);
  }
  hash = digest.digest('hex').slice(0, 12);
  return hash;
}

/** Runs the app's migrations on a database, as the app does when it opens one: PostgreSQL at `databaseUrl`, or SQLite in `dataDir`. */
export async function migrate(options: { databaseUrl: string } | { dataDir: string }): Promise<void> {
  const handle = await openDatabase('databaseUrl' in options ? { databaseUrl: options.databaseUrl, dataDir: os.tmpdir() } : { databaseUrl: null, dataDir: options.dataDir });
  await handle.close();
}

/** The SQLite template's file, made if it is not there yet. */
async function sqliteTemplate(): Promise<string> {
  const template = path.join(testDataRoot(), `sheetmind-template-${migrationsHash()}.db`);
  if (fs.existsSync(template)) return template;
  const building = fs.mkdtempSync(path.join(testDataRoot(), 'sheetmind-template-'));
  try {
    await migrate({ dataDir: building });
    // Closing the last connection moved the write-ahead log into the file and removed it.
    if (fs.existsSync(`${sqliteFile(building)}-wal`)) throw new Error('the migrated SQLite database left its write-ahead log behind');
    // Several test processes may build it at once: each renames a whole file into place.
    fs.renameSync(sqliteFile(building), template);
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/** Puts a SQLite database at the latest migration where the app in `dataDir` will open it. */
export async function copyMigratedSqlite(dataDir: string): Promise<void> {
  const template = await sqliteTemplate();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.copyFileSync(template, sqliteFile(dataDir));
  fs.chmodSync(sqliteFile(dataDir), 0o600);
}
