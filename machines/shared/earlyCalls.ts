/**
 * Calls a signed-in page starts before the app's code has loaded: its first script (src/firstCalls.ts,
 * run by src/colorModeBoot.ts) sends the session check and the page's first data calls at once,
 * with the stored token, and the chart that makes the same call first is answered with it
 * (machines/shared/http.ts) instead of asking again. So a page's data no longer waits for the app to
 * boot, then for the session check, then for the page's own calls, one wave after another.
 */

interface EarlyCall {
  authorization: string;
  startedAt: number;
  response: Promise<Response>;
  /** How many of the page's calls it answers (a page whose charts ask the same thing twice). */
  uses: number;
}

declare global {
  interface Window {
    sheetmindEarlyCalls?: Map<string, EarlyCall>;
  }
}

/** An early answer older than this is not given to a chart: it asks afresh. */
const FRESH_MS = 30_000;

/**
 * Sends `GET url` now with the token, to answer the first chart that asks for it; asked for again,
 * the one call answers one more chart's (the same answer, read once for each).
 */
export function startEarlyCall(url: string, accessToken: string): void {
  const calls = (window.sheetmindEarlyCalls ??= new Map());
  const authorization = `Bearer ${accessToken}`;
  const sent = calls.get(url);
  if (sent?.authorization === authorization) {
    sent.uses += 1;
    return;
  }
  const response = fetch(url, { headers: { Authorization: authorization }, credentials: 'omit' });
  // A call no chart takes (the page went elsewhere) fails quietly: a chart that takes it gets the failure.
  response.catch(() => undefined);
  calls.set(url, { authorization, startedAt: Date.now(), response, uses: 1 });
}

/** Whether any early call is still waiting for its chart: until then only, a GET is looked up. */
export const anyEarlyCalls = (): boolean => (globalThis.window?.sheetmindEarlyCalls?.size ?? 0) > 0;

/**
 * The early call to `url`, if one was sent with the same authorization not long ago and has uses
 * left; after them, calls to it go to the server (its answer may have changed since).
 */
export function takeEarlyCall(url: string, authorization: string): Promise<Response> | null {
  const calls = globalThis.window?.sheetmindEarlyCalls;
  const call = calls?.get(url);
  if (!call) return null;
  call.uses -= 1;
  if (call.uses <= 0) calls!.delete(url);
  if (call.authorization !== authorization || Date.now() - call.startedAt > FRESH_MS) return null;
  // Each chart reads a copy of its own; the original stays unread for the next.
  return call.response.then((response) => response.clone());
}
