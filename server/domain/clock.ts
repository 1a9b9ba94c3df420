/** The time source of the server's rules (token expiry, reset links, rate windows); tests move it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
