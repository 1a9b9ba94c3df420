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
}

declare global {
  interface Window {
    sheetmindEarlyCalls?: Map<string, EarlyCall[]>;
  }
}

/** An early answer older than this is not given to a chart: it asks afresh. */
const FRESH_MS = 30_000;

/** Sends `GET url` now with the token, to be answered to the first chart that asks for it (a second one sent, to the second). */
export function startEarlyCall(url: string, accessToken: string): void {
  const authorization = `Bearer ${accessToken}`;
  const response = fetch(url, { headers: { Authorization: authorization }, credentials: 'omit' });
  // A call no chart takes (the page went elsewhere) fails quietly: a chart that takes it gets the failure.
  response.catch(() => undefined);
  const calls = (window.sheetmindEarlyCalls ??= new Map());
  calls.set(url, [...(calls.get(url) ?? []), { authorization, startedAt: Date.now(), response }]);
}

/**
 * The early call to `url`, if one was sent with the same authorization not long ago; given once
 * (the next call to it goes to the server: its answer may have changed since).
 */
export function takeEarlyCall(url: string, authorization: string): Promise<Response> | null {
  const call = globalThis.window?.sheetmindEarlyCalls?.get(url)?.shift();
  if (!call) return null;
  return call.authorization === authorization && Date.now() - call.startedAt <= FRESH_MS ? call.response : null;
}
