import crypto from 'node:crypto';
import Redis from 'ioredis';
import type { Clock } from '../domain/clock';
import { ApiError } from '../errors';

export interface Limit {
  /** What is limited, for the message: "sign-in attempts". */
  what: string;
  max: number;
  windowMs: number;
}

export type Consumed =
  | { allowed: true; counts: number[]; ticket: string }
  | { allowed: false; denied: number; resetInMs: number };

/**
 * Sliding-window counters: a place taken stays taken for exactly `windowMs`, so no timing (not
 * even a burst on each side of a window's edge) gets more than `max` places in any `windowMs`.
 * A place is taken before the work it limits (a password hash, a mail), in one atomic step, so
 * requests sent together cannot all pass a check made before any of them is counted.
 */
export interface RateLimitStore {
  /**
   * Takes one place under every limit, or none when any is full or held back by `delay`: answers
   * each key's count including this one and a ticket to give the places back, or which limit
   * refused and the milliseconds until it frees.
   */
  consume(checks: Array<[string, Limit]>): Promise<Consumed>;
  /** Gives back the places a ticket took under these keys (an attempt that turned out not to count). */
  release(keys: string[], ticket: string): Promise<void>;
  /** Refuses the key's next place for `ms` from now (a growing pause between failed guesses). */
  delay(key: string, ms: number): Promise<void>;
  /** Forgets the key's places and pause. */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function memoryStore(clock: Clock): RateLimitStore {
  const keys = new Map<string, { taken: Array<{ at: number; ticket: string }>; nextAt: number }>();
  const live = (key: string, windowMs: number, now: number) => {
    const entry = keys.get(key) ?? { taken: [], nextAt: 0 };
    entry.taken = entry.taken.filter((place) => place.at > now - windowMs);
    // A key with nothing left to remember is dropped when it is next looked at.
    if (entry.taken.length === 0 && entry.nextAt <= now) keys.delete(key);
    return entry;
  };
  return {
    // No await inside: the check and the take run as one step of the event loop.
    async consume(checks) {
      const now = clock.now();
      for (const [index, [key, limit]] of checks.entries()) {
        const { taken, nextAt } = live(key, limit.windowMs, now);
        if (taken.length >= limit.max) return { allowed: false, denied: index, resetInMs: taken[0]!.at + limit.windowMs - now };
        if (nextAt > now) return { allowed: false, denied: index, resetInMs: nextAt - now };
      }
      const ticket = crypto.randomUUID();
      const counts = checks.map(([key, limit]) => {
        const entry = live(key, limit.windowMs, now);
        entry.taken.push({ at: now, ticket });
        keys.set(key, entry);
        return entry.taken.length;
      });
      return { allowed: true, counts, ticket };
    },
    async release(releasing, ticket) {
      for (const key of releasing) {
        const entry = keys.get(key);
        if (entry) entry.taken = entry.taken.filter((place) => place.ticket !== ticket);
      }
    },
    async delay(key, ms) {
      const entry = keys.get(key);
      if (entry) entry.nextAt = Math.max(entry.nextAt, clock.now() + ms);
    },
    async reset(key) {
      keys.delete(key);
    },
    async close() {
      keys.clear();
    },
  };
}

// Each key is a sorted set of places (member: the ticket, score: when it was taken) expiring with
// its window, beside `<key>:next`, the time before which none is given. Times come from Redis
// itself, so every instance reads one clock.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const CONSUME = `${NOW}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 * i]) then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return {0, i - 1, tonumber(oldest[2]) + window - now}
  end
  local nextAt = tonumber(redis.call('GET', key .. ':next') or '0')
  if nextAt > now then return {0, i - 1, nextAt - now} end
end
local counts = {1}
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, ARGV[2 * i + 1])
  counts[i + 1] = redis.call('ZCARD', key)
end
return counts`;
const RELEASE = `for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end`;
const DELAY = `${NOW}
local nextAt = math.max(tonumber(redis.call('GET', KEYS[1] .. ':next') or '0'), now + tonumber(ARGV[1]))
if nextAt > now then redis.call('SET', KEYS[1] .. ':next', nextAt, 'PX', nextAt - now) end`;

type Scripts = {
  rlConsume(count: number, ...args: Array<string | number>): Promise<number[]>;
  rlRelease(count: number, ...args: string[]): Promise<null>;
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
      const ticket = crypto.randomUUID();
      const keys = checks.map(([key]) => prefix + key);
      const args = checks.flatMap(([, limit]) => [limit.max, limit.windowMs]);
      const [allowed, ...rest] = (await scripts.rlConsume(keys.length, ...keys, ticket, ...args)).map(Number);
      if (allowed === 1) return { allowed: true, counts: rest, ticket };
      return { allowed: false, denied: rest[0]!, resetInMs: Math.max(rest[1]!, 1) };
    },
    async release(releasing, ticket) {
      if (releasing.length) await scripts.rlRelease(releasing.length, ...releasing.map((key) => prefix + key), ticket);
    },
    async delay(key, ms) {
      await scripts.rlDelay(prefix + key, ms);
    },
    async reset(key) {
      await redis.del(prefix + key, `${prefix}${key}:next`);
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

/**
 * Takes a place under every limit, or throws a 429 naming the one that is full; answers each key's
 * count and the ticket that gives the places back.
 */
export async function consume(store: RateLimitStore, checks: Array<[string, Limit]>): Promise<{ counts: number[]; ticket: string }> {
  const result = await store.consume(checks);
  if (!result.allowed) throw tooManyRequests(checks[result.denied]![1], result.resetInMs);
  return result;
}
