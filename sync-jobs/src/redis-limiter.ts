import { randomUUID } from 'node:crypto';
import { sleep, type CallLimiter, type LimiterFactory, type LimiterSpec, runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';

/**
 * Takes a concurrency lease (at most `maxConcurrent` running; a lease expires so that a crashed
 * worker frees its slot) and reserves a start time spaced `intervalMs / count` after the previous
 * one (a virtual schedule, as in GCRA): so at most `count` calls start in any `intervalMs`, evenly,
 * and no burst lands on the edge of a server's window. Uses Redis's clock, so every machine agrees.
 * Returns {1, ms to wait before starting} when acquired, {0, ms to wait before asking again} when not.
 *
 * ARGV[6] is the bulk horizon in microseconds, or -1 for interactive work. Bulk work (run chunks)
 * leaves the last concurrency slot to interactive work and may not book the schedule more than the
 * horizon ahead of now; interactive work (webhook events, single checks) books the next start
 * whatever is ahead. So the schedule is never more than a horizon deep in bulk bookings, and an
 * interactive call starts after at most that, however many bulk calls wait.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local interval = tonumber(ARGV[2]) * 1000
local maxConcurrent = tonumber(ARGV[3])
local horizon = tonumber(ARGV[6])
local start = now
if limit > 0 then
  start = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
  if horizon >= 0 and start - now > horizon then return {0, math.ceil((start - now - horizon) / 1000)} end
end
if maxConcurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local room = maxConcurrent
  if horizon >= 0 and maxConcurrent > 1 then room = maxConcurrent - 1 end
  if redis.call('ZCARD', KEYS[2]) >= room then return {0, 10} end
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]) * 1000, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[4] + 1000)
end
local delay = 0
if limit > 0 then
  redis.call('SET', KEYS[1], string.format('%.0f', start + interval / limit), 'PX', math.ceil((start - now) / 1000) + ARGV[2] + 1000)
  delay = math.ceil((start - now) / 1000)
end
return {1, delay}`;

/** Which work a limiter serves: `bulk` (run chunks) yields to `interactive` (events, single checks); `shared` is first come, first served. */
export type LimiterLane = 'shared' | 'bulk' | 'interactive';

export interface RedisLimiterOptions {
  /** How long a concurrency slot is held at most if its holder dies (default 120 s). */
  leaseMs?: number;
  /** Longest single sleep between tries (default 250 ms), so a freed slot is noticed soon. */
  maxPollMs?: number;
  /** Default `shared`; the pipeline gives run chunks `bulk` and events and single checks `interactive` limiters over the same keys. */
  lane?: LimiterLane;
}

/**
 * The pipeline's `LimiterFactory`: limiters shared by every worker on every machine through Redis,
 * named by `spec.key` (the engine key, a HubSpot portal, a Mailchimp account). A small Lua script
 * rather than a library: Bottleneck's Redis mode refills its reservoir in fixed windows that do not
 * line up with a server's windows, and rate-limiter-flexible counts fixed windows too; evenly spaced
 * starts never put more than `count` calls in any `intervalMs`, whatever the server's alignment, and
 * need one Redis call per request (no polling).
 */
export function createRedisLimiterFactory(redis: Redis, keys: Keys, options: RedisLimiterOptions = {}): LimiterFactory {
  const leaseMs = options.leaseMs ?? 120_000;
  const maxPollMs = options.maxPollMs ?? 250;
  const lane = options.lane ?? 'shared';
  // One bulk caller per key and process asks Redis at a time (the others queue here): waiting bulk
  // calls cost one Redis call per start, not one per caller per start.
  const bulkTurns = new Map<string, Promise<void>>();
  return (spec: LimiterSpec): CallLimiter => {
    const starts = keys.limiterStarts(spec.key);
    const running = keys.limiterRunning(spec.key);
    const limit = spec.perInterval?.count ?? 0;
    const interval = spec.perInterval?.intervalMs ?? 0;
    const maxConcurrent = spec.maxConcurrent ?? 0;
    if (limit === 0 && maxConcurrent === 0) return { schedule: (fn) => fn() };
    // Bulk may book at most two starts (and 20 ms) ahead: an interactive call waits no longer than that.
    const horizonUs = lane !== 'bulk' ? -1 : limit > 0 ? Math.max(20_000, Math.ceil((2 * interval * 1000) / limit)) : 0;
    /** Books a start; resolves with the ms to wait until it. */
    const acquire = async (token: string): Promise<number> => {
      for (;;) {
        const [acquired, wait] = (await runScript(redis, ACQUIRE, 2, starts, running, limit, interval, maxConcurrent, leaseMs, token, horizonUs)) as [number, number];
        if (acquired === 1) return wait;
        await sleep(Math.max(1, Math.min(wait, maxPollMs)));
      }
    };
    const acquireInTurn = async (token: string): Promise<number> => {
      const before = bulkTurns.get(spec.key) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => (done = resolve));
      bulkTurns.set(spec.key, mine);
      await before;
      try {
        // The start is booked in turn; the wait until it (at most the horizon) is slept out of turn.
        return await acquire(token);
      } finally {
        done();
        if (bulkTurns.get(spec.key) === mine) bulkTurns.delete(spec.key);
      }
    };
    return {
      async schedule<T>(fn: () => Promise<T>): Promise<T> {
        const token = randomUUID();
        const wait = await (lane === 'bulk' ? acquireInTurn(token) : acquire(token));
        if (wait > 0) await sleep(wait);
        try {
          return await fn();
        } finally {
          if (maxConcurrent > 0) await redis.zrem(running, token).catch(() => undefined);
        }
      },
    };
  };
}
