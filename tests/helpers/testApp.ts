import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import Redis from 'ioredis';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import type { AiProvider } from '../../server/ai/provider';
import type { Clock } from '../../server/domain/clock';
import type { DatabaseHandle } from '../../server/db/database';
import type { MailMessage, Mailer } from '../../server/mail/mailer';
import { documentedAnswers, type OpenApiDocument } from './documentedAnswers';
import { copyMigratedSqlite, testDataRoot } from './migratedDatabases';
import { createMigratedDatabase, type TestDatabase } from './postgres';

export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: EngineName[] = ['sqlite', 'postgres'];

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(public time = Date.UTC(2026, 10, 22, 12)) {}
  now() {
    return this.time;
  }
  advance(ms: number) {
    this.time += ms;
  }
}

/**
 * Collects the mail the app sends (through its mail queue) instead of delivering it; every other
 * instance on the same database takes it too (`appOnSameDatabase`).
 */
export class MailCatcher implements Mailer {
  readonly sent: MailMessage[] = [];
  /** Sends what the app's queue holds that is due (set by `useTestApp`). */
  settle: () => Promise<void> = async () => undefined;
  async send(message: MailMessage) {
    this.sent.push(message);
  }
  /**
   * The mails to `to` once the app's queue sent all it holds that is due: for mail queued with the
   * answer (invitations), so every answered call's mail is counted, however loaded the machine.
   */
  async settledTo(to: string, kind?: string): Promise<MailMessage[]> {
    await this.settle();
    return this.sent.filter((m) => m.to === to && (kind === undefined || m.kind === kind));
  }
  /**
   * The newest mail to `to` (of `kind`, e.g. `password_reset`, when named: every account also got
   * a verification mail), waiting up to 10 s since mail goes out after the answer, through the queue
   * (on a loaded machine, the whole suite at once, half a second was not always enough).
   */
  async latestTo(to: string, kind?: string): Promise<MailMessage> {
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      await this.settle();
      const mail = this.sent.filter((m) => m.to === to && (kind === undefined || m.kind === kind)).at(-1);
      if (mail) return mail;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no ${kind ?? ''} mail to ${to}`);
  }
}

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  clock: TestClock;
  mail: MailCatcher;
  /** Everything the app logged so far. */
  logs(): string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Use the configured mailer (SMTP or outbox) rather than the catcher. */
  realMailer?: boolean;
}

/** The mail catcher of each app `useTestApp` and `useSecondInstance` built, for `register` to read the mailed link. */
const catchers = new WeakMap<FastifyInstance, MailCatcher>();

/**
 * Builds the real app on a fresh database of the given engine (a temp SQLite file, or a PostgreSQL
 * database made for this test file), and tears both down after. Use inside `describe.each(ENGINES)`.
 * The database starts at the latest migration, copied from one migrated once (`migratedDatabases.ts`).
 */
export function useTestApp(engine: EngineName, options: TestAppOptions = {}): TestContext {
  const context = { clock: new TestClock(), mail: new MailCatcher() } as TestContext;
  let pgDatabase: TestDatabase | undefined;
  let logText = '';
  beforeAll(async () => {
    context.dataDir = fs.mkdtempSync(path.join(testDataRoot(), 'sheetmind-test-'));
    if (engine === 'postgres') pgDatabase = await createMigratedDatabase();
    else await copyMigratedSqlite(context.dataDir);
    context.config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: context.dataDir,
      WEB_DIR: path.join(context.dataDir, 'no-web'),
      ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
      ...options.env,
    });
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
    context.logs = () => logText;
    context.app = checkedAgainstDocument(
      await buildApp({
        config: context.config,
        clock: context.clock,
        logStream,
        ...(options.realMailer ? {} : { mailer: context.mail }),
      }),
    );
    context.mail.settle = () => context.app.mailer.drain();
    if (!options.realMailer) catchers.set(context.app, context.mail);
  });
  afterAll(async () => {
    await context.app?.close();
    await pgDatabase?.dropWithRun();
    fs.rmSync(context.dataDir, { recursive: true, force: true });
  });
  return context;
}

type Check = ReturnType<typeof documentedAnswers>;
const checks = new Map<string, Check>();

/**
 * The check of a document, made once per test file and document: the apps of a file mostly serve
 * the same document, and compiling its schemas took some 0.2 s of a core for each app.
 */
function checkOf(doc: OpenApiDocument): Check {
  const key = JSON.stringify(doc);
  let check = checks.get(key);
  if (!check) {
    check = documentedAnswers(doc);
    checks.set(key, check);
  }
  return check;
}

/**
 * Makes every `app.inject` answer to an operation of the app's OpenAPI document fail the test
 * unless the document lists its status and its body fits the schema for that status: the API
 * suites, run through this, check the document against what the server really sends.
 */
export function checkedAgainstDocument(app: FastifyInstance): FastifyInstance {
  const inject = app.inject.bind(app);
  let check: Check | undefined;
  const checked = async (options: InjectOptions | string) => {
    const res = await inject(options);
    check ??= checkOf(app.swagger() as OpenApiDocument);
    const problem = check(res);
    if (problem) throw new Error(`Not in the OpenAPI document: ${problem}`);
    return res;
  };
  // The chained form (`inject().get(…)`) and the callback form are left as they are; the suites use neither.
  app.inject = ((options?: InjectOptions | string, callback?: (error: Error | undefined, res?: LightMyRequestResponse) => void) =>
    options === undefined ? inject() : callback ? inject(options, callback) : checked(options)) as typeof app.inject;
  return app;
}

export interface SameDatabaseOptions {
  /** Settings over the test app's; its log level is `silent` unless one is given. */
  config?: Partial<Config>;
  /** The handle to use: the test app's by default (its cache on SQLite, its pool on PostgreSQL); `own` opens one of the instance's own, as a second server would. */
  database?: DatabaseHandle | 'own';
  aiProvider?: AiProvider;
  logStream?: NodeJS.WritableStream;
}

/**
 * Another instance of the app on the test app's database, sharing its clock and its mail catcher:
 * each instance's mail queue polls the shared outbox and may be the one that sends a mail (a
 * verification mail sent by a second instance's own mailer was once missed by `register`). Its
 * answers are checked against the OpenAPI document as the test app's are.
 */
export async function appOnSameDatabase(ctx: TestContext, options: SameDatabaseOptions = {}): Promise<FastifyInstance> {
  const { database = ctx.app.database } = options;
  const app = await buildApp({
    config: { ...ctx.config, logLevel: 'silent', ...options.config },
    ...(database === 'own' ? {} : { database }),
    clock: ctx.clock,
    mailer: ctx.mail,
    aiProvider: options.aiProvider,
    logStream: options.logStream,
  });
  catchers.set(app, ctx.mail);
  return checkedAgainstDocument(app);
}

/** A second instance of the app on the test app's database with a handle of its own; `current` is set before the tests run. */
export function useSecondInstance(ctx: TestContext): { current: FastifyInstance } {
  const other = {} as { current: FastifyInstance };
  beforeAll(async () => {
    other.current = await appOnSameDatabase(ctx, { database: 'own' });
  });
  afterAll(() => other.current?.close());
  return other;
}

let counter = 0;

/** A unique, valid registration body. */
export function newAccount(overrides: Partial<Record<'email' | 'password' | 'full_name' | 'username', string>> = {}) {
  counter += 1;
  const id = `${process.pid}${counter}${Math.floor(Math.random() * 1e6)}`;
  return {
    email: `user${id}@example.com`,
    password: `Tr0ub4dor&3-${id}`,
    full_name: `Test User ${counter}`,
    username: `user_${id}`.slice(0, 30),
    ...overrides,
  };
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

/** POSTs JSON through inject. */
export function post(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, payload: body as object, headers });
}

let addresses = 0;

/** A distinct client address per call (10.x.y.z), for requests that must not share a per-address limit. */
export function newAddress(): string {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
}

/** The token of the newest verification link in the mail to `to` (decisions.md, "Verified email"). */
export async function verificationToken(mail: MailCatcher, to: string): Promise<string> {
  const { text } = await mail.latestTo(to, 'email_verification');
  const link = /\S+\/verify-email\?token=(\S+)/.exec(text);
  if (!link) throw new Error(`the newest mail to ${to} holds no verification link`);
  return decodeURIComponent(link[1]!);
}

/**
 * Registers a fresh account; answers its body and tokens. Each account signs up from its own
 * address, as different people do, so a file's many accounts stay under the sign-up limit.
 * The account then confirms its address as its owner would, with the link of the mail it got
 * (creating API keys and teams' invitations need it); `{ verified: false }` leaves it unconfirmed.
 * An app built without a catcher of its mail has the confirmation written in its database.
 */
export async function register(app: FastifyInstance, overrides: Parameters<typeof newAccount>[0] = {}, options: { verified?: boolean } = {}) {
  const account = newAccount(overrides);
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account, remoteAddress: newAddress() });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { access_token: string; refresh_token: string; user: { id: string; email: string; email_verified: boolean } };
  if (options.verified === false) return { account, ...body };
  const mail = catchers.get(app);
  if (mail) {
    const verified = await post(app, '/api/v1/auth/verify-email', { token: await verificationToken(mail, body.user.email) });
    if (verified.statusCode !== 200) throw new Error(`verify-email failed: ${verified.statusCode} ${verified.body}`);
  } else {
    await app.database.db.updateTable('users').set({ email_verified_at: Date.now() }).where('id', '=', body.user.id).execute();
  }
  return { account, ...body, user: { ...body.user, email_verified: true } };
}

/**
 * Runs `work` with passwords hashed at the production cost, which jest.config.js lowers for speed:
 * for the tests whose point is how long a hash takes. Hashes started after `work` ends are cheap again.
 * `cost` hashes dearer still, for a test that needs hashes to last whatever the machine's load.
 */
export async function atProductionHashCost<T>(work: () => Promise<T>, cost?: { memoryKiB: number; passes: number }): Promise<T> {
  const names = ['PASSWORD_HASH_MEMORY_KIB', 'PASSWORD_HASH_PASSES'];
  const lowered = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  if (cost) {
    process.env.PASSWORD_HASH_MEMORY_KIB = String(cost.memoryKiB);
    process.env.PASSWORD_HASH_PASSES = String(cost.passes);
  }
  try {
    return await work();
  } finally {
    for (const [name, value] of lowered) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

export const LIMIT_STORES = ['memory', 'redis'] as const;
export type LimitStore = (typeof LIMIT_STORES)[number];

/**
 * A Redis key prefix of this suite's own on the machine's Redis, for apps or servers that keep
 * their limits there; the prefix's keys are deleted after the suite.
 */
export function useRedisPrefix(): { url: string; prefix: string } {
  const url = 'redis://127.0.0.1:6379';
  const prefix = `sheetmind-test-${crypto.randomBytes(4).toString('hex')}:`;
  afterAll(async () => {
    const redis = new Redis(url);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  return { url, prefix };
}

/** A test app whose limits live in `store`: memory, or the machine's Redis under a prefix of this suite's own. */
export function useTestAppWithStore(engine: EngineName, store: LimitStore): TestContext {
  const redis = store === 'redis' ? useRedisPrefix() : null;
  return useTestApp(engine, redis ? { env: { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix } } : {});
}
