import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrations } from '../../server/db/migrations';
import type { Database } from '../../server/db/types';
import { createTestDatabase } from '../helpers/postgres';

const BEFORE_CLUSTERING = '2026-11-23T0300-billing';
const BEFORE_LEDGER_BY_REQUEST = '2026-11-23T0500-account-generation';

/** Moves `db` to the migration `name`, up or down. */
function migratorOf(db: Kysely<Database>) {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  return async (name: string) => {
    const { error } = await migrator.migrateTo(name);
    if (error) throw error;
  };
}

/** A SQLite database of an earlier release, at `version`, in a temp dir. */
async function databaseAt(version: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-migrations-'));
  const file = new SQLite(path.join(dir, 'sheetmind.db'));
  file.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  const migrateTo = migratorOf(db);
  await migrateTo(version);
  return {
    db,
    file,
    migrateTo,
    close: async () => {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL database of an earlier release, at `version`, of its own. */
async function postgresAt(version: string) {
  const database = await createTestDatabase();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }) });
  const migrateTo = migratorOf(db);
  await migrateTo(version);
  return {
    db,
    migrateTo,
    close: async () => {
      await db.destroy();
      await database.drop();
    },
  };
}

const USAGE_TABLES = ['usage_months', 'usage_days', 'usage_seconds', 'usage_ledger'];

const ledgerRow = (request_id: string, now: number) => ({
  user_id: 'ada',
  request_id,
  task: 'analyze',
  month: '2026-11',
  day: '2026-11-23',
  status: 'reserved' as const,
  reserved_tokens: 150,
  created_at: now,
});

/** Accounts with these ids (and the id as every name). */
const addUsers = (db: Kysely<Database>, ids: string[], now: number) =>
  db
    .insertInto('users')
    .values(
      ids.map((id) => ({ id, email: `${id}@example.com`, username: id, username_key: id, full_name: id, password_hash: 'x', created_at: now, updated_at: now })),
    )
    .execute();

const rowsOf = (db: Kysely<Database>) =>
  Promise.all(USAGE_TABLES.map(async (table) => (await sql`select * from ${sql.table(table)} order by 1, 2`.execute(db)).rows));

const clustered = (file: SQLite.Database, table: string) =>
  /without rowid\s*$/i.test(file.prepare<[string], { sql: string }>("select sql from sqlite_master where type = 'table' and name = ?").get(table)!.sql);

