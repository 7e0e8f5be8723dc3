import { DEFAULT_FRESHNESS_DAYS, isFreshResult, parseStoredVerification, type Verification, type VerificationCache } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';

const DAY_MS = 86_400_000;

/**
 * The shared result cache: one key per normalised address holding the last final result, expiring
 * with the freshness window. `unknown` results are never stored (they are not final). Entries that do
 * not parse are treated as missing, so a bad entry costs one verification, never a crash.
 */
export class RedisVerificationCache implements VerificationCache {
  private readonly freshnessDays: number;
  constructor(private readonly redis: Redis, private readonly keys: Keys, options: { freshnessDays?: number } = {}) {
    this.freshnessDays = options.freshnessDays ?? DEFAULT_FRESHNESS_DAYS;
  }

  /** The same store, read with another freshness window (a run's `freshnessDays`). */
  withFreshness(freshnessDays: number): RedisVerificationCache {
    return new RedisVerificationCache(this.redis, this.keys, { freshnessDays });
  }

  async getMany(keys: string[]): Promise<Map<string, Verification>> {
    const found = new Map<string, Verification>();
    if (keys.length === 0) return found;
    const values = await this.redis.mget(keys.map((k) => this.keys.cache(k)));
    const now = Date.now();
    values.forEach((raw, i) => {
      if (!raw) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return;
      }
      const v = parseStoredVerification(parsed);
      if (v && isFreshResult(v, this.freshnessDays, now)) found.set(keys[i]!, v);
    });
    return found;
  }

  async setMany(results: Verification[]): Promise<void> {
    const final = results.filter((v) => v.risk !== 'unknown');
    if (final.length === 0) return;
    // Kept for the longest window anyone may ask for (a run can ask for more than the default).
    const ttlMs = Math.max(this.freshnessDays, DEFAULT_FRESHNESS_DAYS) * DAY_MS;
    const m = this.redis.multi();
    for (const v of final) {
      const age = Date.now() - Date.parse(v.checkedAt);
      const ttl = ttlMs - (Number.isFinite(age) ? Math.max(0, age) : 0);
      if (ttl > 0) m.set(this.keys.cache(v.normalized), JSON.stringify(v), 'PX', ttl);
    }
    await m.exec();
  }
}
