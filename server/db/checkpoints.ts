import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the event loop, for SQLite under a steady stream of commits.
 *
 * A checkpoint copies the WAL's pages into the database file and syncs it. Run by the app's own
 * connection (SQLite's automatic checkpoint, every 10,000 pages: `sqlite.ts`), it holds the event
 * loop for as long: under 1,000 queries in flight, stalls of 100 to 300 ms every few seconds, which
 * every request waiting meanwhile (the health check's included) pays. Once the WAL has grown past
 * `startAtBytes`, a worker thread with a connection of its own checkpoints every `everyMs`
 * (PASSIVE: it copies what it can and never waits on the app's writes), so the app's automatic
 * checkpoint finds little or nothing left to copy. A database that stays small, as in most tests,
 * never starts the thread. Every 2 s rather than more often: each checkpoint also syncs the
 * database file, and at every 200 ms those syncs delayed the group commits' own (the streamed
 * bench read a lower ratio than with no thread at all); see docs/performance.md.
 *
 * Invariants: a checkpoint never changes what a reader sees or loses a commit (SQLite's own
 * guarantee, whichever connection runs it); the thread's connection only checkpoints; `close`
 * stops it and closes that connection before the app's own closes.
 */

export interface CheckpointOptions {
  /** The WAL size past which checkpoints move to the thread (1,000 pages by default). */
  startAtBytes?: number;
  everyMs?: number;
  /** How many commits go by between two looks at the WAL's size. */
  lookEvery?: number;
  /** Where a failed checkpoint is told (the app's log); the next one is tried as usual. */
  onError?: (message: string) => void;
}

/** The thread's code: plain JavaScript, so it runs the same under tsx, jest and a build. */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function walCheckpoints(file: string, walPath: string, options: CheckpointOptions = {}) {
  const { startAtBytes = 4096 * 1000, everyMs = 2000, lookEvery = 128, onError } = options;
  let commits = 0;
  let looking = false;
  let closed = false;
  let worker: Worker | undefined;
  let exited: Promise<void> | undefined;

  const start = () => {
    worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file, everyMs } });
    worker.unref();
    worker.on('message', (message: { error?: string }) => {
      if (message.error) onError?.(message.error);
    });
    const thread = worker;
    exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    worker.on('error', (error) => {
      // The thread is gone: the app's own automatic checkpoints go on as before it started.
      onError?.(error.message);
      worker = undefined;
    });
  };

  return {
    /** Says a commit was made; now and then looks (off the loop) at the WAL's size. */
    committed() {
      commits += 1;
      if (worker || closed || looking || commits % lookEvery !== 0) return;
      looking = true;
      fs.stat(walPath, (error, stats) => {
        looking = false;
        if (!error && !worker && !closed && stats.size >= startAtBytes) start();
      });
    },
    get running() {
      return worker !== undefined;
    },
    async close() {
      closed = true;
      if (!worker) return;
      worker.postMessage('close');
      await exited;
      worker = undefined;
    },
  };
}