describe('migrations of an existing SQLite database', () => {
  it('turns the usage tables into WITHOUT ROWID tables and keeps every row, key and cascade; down gives them back', async () => {
    const database = await databaseAt(BEFORE_CLUSTERING);
    const { db, file } = database;
    try {
      const now = Date.UTC(2026, 10, 23, 12);
      await addUsers(db, ['ada', 'bob'], now);
      await db.insertInto('usage_months').values({ user_id: 'ada', month: '2026-11', queries: 7, settled: 6, processing_ms: 42 }).execute();
      await db.insertInto('usage_days').values({ user_id: 'ada', day: '2026-11-23', queries: 7, tokens: 900, last_grant: 150 }).execute();
      await db.insertInto('usage_seconds').values({ user_id: 'ada', second: now / 1000, queries: 2 }).execute();
      await db
        .insertInto('usage_ledger')
        .values(
          ['r1', 'r2'].map((request_id) => ({
            ...ledgerRow(request_id, now),
            status: 'settled' as const,
            prompt_tokens: 40,
            completion_tokens: 60,
            processing_time_ms: 6,
            settled_at: now,
          })),
        )
        .execute();
      await db.insertInto('usage_months').values({ user_id: 'bob', month: '2026-11', queries: 1, settled: 1, processing_ms: 3 }).execute();
      const before = await rowsOf(db);

      await database.migrateTo('2026-11-23T0400-usage-clustered');
      for (const table of USAGE_TABLES) expect(clustered(file, table)).toBe(true);
      expect(await rowsOf(db)).toEqual(before);
      // The primary key still refuses a second row for the same request id. (The driver's error
      // class comes from another test file's realm when jest reuses the worker: match its message.)
      await expect(db.insertInto('usage_ledger').values(ledgerRow('r1', now)).execute()).rejects.toMatchObject({
        message: expect.stringMatching(/UNIQUE constraint failed/),
      });
      // Deleting an account still deletes its usage.
      await db.deleteFrom('users').where('id', '=', 'bob').execute();
      expect(await db.selectFrom('usage_months').select('user_id').execute()).toEqual([{ user_id: 'ada' }]);

      // Down through the migrations after it as well.
      await database.migrateTo('2026-11-23T0500-account-generation');
      await database.migrateTo(BEFORE_CLUSTERING);
      for (const table of USAGE_TABLES) expect(clustered(file, table)).toBe(false);
      expect(await db.selectFrom('usage_ledger').select('request_id').orderBy('request_id').execute()).toEqual([{ request_id: 'r1' }, { request_id: 'r2' }]);
    } finally {
      await database.close();
    }
  });

  it('moves the account generation with each change to an account table, and not with usage writes', async () => {
    const database = await databaseAt('2026-11-23T0500-account-generation');
    const { db, file } = database;
    const generation = () => file.prepare('select generation from account_generation').pluck().get() as number;
    try {
      const now = Date.UTC(2026, 10, 23, 12);
      const seen = [generation()];
      await db
        .insertInto('users')
        .values({ id: 'ada', email: 'ada@example.com', username: 'ada', username_key: 'ada', full_name: 'Ada', password_hash: 'x', created_at: now, updated_at: now })
        .execute();
      seen.push(generation());
      await db.updateTable('users').set({ full_name: 'Ada L.' }).where('id', '=', 'ada').execute();
      seen.push(generation());
      await db.insertInto('usage_months').values({ user_id: 'ada', month: '2026-11', queries: 1, settled: 1, processing_ms: 3 }).execute();
      seen.push(generation());
      await db.deleteFrom('users').where('id', '=', 'ada').execute();
      seen.push(generation());
      // Usage changed nothing; the cascade from users to usage_months counts once, as the user's delete.
      expect(seen).toEqual([0, 1, 2, 2, 3]);
    } finally {
      await database.close();
    }
  });
});

/** The ledger's primary key columns, in key order. */
async function ledgerKey(db: Kysely<Database>, engine: 'sqlite' | 'postgres'): Promise<string[]> {
  const query =
    engine === 'sqlite'
      ? sql<{ name: string }>`select name from pragma_table_info('usage_ledger') where pk > 0 order by pk`
      : sql<{ name: string }>`select a.attname as name from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = 'usage_ledger'::regclass and i.indisprimary
          order by array_position(i.indkey::int2[], a.attnum)`;
  return (await query.execute(db)).rows.map((row) => row.name);
}

