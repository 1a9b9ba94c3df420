import type { ErrorCode } from '../../contract/errors';

/**
 * A failed call, as the UI needs it: the HTTP status (0 when the server could not be reached),
 * the API's error code, and a message ('API Error: …' or the network sentence of the spec).
 */
export class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: ErrorCode | null = null,
    readonly serverMessage: string | null = null,
    /** Seconds, from Retry-After on a 429. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }
}
