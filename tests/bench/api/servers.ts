import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { openDatabase } from '../../../server/db/database';
import type { Database, Engine } from '../../../server/db/types';
import { setPlan } from '../../helpers/fakeAi';
import { createTestDatabase } from '../../helpers/postgres';
import { newLoopbackAddress, postJsonFrom, startServer } from '../../helpers/server';
import { SEED_LEDGER_ROWS, SEED_USERS, log, type Cleanup } from './options';
import { assertRoomFor, engineName, formatBytes, seedPostgres, seedSqlite, type Seeded } from './seeding';

/**
 * What the bench measures against: the bare baseline, the real app in this process (on SQLite or
 * PostgreSQL, empty or seeded), or several app processes on one PostgreSQL database; and the
 * accounts it makes on them. Everything started is handed to the Cleanup, released in reverse.
 */

/** One app, or several on one database, as the load generator and the count checks see it. */
export interface Deployment {
  /** Where its instances listen; the load generator spreads its connections over them in turn. */
  urls: string[];
  /** The app's own database handle, or the bench's on the processes' database. */
  db: Kysely<Database>;
  engine: Engine;
}

export const ACCOUNT = {
  email: 'bench@example.com',
  password: 'Bench-secret-2026',
  full_name: 'Bench User',
  username: 'bench_user',
};

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function startBaseline(cleanup: Cleanup): Promise<string> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  cleanup.add('baseline app', () => app.close());
  return listen(app);
}

function settings(dataDir: string, databaseUrl: string | undefined): Record<string, string> {
  return {
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** The real app in this process on SQLite (no `databaseUrl`, in its own data dir) or PostgreSQL. */
export async function startApp(cleanup: Cleanup, tmpRoot: string, name: string, databaseUrl?: string): Promise<Deployment> {
  const app = await buildApp({ config: loadConfig(settings(path.join(tmpRoot, name), databaseUrl)) });
  cleanup.add(`${name} app`, () => app.close());
  return { urls: [await listen(app)], db: app.database.db, engine: app.database.engine };
}

/** A new PostgreSQL database, dropped at the end (after the apps on it, which are closed first). */
export async function newPostgresDatabase(cleanup: Cleanup): Promise<string> {
  const database = await createTestDatabase();
  cleanup.add('PostgreSQL database', () => database.drop());
  return database.url;
}

/**
 * `count` app processes (`server/main.ts`, as in production) on one new PostgreSQL database. Each
 * has an event loop and a pool of its own, which apps in this process would share. They start one
 * after another: the first migrates and makes the signing secret the others then read.
 */
export async function startProcesses(cleanup: Cleanup, tmpRoot: string, count: number): Promise<Deployment> {
  const databaseUrl = await newPostgresDatabase(cleanup);
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const dataDir = path.join(tmpRoot, `process-${i + 1}`);
    fs.mkdirSync(dataDir, { recursive: true });
    const server = await startServer(settings(dataDir, databaseUrl));
    cleanup.add(`app process ${i + 1}`, async () => void (await server.stop()));
    urls.push(server.baseUrl);
  }
  const handle = await openDatabase({ databaseUrl, dataDir: tmpRoot });
  cleanup.add("the bench's connections to the processes' database", () => handle.close());
  return { urls, db: handle.db, engine: 'postgres' };
}

/**
 * The app in this process on a database of its own that the app has migrated and the bench then
 * seeded in SQL (see `seedSql.ts`), with what the seeding took.
 */
export async function startSeededApp(cleanup: Cleanup, tmpRoot: string, engine: Engine, now: number): Promise<{ deployment: Deployment; seeded: Seeded }> {
  const name = `${engine}-seeded`;
  const dataDir = path.join(tmpRoot, name);
  const size = { users: SEED_USERS, ledgerRows: SEED_LEDGER_ROWS };
  assertRoomFor(tmpRoot, engine, size);
  const databaseUrl = engine === 'postgres' ? await newPostgresDatabase(cleanup) : undefined;
  await (await openDatabase({ databaseUrl: databaseUrl ?? null, dataDir })).close();
  log(`seeding ${engineName(engine)}: ${size.users.toLocaleString('en')} users, ${size.ledgerRows.toLocaleString('en')} ledger rows…`);
  const seeded = databaseUrl ? await seedPostgres(databaseUrl, size, now) : await seedSqlite(dataDir, size, now);
  log(`seeded ${engineName(engine)} in ${seeded.seconds.toFixed(1)} s (${formatBytes(seeded.bytes)} on disk)`);
  return { deployment: await startApp(cleanup, tmpRoot, name, databaseUrl), seeded };
}

export async function registerAccount(baseUrl: string, account: typeof ACCOUNT = ACCOUNT): Promise<{ token: string; userId: string }> {
  // From an address of its own: the bench makes more accounts than one address may sign up.
  const res = await postJsonFrom(`${baseUrl}/api/v1/auth/register`, account, newLoopbackAddress());
  const { text } = res;
  if (res.status !== 201) throw new Error(`register at ${baseUrl} failed: ${res.status} ${text}`);
  const body = JSON.parse(text) as { access_token?: unknown; user?: { id?: unknown } };
  if (typeof body.access_token !== 'string' || typeof body.user?.id !== 'string') throw new Error(`register at ${baseUrl} answered no access_token`);
  return { token: body.access_token, userId: body.user.id };
}

let accounts = 0;
/** A new user on `plan`, registered through the API and put on the plan as billing would. */
export async function planUser(deployment: Deployment, plan: 'professional' | 'team') {
  accounts += 1;
  const name = `${plan}_${accounts}`;
  const user = await registerAccount(deployment.urls[0]!, { ...ACCOUNT, email: `${name}@example.com`, username: name });
  await setPlan(deployment.db, user.userId, plan, Date.now());
  return user;
}
