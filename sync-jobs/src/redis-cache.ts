import { DEFAULT_FRESHNESS_DAYS, isFreshResult, VerificationSchema, type Verification, type VerificationCache } from '@verify-hub/core';
import type { ChainableCommander, Redis } from 'ioredis';
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
      const v = VerificationSchema.safeParse(parsed);
      if (v.success && isFreshResult(v.data, this.freshnessDays, now)) found.set(keys[i]!, v.data);
    });
    return found;
  }

  async setMany(results: Verification[]): Promise<void> {
    const m = this.redis.multi();
    if (this.addSets(m, results) > 0) await m.exec();
  }

  /**
   * Results just bought: stored, and the billable ones added to a run's credits counter (`credits`, a
   * hash field), in one MULTI, so what the run says it spent moves with what the cache holds.
   */
  async keepBought(results: Verification[], credits?: { key: string; field: string }): Promise<void> {
    const m = this.redis.multi();
    let queued = this.addSets(m, results);
    const billable = results.filter((v) => v.billable).length;
    if (credits && billable > 0) {
      m.hincrby(credits.key, credits.field, billable);
      queued++;
    }
    if (queued > 0) await m.exec();
  }

  private addSets(m: ChainableCommander, results: Verification[]): number {
    // Kept for the longest window anyone may ask for (a run can ask for more than the default).
    const ttlMs = Math.max(this.freshnessDays, DEFAULT_FRESHNESS_DAYS) * DAY_MS;
    let queued = 0;
    for (const v of results) {
      if (v.risk === 'unknown') continue;
      const age = Date.now() - Date.parse(v.checkedAt);
      const ttl = ttlMs - (Number.isFinite(age) ? Math.max(0, age) : 0);
      if (ttl > 0) {
        m.set(this.keys.cache(v.normalized), JSON.stringify(v), 'PX', ttl);
        queued++;
      }
    }
    return queued;
  }
}