describe.each([
  ['SQLite', 'sqlite' as const, databaseAt],
  ['PostgreSQL', 'postgres' as const, postgresAt],
])('the ledger keyed by request id on %s', (_name, engine, at) => {
  it('keeps every row, a request id per user and the cascade; down gives the user-first key back', async () => {
    const database = await at(BEFORE_LEDGER_BY_REQUEST);
    const { db } = database;
    try {
      const now = Date.UTC(2026, 10, 23, 12);
      await addUsers(db, ['ada', 'bob'], now);
      await db
        .insertInto('usage_ledger')
        .values([{ ...ledgerRow('r2', now), status: 'settled', prompt_tokens: 40, completion_tokens: 60, processing_time_ms: 6, settled_at: now }, ledgerRow('r1', now)])
        .execute();
      const ledger = () => db.selectFrom('usage_ledger').selectAll().orderBy('request_id').orderBy('user_id').execute();
      const before = await ledger();
      expect(await ledgerKey(db, engine)).toEqual(['user_id', 'request_id']);

      await database.migrateTo('2026-11-23T0600-ledger-by-request');
      expect(await ledgerKey(db, engine)).toEqual(['request_id', 'user_id']);
      if (engine === 'sqlite') {
        const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'usage_ledger'`.execute(db);
        expect(rows[0]!.sql).toMatch(/without rowid\s*$/i);
      }
      expect(await ledger()).toEqual(before);
      // The same Idempotency-Key from another user is another query; from the same user, a repeat.
      await db.insertInto('usage_ledger').values({ ...ledgerRow('r1', now), user_id: 'bob' }).execute();
      await expect(db.insertInto('usage_ledger').values(ledgerRow('r1', now)).execute()).rejects.toMatchObject({
        message: expect.stringMatching(/UNIQUE constraint failed|duplicate key value/),
      });
      // Deleting an account still deletes its usage.
      await db.deleteFrom('users').where('id', '=', 'bob').execute();
      expect(await ledger()).toEqual(before);

      await database.migrateTo(BEFORE_LEDGER_BY_REQUEST);
      expect(await ledgerKey(db, engine)).toEqual(['user_id', 'request_id']);
      expect(await ledger()).toEqual(before);
    } finally {
      await database.close();
    }
  });
});

describe.each([
  ['SQLite', databaseAt],
  ['PostgreSQL', postgresAt],
])('a team handed over before billing followed ownership, on %s', (_name, at) => {
  it("moves the team's running subscription to its owner where nothing is lost or doubled, and leaves the rest", async () => {
    const database = await at('2026-11-24T0300-answer-query-function');
    const { db } = database;
    try {
      const now = Date.UTC(2026, 10, 23, 12);
      const later = Date.now() + 20 * 86_400_000;
      await addUsers(db, ['ada', 'bob', 'cy', 'dee', 'eve', 'fay'], now);
      const team = async (id: string, billing: string, owner: string) => {
        await db.insertInto('teams').values({ id, name: id, billing_user_id: billing, default_monthly_query_cap: null, created_at: now, updated_at: now }).execute();
        await db.insertInto('team_members').values({ team_id: id, user_id: owner, role: 'owner', monthly_query_cap: null, joined_at: now }).execute();
      };
      const subscription = (user_id: string, plan: 'professional' | 'team', status: 'active' | 'canceled', id: string) =>
        db
          .insertInto('subscriptions')
          .values({ user_id, plan, status, current_period_start: now, current_period_end: later, cancel_at_period_end: 0, scheduled_plan: null, provider: 'stripe', provider_customer_id: `cus_${id}`, provider_subscription_id: id, provider_updated_at: now, updated_at: now })
          .execute();
      // Handed from ada to bob; from cy to dee, who pays for a Professional of their own; from eve
      // to fay, whose Team plan had ended.
      await team('t1', 'ada', 'bob');
      await team('t2', 'cy', 'dee');
      await team('t3', 'eve', 'fay');
      await subscription('ada', 'team', 'active', 'sub_t1');
      await subscription('cy', 'team', 'active', 'sub_t2');
      await subscription('dee', 'professional', 'active', 'sub_dee');
      await subscription('eve', 'team', 'canceled', 'sub_t3');

      await database.migrateTo('2026-11-26T0100-team-billing-follows-owner');
      const teams = await db.selectFrom('teams').select(['id', 'billing_user_id']).orderBy('id').execute();
      expect(teams).toEqual([
        { id: 't1', billing_user_id: 'bob' },
        { id: 't2', billing_user_id: 'cy' },
        { id: 't3', billing_user_id: 'fay' },
      ]);
      const held = await db.selectFrom('subscriptions').select(['user_id', 'provider_subscription_id']).orderBy('user_id').execute();
      expect(held).toEqual([
        { user_id: 'bob', provider_subscription_id: 'sub_t1' },
        { user_id: 'cy', provider_subscription_id: 'sub_t2' },
        { user_id: 'dee', provider_subscription_id: 'sub_dee' },
        { user_id: 'eve', provider_subscription_id: 'sub_t3' },
      ]);
    } finally {
      await database.close();
    }
  });
});
