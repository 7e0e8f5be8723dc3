import { randomUUID } from 'node:crypto';
import { sleep, type CallLimiter, type LimiterFactory, type LimiterSpec } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';

/**
 * Takes a concurrency lease (at most `maxConcurrent` running; a lease expires so that a crashed
 * worker frees its slot) and reserves a start time spaced `intervalMs / count` after the previous
 * one (a virtual schedule, as in GCRA): so at most `count` calls start in any `intervalMs`, evenly,
 * and no burst lands on the edge of a server's window. Uses Redis's clock, so every machine agrees.
 * Returns {1, ms to wait before starting} when acquired, {0, ms to wait before asking again} when not.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local interval = tonumber(ARGV[2]) * 1000
local maxConcurrent = tonumber(ARGV[3])
if maxConcurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= maxConcurrent then return {0, 10} end
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]) * 1000, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[4] + 1000)
end
local delay = 0
if limit > 0 then
  local start = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
  redis.call('SET', KEYS[1], string.format('%.0f', start + interval / limit), 'PX', math.ceil((start - now) / 1000) + ARGV[2] + 1000)
  delay = math.ceil((start - now) / 1000)
end
return {1, delay}`;

export interface RedisLimiterOptions {
  /** How long a concurrency slot is held at most if its holder dies (default 120 s). */
  leaseMs?: number;
  /** Longest single sleep between tries (default 250 ms), so a freed slot is noticed soon. */
  maxPollMs?: number;
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
  return (spec: LimiterSpec): CallLimiter => {
    const starts = keys.limiterStarts(spec.key);
    const running = keys.limiterRunning(spec.key);
    const limit = spec.perInterval?.count ?? 0;
    const interval = spec.perInterval?.intervalMs ?? 0;
    const maxConcurrent = spec.maxConcurrent ?? 0;
    if (limit === 0 && maxConcurrent === 0) return { schedule: (fn) => fn() };
    return {
      async schedule<T>(fn: () => Promise<T>): Promise<T> {
        const token = randomUUID();
        for (;;) {
          const [acquired, wait] = (await redis.eval(ACQUIRE, 2, starts, running, limit, interval, maxConcurrent, leaseMs, token)) as [number, number];
          if (acquired === 1) {
            if (wait > 0) await sleep(wait);
            break;
          }
          await sleep(Math.min(wait, maxPollMs));
        }
        try {
          return await fn();
        } finally {
          if (maxConcurrent > 0) await redis.zrem(running, token).catch(() => undefined);
        }
      },
    };
  };
}
