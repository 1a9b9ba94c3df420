import { tokenStorage, type TokenPair } from './tokenStorage';

/**
 * Which refresh token a tab has already exchanged, told to the other tabs through IndexedDB.
 *
 * The tabs take turns refreshing under one Web Lock, and a tab that gets the lock after another
 * first reads local storage to see whether the other tab has already refreshed. In Chromium that
 * read can be stale: each tab's process keeps its own copy of local storage and learns of another
 * tab's writes a moment later, after the lock may already be its own. It would then send the
 * refresh token that was just used (the server's grace window hands it the same successor, so
 * nobody is signed out, but that is a second refresh the tabs were meant to share). IndexedDB has no
 * such delay: what one tab's transaction committed, the next reader sees. So the tab that refreshed
 * writes the token it used there before it lets the lock go, and a tab that finds its own stored
 * token written there knows the new pair is on its way and waits for it in local storage.
 *
 * The record holds one token that is already spent (the next refresh overwrites it, and a new
 * session's tokens never match it); the live pair stays in local storage only.
 * Without IndexedDB (a private window may refuse it, jsdom has none) each tab checks local storage
 * alone, as before.
 */

const DATABASE = 'sheetmind.auth';
const STORE = 'handoff';
const KEY = 'exchanged';
/** How long a tab waits for the new pair to reach its local storage before it refreshes itself. */
const ARRIVAL_TIMEOUT_MS = 3000;

function openDatabase(): Promise<IDBDatabase | null> {
  const factory = globalThis.indexedDB;
  if (!factory) return Promise.resolve(null);
  return new Promise((resolve) => {
    try {
      const request = factory.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
      request.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
}

/** Runs one request in its own transaction; resolves once the transaction has committed (null on any failure). */
async function inStore<T>(mode: IDBTransactionMode, ask: (store: IDBObjectStore) => IDBRequest<T>): Promise<T | null> {
  const db = await openDatabase();
  if (!db) return null;
  try {
    return await new Promise<T | null>((resolve) => {
      const transaction = db.transaction(STORE, mode);
      const request = ask(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result ?? null);
      transaction.onerror = () => resolve(null);
      transaction.onabort = () => resolve(null);
    });
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** Records that `refreshToken` has been exchanged; resolves once other tabs can read it. */
export async function recordExchanged(refreshToken: string): Promise<void> {
  await inStore('readwrite', (store) => store.put(refreshToken, KEY));
}

/**
 * When another tab has already exchanged `refreshToken`, the pair it got, once this tab's local
 * storage shows it (null if that takes longer than a few seconds); null at once otherwise.
 */
export async function pairFromAnotherTab(refreshToken: string): Promise<TokenPair | null> {
  if ((await inStore<string>('readonly', (store) => store.get(KEY))) !== refreshToken) return null;
  const arrived = (): TokenPair | null => {
    const stored = tokenStorage.read();
    return stored.accessToken && stored.refreshToken && stored.refreshToken !== refreshToken ? { access_token: stored.accessToken, refresh_token: stored.refreshToken } : null;
  };
  return (
    arrived() ??
    new Promise((resolve) => {
      const done = (pair: TokenPair | null) => {
        clearTimeout(timer);
        window.removeEventListener('storage', onStorage);
        resolve(pair);
      };
      const onStorage = () => {
        const pair = arrived();
        if (pair) done(pair);
      };
      const timer = setTimeout(() => done(arrived()), ARRIVAL_TIMEOUT_MS);
      window.addEventListener('storage', onStorage);
    })
  );
}
