import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { startServer, type RunningServer } from '../helpers/server';

/**
 * Crash loop: a load generator writes through the API (registrations, AI queries with
 * idempotency keys, test-mode payments) and records only what the server acknowledged with a
 * 2xx (a 303 to the success page, for a payment); the server is killed with SIGKILL at a random
 * moment and started again on the same data, and whatever was cut off is sent again, as a client
 * would. After every restart each acknowledged write is there, counters equal their ledgers, no
 * payment event is applied twice and the database is sound. `CRASH_CYCLES` sets the cycles per
 * engine (30 for the full run; `npm test` runs fewer to fit CI's time).
 */

const CYCLES = Number(process.env.CRASH_CYCLES ?? 6);
const json = { 'content-type': 'application/json' };

jest.setTimeout(90_000 + CYCLES * 20_000);

/** What the client knows: acknowledged writes, and the ones cut off that it will send again. */
interface Ledger {
  emails: Set<string>;
  queryKeys: Set<string>;
  pendingQueries: Set<string>;
  paidUsers: Set<string>;
  pendingPayments: Map<string, string>;
}

interface Account {
  id: string;
  token: string;
}

/** `fetch failed`: the server is down. Checked by shape, since fetch's errors come from another realm than jest's. */
const isGone = (error: unknown) => (error as { message?: unknown } | null)?.message === 'fetch failed';

async function register(server: RunningServer, email: string): Promise<Account | null> {
  const res = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      email,
      password: `Crash-loop-${email}`,
      full_name: 'Crash Loop',
      username: `c_${crypto.createHash('sha1').update(email).digest('hex').slice(0, 20)}`,
    }),
  });
  if (res.status !== 201) return null;
  const body = (await res.json()) as { access_token: string; user: { id: string } };
  return { id: body.user.id, token: body.access_token };
}

/** Opens a test-mode checkout for `plan`; answers the token of its page. */
async function checkoutToken(server: RunningServer, account: Account, plan: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/v1/subscription/checkout`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ plan }),
  });
  const { checkout_url: url } = (await res.json()) as { checkout_url: string };
  return new URL(url).searchParams.get('token')!;
}

/** Submits the checkout page's form with the card that pays: acknowledged by the 303 to the success page. */
async function pay(server: RunningServer, token: string): Promise<boolean> {
  const res = await fetch(`${server.baseUrl}/billing/test/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }).toString(),
    redirect: 'manual',
  });
  return res.status === 303 && (res.headers.get('location') ?? '').endsWith('checkout=success');
}

