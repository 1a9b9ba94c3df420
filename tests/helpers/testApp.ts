import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import { createTestDatabase, type TestDatabase } from './postgres';

export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: EngineName[] = ['sqlite', 'postgres'];

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
}

/**
 * Builds the real app on a fresh database of the given engine (a temp SQLite file, or a PostgreSQL
 * database made for this test file), and tears both down after. Use inside `describe.each(ENGINES)`.
 */
export function useTestApp(engine: EngineName, env: Record<string, string> = {}): TestContext {
  const context = {} as TestContext;
  let pgDatabase: TestDatabase | undefined;
  beforeAll(async () => {
    context.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-test-'));
    if (engine === 'postgres') pgDatabase = await createTestDatabase();
    context.config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: context.dataDir,
      WEB_DIR: path.join(context.dataDir, 'no-web'),
      ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
      ...env,
    });
    context.app = await buildApp({ config: context.config });
  });
  afterAll(async () => {
    await context.app?.close();
    await pgDatabase?.drop();
    fs.rmSync(context.dataDir, { recursive: true, force: true });
  });
  return context;
}
