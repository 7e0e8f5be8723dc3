import { randomUUID } from 'node:crypto';
import { sleep, type CallLimiter, type LimiterFactory, type LimiterSpec } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';

/**
 * Takes a start slot under a sliding window (at most `count` starts in any `intervalMs`) and a
 * concurrency lease (at most `maxConcurrent` running; a lease expires so a crashed worker frees its
 * slot). Uses Redis's clock so every machine agrees. Returns -1 when acquired, else ms to wait.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local maxConcurrent = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
if maxConcurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= maxConcurrent then return 10 end
end
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - interval)
  if redis.call('ZCARD', KEYS[1]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + interval - now)
  end
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], interval + 1000)
end
if maxConcurrent > 0 then
  redis.call('ZADD', KEYS[2], now + lease, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], lease + 1000)
end
return -1`;

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
 * line up with a server's windows, and rate-limiter-flexible counts fixed windows too; a sliding
 * window never lets more than `count` calls start in any `intervalMs`, whatever the alignment.
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
          const wait = Number(await redis.eval(ACQUIRE, 2, starts, running, limit, interval, maxConcurrent, leaseMs, token));
          if (wait < 0) break;
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
