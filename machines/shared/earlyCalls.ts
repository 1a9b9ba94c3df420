import { tokenStorage } from './tokenStorage';

/**
 * Calls a signed-in page starts before the app's code has loaded: its first script (src/firstCalls.ts,
 * run by src/colorModeBoot.ts) sends the session check and the page's first data calls at once,
 * with the stored token, and the chart that makes the same call first is answered with it
 * (machines/shared/http.ts) instead of asking again. So a page's data no longer waits for the app to
 * boot, then for the session check, then for the page's own calls, one wave after another.
 *
 * Most often the answers are in before the app has booted (issue 40): a chart then starts from the
 * answer itself (`knownAnswer`, read when its actor is made), in the state it would have reached
 * once the call had answered, so the app's first render draws the page with its data, with no
 * spinner nor placeholder drawn first and then each answer drawn again.
 */

interface EarlyCall {
  authorization: string;
  startedAt: number;
  response: Promise<Response>;
  /** How many of the page's calls it answers (a page whose charts ask the same thing twice). */
  uses: number;
  /** The answer's body, read as soon as it came, when it came with a 2xx status. */
  answer?: { body: unknown };
  /** Settles once the answer has been read (or the call failed). */
  read: Promise<void>;
  /** The answer, if it was in when the app started (`fixKnownAnswers`): what charts start from. */
  known?: { body: unknown };
}

declare global {
  interface Window {
    sheetmindEarlyCalls?: Map<string, EarlyCall>;
    /** Set as the app starts (`fixKnownAnswers`): from then on its charts make their own calls. */
    sheetmindAppStarted?: boolean;
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
  // A call no chart takes (the page went elsewhere) fails quietly: a chart that takes it gets the
  // failure. A success is read at once, for a chart made after it to start from (`knownAnswer`).
  const read = response
    .then(async (res) => {
      if (res.ok) call.answer = { body: await res.clone().json() };
    })
    .catch(() => undefined);
  const call: EarlyCall = { authorization, startedAt: Date.now(), response, uses: 1, read };
  calls.set(url, call);
}

/**
 * Once the early call to `url` has answered with a 2xx status, sends the calls that depend on its
 * answer (`next(body)`, the API's addresses) as early calls too, each that is not already on its
 * way: the team page's calls for the role the answer gives, on a first visit in this browser. Not
 * when the app has started meanwhile: its charts then make those calls themselves, and a second
 * call no chart took would answer a later one with what it held at the start.
 */
export function startEarlyCallsAfter(url: string, accessToken: string, next: (body: unknown) => string[]): void {
  const call = window.sheetmindEarlyCalls?.get(url);
  void call?.read.then(() => {
    const calls = window.sheetmindEarlyCalls;
    if (!call.answer || !calls || window.sheetmindAppStarted) return;
    for (const address of next(call.answer.body)) if (!calls.has(address)) startEarlyCall(address, accessToken);
  });
}

/** Whether any early call is still waiting for its chart: until then only, a GET is looked up. */
export const anyEarlyCalls = (): boolean => (globalThis.window?.sheetmindEarlyCalls?.size ?? 0) > 0;

/** Uses one of the call's answers: once none is left, the next call to its address goes to the server. */
function spend(calls: Map<string, EarlyCall>, url: string, call: EarlyCall): void {
  call.uses -= 1;
  if (call.uses <= 0) calls.delete(url);
}

/**
 * Fixes which answers charts may start from: those in by now. The app calls it once, as it starts
 * (src/app/mountApp.tsx), and gets ready what those answers need drawn first; an answer that comes
 * later answers its chart's call instead (`takeEarlyCall`), as if the chart had asked it.
 */
export function fixKnownAnswers(): void {
  if (globalThis.window) window.sheetmindAppStarted = true;
  for (const call of globalThis.window?.sheetmindEarlyCalls?.values() ?? []) {
    if (call.answer) call.known = call.answer;
  }
}

/** The early call to `path` (the API's, as `/users/me`) whose answer is known, made with the stored token, not long ago. */
function answered(path: string): [string, EarlyCall] | null {
  const calls = globalThis.window?.sheetmindEarlyCalls;
  if (!calls?.size) return null;
  const authorization = `Bearer ${tokenStorage.read().accessToken}`;
  for (const [url, call] of calls) {
    if (url.endsWith(`/api/v1${path}`) && call.known && call.authorization === authorization && Date.now() - call.startedAt <= FRESH_MS) return [url, call];
  }
  return null;
}

/**
 * The body of the answer to `GET path` the page's early call already had when the app started
 * (2xx, with the stored token, fresh): what a chart starts from instead of asking. Reading it spends nothing,
 * since a chart's actor may be made and dropped unstarted (React may render twice); the chart
 * spends it with `takeKnownAnswer` when its actor starts.
 */
export function knownAnswer<T>(path: string): T | undefined {
  return answered(path)?.[1].known?.body as T | undefined;
}

/** Spends one use of the answer `knownAnswer(path)` gave: a chart started from it. */
export function takeKnownAnswer(path: string): void {
  const known = answered(path);
  if (known) spend(globalThis.window.sheetmindEarlyCalls!, ...known);
}

/** The bodies of the known answers to every one of `paths`, in their order, or null unless all are known: a chart that needs several starts from all of them, or asks. */
export function knownAnswers<T extends unknown[]>(paths: readonly string[]): T | null {
  const bodies = paths.map((path) => knownAnswer(path));
  return bodies.every((body) => body !== undefined) ? (bodies as T) : null;
}

/** Spends one use of each answer `knownAnswers(paths)` gave. */
export function takeKnownAnswers(paths: readonly string[]): void {
  for (const path of paths) takeKnownAnswer(path);
}

/**
 * The early call to `url`, if one was sent with the same authorization not long ago and has uses
 * left; after them, calls to it go to the server (its answer may have changed since).
 */
export function takeEarlyCall(url: string, authorization: string): Promise<Response> | null {
  const calls = globalThis.window?.sheetmindEarlyCalls;
  const call = calls?.get(url);
  if (!call) return null;
  spend(calls!, url, call);
  if (call.authorization !== authorization || Date.now() - call.startedAt > FRESH_MS) return null;
  // Each chart reads a copy of its own; the original stays unread for the next.
  return call.response.then((response) => response.clone());
}
