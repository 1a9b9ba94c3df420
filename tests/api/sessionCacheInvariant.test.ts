import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { openDatabase, type DatabaseHandle } from '../../server/db/database';
import { activeSession } from '../../server/domain/sessions';

/**
 * SQLite keeps the session check's answers until `account_generation` moves, and only triggers
 * on the tables it reads move it (server/db/keyedReads.ts). A session check that read one more
 * table without such triggers would answer from a stale cache after that table changed: this
 * test asks SQLite which tables the statement opens and fails on any without them.
 */
describe('the cached session check on sqlite', () => {
  let dataDir: string;
  let database: DatabaseHandle;
  let file: SQLite.Database;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-cache-'));
    database = await openDatabase({ databaseUrl: null, dataDir });
    file = new SQLite(path.join(dataDir, 'sheetmind.db'), { readonly: true });
  });
  afterAll(async () => {
    file.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The statements the session check hands to `keyedRead`, as SQLite would run them. */
  async function sessionCheckStatements(): Promise<string[]> {
    const texts: string[] = [];
    const recording: DatabaseHandle = {
      ...database,
      keyedRead: async (_name, sqlFor) => {
        texts.push(sqlFor('= ?'));
        return undefined;
      },
    };
    await activeSession(recording, 'a-session-id', Date.now());
    return texts;
  }

  /** The tables a statement opens, tables and indexes alike (SQLite's own plan: EXPLAIN's OpenRead opcodes). */
  function tablesRead(sqlText: string): string[] {
    const byRootPage = new Map(
      (file.prepare('select rootpage, tbl_name from sqlite_master where rootpage > 0').all() as Array<{ rootpage: number; tbl_name: string }>).map((row) => [
        row.rootpage,
        row.tbl_name,
      ]),
    );
    const steps = file.prepare(`explain ${sqlText}`).all(...Array.from(sqlText.matchAll(/\?/g), () => 'key')) as Array<{ opcode: string; p2: number }>;
    return [...new Set(steps.filter((step) => step.opcode === 'OpenRead').map((step) => byRootPage.get(step.p2)!))].sort();
  }

  /** Tables whose every insert, update and delete moves `account_generation`. */
  function tablesWithGenerationTriggers(): string[] {
    const triggers = file.prepare("select tbl_name, sql from sqlite_master where type = 'trigger'").all() as Array<{ tbl_name: string; sql: string }>;
    const changes = new Map<string, Set<string>>();
    for (const { tbl_name, sql } of triggers) {
      const event = /\bafter\s+(insert|update|delete)\b/i.exec(sql)?.[1]?.toLowerCase();
      if (!event || !/update\s+account_generation\s+set\s+generation\s*=\s*generation\s*\+\s*1/i.test(sql)) continue;
      changes.set(tbl_name, (changes.get(tbl_name) ?? new Set()).add(event));
    }
    return [...changes].filter(([, events]) => events.size === 3).map(([table]) => table).sort();
  }

  it('reads only tables whose every change moves the generation the cache is kept by', async () => {
    const statements = await sessionCheckStatements();
    expect(statements).toHaveLength(1);
    const read = tablesRead(statements[0]!);
    expect(read).toEqual(expect.arrayContaining(['sessions', 'users', 'subscriptions']));
    const guarded = tablesWithGenerationTriggers();
    expect(read.filter((table) => !guarded.includes(table))).toEqual([]);
  });

  it('would catch a table without the triggers', () => {
    // The same check against a statement that also reads the metering tables, which have none.
    const read = tablesRead('select sessions.id as key from sessions join usage_months on usage_months.user_id = sessions.user_id where sessions.id = ?');
    expect(read.filter((table) => !tablesWithGenerationTriggers().includes(table))).toEqual(['usage_months']);
  });
});
