/**
 * How many retries the provider may be sent: at most a tenth of the calls (first attempts) of the
 * last minute, plus `FLOOR` a minute so that a quiet server still retries a lone failure. In an
 * outage the calls to the provider then grow by about a tenth, not by the number of attempts.
 * Counted per second over a sliding minute, in two fixed arrays: no memory per call.
 */
export interface RetryBudget {
  /** A query's first attempt is about to be sent. */
  called(): void;
  /** Whether a retry may be sent now; when it may, it is counted. */
  mayRetry(): boolean;
}

/** Retries a minute allowed whatever the traffic. */
export const RETRY_FLOOR = 10;
/** The share of the last minute's calls that may be retried. */
export const RETRY_RATIO = 0.1;
const WINDOW_S = 60;

export function retryBudget(now: () => number = Date.now): RetryBudget {
  const calls = new Uint32Array(WINDOW_S);
  const retries = new Uint32Array(WINDOW_S);
  let callsInWindow = 0;
  let retriesInWindow = 0;
  let current = Math.floor(now() / 1000);
  /** Moves the window to this second, forgetting the seconds that left it. */
  const slot = () => {
    const second = Math.floor(now() / 1000);
    for (let s = current + 1; s <= second && s <= current + WINDOW_S; s++) {
      const i = s % WINDOW_S;
      callsInWindow -= calls[i]!;
      retriesInWindow -= retries[i]!;
      calls[i] = 0;
      retries[i] = 0;
    }
    current = Math.max(current, second);
    return current % WINDOW_S;
  };
  return {
    called() {
      calls[slot()]! += 1;
      callsInWindow += 1;
    },
    mayRetry() {
      const i = slot();
      if (retriesInWindow >= RETRY_FLOOR + RETRY_RATIO * callsInWindow) return false;
      retries[i]! += 1;
      retriesInWindow += 1;
      return true;
    },
  };
}
