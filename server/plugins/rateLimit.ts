import Redis from 'ioredis';
import type { Clock } from '../domain/clock';
import { ApiError } from '../errors';

export interface Limit {
  /** What is limited, for the message: "sign-in attempts". */
  what: string;
  max: number;
  windowMs: number;
}

export type Consumed = { allowed: true; counts: number[] } | { allowed: false; denied: number; resetInMs: number };

/**
 * Fixed-window counters. A place is taken before the work it limits (a password hash, a mail),
 * in one atomic step, so requests sent together cannot all pass a check made before any of them
 * is counted.
 */
export interface RateLimitStore {
  /**
   * Takes one place under every limit, or none when any is full or held back by `delay`: answers
   * each key's count including this one, or which limit refused and the milliseconds until it frees.
   */
  consume(checks: Array<[string, Limit]>): Promise<Consumed>;
  /** Gives back one place of each key (an attempt that turned out not to count). */
  release(keys: string[]): Promise<void>;
  /** Refuses the key's next place for `ms` from now (a growing pause between failed guesses). */
  delay(key: string, ms: number): Promise<void>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function memoryStore(clock: Clock): RateLimitStore {
  const windows = new Map<string, { count: number; nextAt: number; resetAt: number }>();
  const live = (key: string) => {
    const entry = windows.get(key);
    if (entry && entry.resetAt <= clock.now()) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    // No await inside: the check and the take run as one step of the event loop.
    async consume(checks) {
      const now = clock.now();
      for (const [index, [key, limit]] of checks.entries()) {
        const entry = live(key);
        if (entry && entry.count >= limit.max) return { allowed: false, denied: index, resetInMs: entry.resetAt - now };
        if (entry && entry.nextAt > now) return { allowed: false, denied: index, resetInMs: entry.nextAt - now };
      }
      const counts = checks.map(([key, limit]) => {
        const entry = live(key) ?? { count: 0, nextAt: 0, resetAt: now + limit.windowMs };
        entry.count += 1;
        windows.set(key, entry);
        return entry.count;
      });
      return { allowed: true, counts };
    },
    async release(keys) {
      for (const key of keys) {
        const entry = live(key);
        if (entry && entry.count > 0) entry.count -= 1;
      }
    },
    async delay(key, ms) {
      const entry = live(key);
      if (entry) entry.nextAt = Math.max(entry.nextAt, clock.now() + ms);
    },
    async reset(key) {
      windows.delete(key);
    },
    async close() {
      windows.clear();
    },
  };
}

// Each key is a hash {n: places taken, next: ms before which none is given}, expiring with its
// window. Times come from Redis itself, so every instance reads one clock.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const CONSUME = `${NOW}
for i, key in ipairs(KEYS) do
  local n = tonumber(redis.call('HGET', key, 'n') or '0')
  local nextAt = tonumber(redis.call('HGET', key, 'next') or '0')
  if n >= tonumber(ARGV[2 * i - 1]) then return {0, i - 1, redis.call('PTTL', key)} end
  if nextAt > now then return {0, i - 1, nextAt - now} end
end
local counts = {1}
for i, key in ipairs(KEYS) do
  counts[i + 1] = redis.call('HINCRBY', key, 'n', 1)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return counts`;
const RELEASE = `for _, key in ipairs(KEYS) do
  if tonumber(redis.call('HGET', key, 'n') or '0') > 0 then redis.call('HINCRBY', key, 'n', -1) end
end`;
const DELAY = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 1 then
  local nextAt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
  redis.call('HSET', KEYS[1], 'next', math.max(nextAt, now + tonumber(ARGV[1])))
end`;

type Scripts = {
  rlConsume(count: number, ...args: Array<string | number>): Promise<number[]>;
  rlRelease(count: number, ...keys: string[]): Promise<null>;
  rlDelay(key: string, ms: number): Promise<null>;
};

/** Counters in Redis, shared by every instance: a limit holds for the whole fleet. */
export function redisStore(url: string, prefix: string): RateLimitStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.defineCommand('rlConsume', { lua: CONSUME });
  redis.defineCommand('rlRelease', { lua: RELEASE });
  redis.defineCommand('rlDelay', { lua: DELAY, numberOfKeys: 1 });
  const scripts = redis as unknown as Scripts;
  return {
    async consume(checks) {
      const keys = checks.map(([key]) => prefix + key);
      const args = checks.flatMap(([, limit]) => [limit.max, limit.windowMs]);
      const [allowed, ...rest] = (await scripts.rlConsume(keys.length, ...keys, ...args)).map(Number);
      if (allowed === 1) return { allowed: true, counts: rest };
      return { allowed: false, denied: rest[0]!, resetInMs: Math.max(rest[1]!, 1) };
    },
    async release(keys) {
      if (keys.length) await scripts.rlRelease(keys.length, ...keys.map((key) => prefix + key));
    },
    async delay(key, ms) {
      await scripts.rlDelay(prefix + key, ms);
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
    async close() {
      await redis.quit();
    },
  };
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

/** Takes a place under every limit, or throws a 429 naming the one that is full; answers each key's count. */
export async function consume(store: RateLimitStore, checks: Array<[string, Limit]>): Promise<number[]> {
  const result = await store.consume(checks);
  if (!result.allowed) throw tooManyRequests(checks[result.denied]![1], result.resetInMs);
  return result.counts;
}
