import { ApiRequestError } from './api';
import { sentence, type CodeWords, type Message } from './messages';

/** What the failure rules read of a failed call: an ApiRequestError. */
export interface FailedCall {
  /** 0 when the server could not be reached. */
  status: number;
  /** Seconds, from Retry-After on a 429. */
  retryAfter: number | null;
}

/** A failure as the person is told it: a title and its sentence. */
export interface Failure {
  title: Message;
  description?: Message;
}

/**
 * The failure sentences every flow words alike (product spec §8), in one place: the charts ask
 * these first and fall back on their own sentence for the rest. Nothing outside this file words a
 * status 0 or a 429.
 */
export const unreachable = (error: FailedCall): Message | null => (error.status === 0 ? 'auth.networkFailure' : null);

/**
 * Too many attempts: the wait the server asked for (a minute when it named none), in the flow's
 * sentence (the sign-in's by default).
 */
export const throttled = (error: FailedCall, wait: 'auth.tooManyAttempts' | 'link.tooManyCodes' | 'usage.exportThrottled' = 'auth.tooManyAttempts'): Message | null =>
  error.status === 429 ? sentence(wait, error.retryAfter ?? 60) : null;

export const commonFailure = (error: FailedCall): Message | null => unreachable(error) ?? throttled(error);

/**
 * The sentence of a failed form that shows the server's own words: `rules` first (the shared
 * ones by default), then the server's message. A failure that is not an answer of the server
 * counts as not reaching it.
 */
export function serverFailure(error: unknown, rules: (error: FailedCall) => Message | null = commonFailure): Message {
  if (!(error instanceof ApiRequestError)) return rules({ status: 0, retryAfter: null }) ?? { text: String(error) };
  return rules(error) ?? (error.serverMessage !== null ? { text: error.serverMessage } : error.shown);
}

/** A failed call's own words: the catalogue's for a failed call, an error's message for anything else. */
export const errorText = (error: unknown): Message =>
  error instanceof ApiRequestError ? error.shown : { text: error instanceof Error ? error.message : String(error) };

/** A refusal in the words of the catalogue's section for its code; the server's own sentence for anything else. */
export function refusalText(error: unknown, words: CodeWords = 'team.errors'): Message {
  if (!(error instanceof ApiRequestError)) return errorText(error);
  const own: Message = error.serverMessage ? { text: error.serverMessage } : error.shown;
  return error.code ? { words, code: error.code, otherwise: own } : own;
}

/** The error code of a failed call, when the server named one. */
export const failureCode = (error: unknown): string | null => (error instanceof ApiRequestError ? error.code : null);

/** The `notify` effect's parameters for a failure: the error toast. */
const errorToast = (failure: Failure) => ({ type: 'error' as const, ...failure });

/**
 * The one way a chart reports a failure to the person: the chart's `notify` effect (the view's
 * toast) with the failure as an error, e.g. `actions: reportFailure({ title, description })`, or
 * `reportFailure(({ event }: ErrorEvent) => failureOf(event.error))` to word it from the event.
 */
export function reportFailure<Args>(failure: Failure | ((args: Args) => Failure)) {
  return {
    type: 'notify' as const,
    params: typeof failure === 'function' ? (args: Args) => errorToast(failure(args)) : errorToast(failure),
  };
}
