import type { ErrorCode } from '../../contract/errors';
import type { Message } from './messages';

/** The message of a call that never reached the server. */
export const NETWORK_ERROR = 'Network error';

/**
 * A failed call, as the UI needs it: the HTTP status (0 when the server could not be reached),
 * the API's error code, and a message: the HTTP status text, which `shown` words for the person
 * ('API Error: …', or the network sentence of the spec).
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

  /** The failure in the catalogue's words, where no rule of a chart words it better. */
  get shown(): Message {
    return this.isNetworkError ? 'api.network' : { key: 'api.error', values: [this.message] };
  }
}
