import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { walCheckpoints } from '../../server/db/checkpoints';
import { eventually } from '../helpers/eventually';

/**
 * Issue #34: once SQLite's WAL grows, its checkpoints run on a thread of their own, not on the
 * event loop the requests share. The app's connection here never checkpoints (autocheckpoint 0),
 * so the database file only grows when the thread copies the WAL's pages into it.
 */
describe('WAL checkpoints on a thread', () => {
  let dir: string;
  let file: string;
  let db: SQLite.Database;
  let checkpoints: ReturnType<typeof walCheckpoints> | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetmind-checkpoints-'));
    file = path.join(dir, 'sheetmind.db');
    db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table notes (id integer primary key, body text not null)');
  });
  afterEach(async () => {
    await checkpoints?.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Commits `count` rows of 2 kB, one commit each, telling the checkpoints of each; as a server
   * does, it yields to the event loop between its commits (every 8), where the looks at the WAL's
   * size come back.
   */
  const write = async (count: number, committed: () => void, from = 0) => {
    const insert = db.prepare('insert into notes (id, body) values (?, ?)');
    for (let i = from; i < from + count; i++) {
      insert.run(i, 'x'.repeat(2000));
      committed();
      if (i % 8 === 7) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const size = (name: string) => fs.statSync(name).size;
  /** A WAL frame: its 24-byte header and one page of the default 4 kB. */
  const FRAME_BYTES = 24 + 4096;
  const read = (name: string, at: number, length: number) => {
    const bytes = Buffer.alloc(length);
    const fd = fs.openSync(name, 'r');
    fs.readSync(fd, bytes, 0, length, at);
    fs.closeSync(fd);
    return bytes;
  };
  /** The WAL header's salts: SQLite draws new ones each time it starts writing the WAL from its beginning again. */
  const walSalts = () => read(`${file}-wal`, 16, 8).toString('hex');
  /**
   * Whether every frame of the WAL has been copied into the database file, from SQLite's shared
   * WAL index (the -shm file): its header's mxFrame (byte 16) against the checkpoint's nBackfill
   * (byte 96), both native-endian 32-bit (https://www.sqlite.org/walformat.html#the_wal_index_file_format).
   */
  const allCopied = () => {
    const index = read(`${file}-shm`, 0, 100);
    return index.readUInt32LE(16) > 0 && index.readUInt32LE(96) === index.readUInt32LE(16);
  };

  it('starts no thread while the WAL stays small', async () => {
    checkpoints = walCheckpoints(file, `${file}-wal`, { startAtBytes: 4 * 1024 * 1024, everyMs: 20, lookEvery: 8 });
    await write(64, checkpoints.committed);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(checkpoints.running).toBe(false);
    await checkpoints.close();
  });

  it('copies the WAL into the database file off the event loop once it has grown, keeping every row', async () => {
    const before = size(file);
    const thread = (checkpoints = walCheckpoints(file, `${file}-wal`, { startAtBytes: 256 * 1024, everyMs: 20, lookEvery: 8 }));
    await write(400, thread.committed);
    expect(size(`${file}-wal`)).toBeGreaterThan(256 * 1024);
    await eventually(async () => thread.running, true);
    // The rows' pages are in the database file now, copied by the thread.
    await eventually(async () => size(file) > before + 400 * 2000, true);
    // The WAL is reused from its start once all of it was copied: the next commit after a whole
    // checkpoint starts it over, and the next rows go over the old frames instead of after them (the
    // later ids may take a frame or two more of the table's interior pages: CI once read one more).
    await write(400, thread.committed, 400);
    const wal = size(`${file}-wal`);
    const salts = walSalts();
    await eventually(async () => allCopied(), true);
    await write(400, thread.committed, 800);
    expect(walSalts()).not.toBe(salts);
    expect(size(`${file}-wal`)).toBeLessThanOrEqual(wal + 4 * FRAME_BYTES);
    await thread.close();
    expect(thread.running).toBe(false);
    expect(db.prepare('select count(*) as n from notes').get()).toEqual({ n: 1200 });
    const again = new SQLite(file, { readonly: true });
    expect(again.prepare('select count(*) as n from notes').get()).toEqual({ n: 1200 });
    again.close();
  });
});
