import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current one-second window ends, epoch ms. */
  resetAt: number;
}

/**
 * Per-account request rate in one-second windows, shared through Redis by every server process
 * (rate-limiter-flexible). Accounts can have different rates, so there is one limiter per rate.
 */
export class AccountRateLimiter {
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  async consume(account: string, ratePerSecond: number): Promise<RateDecision> {
    const limiter = this.limiterFor(ratePerSecond);
    try {
      const res = await limiter.consume(account);
      return { allowed: true, limit: ratePerSecond, remaining: res.remainingPoints, resetAt: Date.now() + res.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { allowed: false, limit: ratePerSecond, remaining: 0, resetAt: Date.now() + rejection.msBeforeNext };
      throw rejection;
    }
  }

  private limiterFor(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.prefix}rate:${points}`, points, duration: 1 });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}
