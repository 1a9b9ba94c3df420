import * as messages from '../src/content/messages';

/** What the failure rules read of a failed call: an ApiRequestError, or the submission chart's copy of one. */
export interface FailedCall {
  /** 0 when the server could not be reached. */
  status: number;
  /** Seconds, from Retry-After on a 429. */
  retryAfter: number | null;
}

/**
 * The failure sentences every flow words alike (product spec §8), in one place: the charts and
 * the pages ask these first and fall back on their own sentence for the rest.
 */
export const unreachable = (error: FailedCall): string | null => (error.status === 0 ? messages.auth.networkFailure : null);

/** Too many attempts: the wait the server asked for, in minutes (a minute when it named none). */
export const throttled = (error: FailedCall): string | null =>
  error.status === 429 ? messages.auth.tooManyAttempts(error.retryAfter ?? 60) : null;

export const commonFailure = (error: FailedCall): string | null => unreachable(error) ?? throttled(error);