async function query(server: RunningServer, account: Account, key: string): Promise<boolean> {
  const res = await fetch(`${server.baseUrl}/api/v1/query`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${account.token}`, 'idempotency-key': key },
    body: JSON.stringify({ task: 'analyze', prompt: 'Sum the column', data: [['Amount'], [1], [2], [3]] }),
  });
  return res.status === 200;
}

/** Writes as fast as it can until the server dies; remembers only what the server acknowledged. */
async function writeUntilKilled(server: RunningServer, ledger: Ledger, heavy: Account, runId: string): Promise<void> {
  const lane = async (work: (i: number) => Promise<void>) => {
    for (let i = 0; ; i++) {
      try {
        await work(i);
      } catch (error) {
        if (isGone(error)) return;
        throw error;
      }
    }
  };
  await Promise.all([
    ...[0, 1].map((n) =>
      lane(async (i) => {
        const email = `crash-${runId}-${n}-${i}@example.com`;
        if (await register(server, email)) ledger.emails.add(email);
      }),
    ),
    lane(async (i) => {
      const key = `q-${runId}-${i}`;
      ledger.pendingQueries.add(key);
      if (await query(server, heavy, key)) {
        ledger.pendingQueries.delete(key);
        ledger.queryKeys.add(key);
      }
    }),
    lane(async (i) => {
      const account = await register(server, `payer-${runId}-${i}@example.com`);
      if (!account) return;
      const token = await checkoutToken(server, account, 'professional');
      ledger.pendingPayments.set(account.id, token);
      if (await pay(server, token)) {
        ledger.pendingPayments.delete(account.id);
        ledger.paidUsers.add(account.id);
      }
    }),
  ]);
}

/** Sends again what was cut off by the crash, with the same idempotency key or checkout. */
async function resend(server: RunningServer, ledger: Ledger, heavy: Account): Promise<void> {
  for (const key of [...ledger.pendingQueries]) {
    if (await query(server, heavy, key)) {
      ledger.pendingQueries.delete(key);
      ledger.queryKeys.add(key);
    }
  }
  for (const [userId, token] of [...ledger.pendingPayments]) {
    // The checkout may have been paid just before the crash: paying it again must not apply twice.
    if (await pay(server, token)) ledger.paidUsers.add(userId);
    ledger.pendingPayments.delete(userId);
  }
}

type Rows = Array<Record<string, unknown>>;

interface Store {
  all(sql: string, params?: unknown[]): Promise<Rows>;
  integrity(): Promise<string>;
  close(): Promise<void>;
}

function sqliteStore(dataDir: string): Store {
  // Opened between runs, while no server is up; read-write, so a WAL left by the crash is recovered.
  const open = () => new SQLite(path.join(dataDir, 'sheetmind.db'));
  return {
    async all(sql, params = []) {
      const db = open();
      try {
        return db.prepare(sql).all(...params) as Rows;
      } finally {
        db.close();
      }
    },
    async integrity() {
      const db = open();
      try {
        return String(db.pragma('integrity_check', { simple: true }));
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

function postgresStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    async all(sql, params = []) {
      let n = 0;
      return (await pool.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Rows;
    },
    async integrity() {
      // Every session belongs to a user that exists: foreign keys held through the crashes.
      // A count is a string, or a number once the app's modules (which parse int8 as numbers) are loaded here.
      const { rows } = await pool.query<{ orphans: string | number }>('select count(*) as orphans from sessions s left join users u on u.id = s.user_id where u.id is null');
      return Number(rows[0]!.orphans) === 0 ? 'ok' : `${rows[0]!.orphans} orphaned sessions`;
    },
    close: () => pool.end(),
  };
}

/** Everything the client was told is stored, and every counter agrees with its ledger. */
async function check(store: Store, ledger: Ledger): Promise<void> {
  const emails = new Set((await store.all('select email from users')).map((r) => String(r.email)));
  expect([...ledger.emails].filter((email) => !emails.has(email))).toEqual([]);

  const keys = new Set((await store.all(`select request_id from usage_ledger where status = 'settled'`)).map((r) => String(r.request_id)));
  expect([...ledger.queryKeys].filter((key) => !keys.has(key))).toEqual([]);
  const counters = await store.all(
    `select m.user_id, m.month, m.queries, (select count(*) from usage_ledger l where l.user_id = m.user_id and l.month = m.month) as rows
     from usage_months m`,
  );
  for (const row of counters) expect(Number(row.queries)).toBe(Number(row.rows));

  const plans = new Map((await store.all('select user_id, plan from subscriptions')).map((r) => [String(r.user_id), String(r.plan)]));
  expect([...ledger.paidUsers].filter((id) => plans.get(id) !== 'professional')).toEqual([]);
  const checkouts = await store.all(
    `select user_id, count(*) as applied from billing_events where type = 'checkout.session.completed' and outcome = 'applied' group by user_id`,
  );
  expect(checkouts.filter((r) => Number(r.applied) > 1)).toEqual([]);
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
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WEB_DIR: '/nonexistent',
      AUTH_SECRET: 'crash-loop-secret-crash-loop-secret-0',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const store = engine === 'sqlite' ? sqliteStore(dataDir) : postgresStore(database!.url);
    const ledger: Ledger = { emails: new Set(), queryKeys: new Set(), pendingQueries: new Set(), paidUsers: new Set(), pendingPayments: new Map() };
    try {
      // A Team user (unlimited queries) sends the queries, so no limit stops the load.
      let server = await startServer(env);
      const heavy = (await register(server, `heavy-${engine}@example.com`))!;
      expect(await pay(server, await checkoutToken(server, heavy, 'team'))).toBe(true);
      await server.stop();

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        server = await startServer(env);
        await resend(server, ledger, heavy);
        const writing = writeUntilKilled(server, ledger, heavy, `${engine}${cycle}`);
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 900));
        await server.stop('SIGKILL');
        await writing;
        await check(store, ledger);
      }
      expect(await store.integrity()).toBe('ok');
      console.log(
        `crash loop on ${engine}: ${CYCLES} SIGKILLs; acknowledged and found after restart: ${ledger.emails.size} registrations, ` +
          `${ledger.queryKeys.size} queries, ${ledger.paidUsers.size} payments`,
      );
      // The load really wrote each kind of thing.
      expect(ledger.emails.size).toBeGreaterThan(CYCLES);
      expect(ledger.queryKeys.size).toBeGreaterThan(CYCLES);
      expect(ledger.paidUsers.size).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
