import { randomUUID } from 'node:crypto';
import { runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** Where several verifications wait their turn for a mail host (HostLimiter in one process, SharedHostLimiter across processes). */
export interface HostSlots {
  run<T>(host: string, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T>;
}

/**
 * A lease in a sorted set per host, scored by its expiry on Redis's own clock: expired leases (a process
 * killed mid-conversation) are dropped first, then a lease is granted when fewer than `limit` are held.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 1
end
return 0`;

export interface SharedHostLimits {
  redis: Redis;
  /** Key prefix (the engine server's `ENGINE_REDIS_PREFIX`). */
  prefix: string;
  /** Conversations at once per mail host, across every engine process sharing this Redis. */
  maxConnectionsPerHost: number;
  /** New conversations per second per mail host (0: no rate limit). */
  maxSessionsPerSecondPerHost: number;
  /** A lease outlives a killed process by at most this long, ms (the SMTP budget is a good value). */
  leaseMs: number;
}

/**
 * The per-MX-host concurrency and rate limits shared by every engine process behind one Redis, so three
 * replicas of `verify-hub engine` together still open at most `maxConnectionsPerHost` sessions to one host
 * (providers answer "421 too many connections" per sending IP range, not per process). Waiters poll.
 */
export class SharedHostLimiter implements HostSlots {
  private readonly rate?: RateLimiterRedis;

  constructor(private readonly limits: SharedHostLimits, private readonly pollMs = 20) {
    if (limits.maxSessionsPerSecondPerHost > 0) {
      this.rate = new RateLimiterRedis({ storeClient: limits.redis, keyPrefix: `${limits.prefix}mx-rate`, points: limits.maxSessionsPerSecondPerHost, duration: 1 });
    }
  }

  async run<T>(host: string, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    const key = `${this.limits.prefix}mx-slots:${host.toLowerCase()}`;
    const token = randomUUID();
    await this.acquire(key, token, signal);
    try {
      if (this.rate) await this.takeRate(host, signal);
      return await task();
    } finally {
      await this.limits.redis.zrem(key, token).catch(() => undefined);
    }
  }

  private async acquire(key: string, token: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const granted = await runScript(this.limits.redis, ACQUIRE, 1, key, this.limits.maxConnectionsPerHost, this.limits.leaseMs, token);
      if (granted === 1) return;
      await pause(this.pollMs, signal);
    }
  }

  private async takeRate(host: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      try {
        await this.rate!.consume(host.toLowerCase());
        return;
      } catch (refusal) {
        if (refusal instanceof Error) throw refusal;
        await pause(Math.max(this.pollMs, (refusal as { msBeforeNext: number }).msBeforeNext), signal);
      }
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
