import Redis from 'ioredis';
import type { Clock } from '../domain/clock';
import { ApiError } from '../errors';

/** A fixed-window counter: how many hits a key has had in the current window. */
export interface RateLimitStore {
  /** Adds one hit; answers the count so far and the milliseconds until the window ends. */
  increment(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  /** The current count without adding a hit. */
  peek(key: string): Promise<{ count: number; resetInMs: number }>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function memoryStore(clock: Clock): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string) => {
    const entry = windows.get(key);
    if (entry && entry.resetAt <= clock.now()) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    async increment(key, windowMs) {
      const entry = live(key) ?? { count: 0, resetAt: clock.now() + windowMs };
      entry.count += 1;
      windows.set(key, entry);
      return { count: entry.count, resetInMs: entry.resetAt - clock.now() };
    },
    async peek(key) {
      const entry = live(key);
      return entry ? { count: entry.count, resetInMs: entry.resetAt - clock.now() } : { count: 0, resetInMs: 0 };
    },
    async reset(key) {
      windows.delete(key);
    },
    async close() {
      windows.clear();
    },
  };
}

/** Counters in Redis, shared by every instance: a limit holds for the whole fleet. */
export function redisStore(url: string, prefix: string): RateLimitStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async increment(key, windowMs) {
      const result = await redis
        .multi()
        .incr(prefix + key)
        .pexpire(prefix + key, windowMs, 'NX')
        .pttl(prefix + key)
        .exec();
      const count = Number(result?.[0]?.[1] ?? 0);
      const ttl = Number(result?.[2]?.[1] ?? windowMs);
      return { count, resetInMs: ttl > 0 ? ttl : windowMs };
    },
    async peek(key) {
      const [count, ttl] = await Promise.all([redis.get(prefix + key), redis.pttl(prefix + key)]);
      return { count: Number(count ?? 0), resetInMs: Math.max(ttl, 0) };
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
    async close() {
      await redis.quit();
    },
  };
}

export interface Limit {
  /** What is limited, for the message: "sign-in attempts". */
  what: string;
  max: number;
  windowMs: number;
}

export function tooManyRequests(limit: Limit, resetInMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
  const minutes = Math.ceil(seconds / 60);
  return new ApiError(
    429,
    'rate_limited',
    `Too many ${limit.what}. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

/** Throws a 429 when any of the keys has already reached its limit. */
export async function assertUnderLimit(store: RateLimitStore, checks: Array<[string, Limit]>): Promise<void> {
  for (const [key, limit] of checks) {
    const { count, resetInMs } = await store.peek(key);
    if (count >= limit.max) throw tooManyRequests(limit, resetInMs);
  }
}

/** Counts one hit on each key (e.g. a failed sign-in). */
export async function countHit(store: RateLimitStore, checks: Array<[string, Limit]>): Promise<void> {
  await Promise.all(checks.map(([key, limit]) => store.increment(key, limit.windowMs)));
}
