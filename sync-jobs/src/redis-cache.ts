import { DEFAULT_FRESHNESS_DAYS, isFreshResult, parseStoredVerification, type Verification, type VerificationCache, runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';
import { keepFirstAnswers, type RunAnswers } from './run-answers';
import { COUNT_PURCHASE, flaggedPurchase, storeResults, type StoredEntry } from './store-results-script';

const DAY_MS = 86_400_000;

/** Adds to KEYS[1]'s field ARGV[1] one per purchase (ARGV[2..], flaggedPurchase) not yet in the set KEYS[2]. */
const COUNT_PURCHASES = `${COUNT_PURCHASE}
local n = 0
for i = 2, #ARGV do n = n + count_purchase(KEYS[2], ARGV[i]) end
if n > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], n) end
return n`;

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
    const now = Date.now();
    const found = new Map<string, Verification>();
    for (const [key, v] of await this.held(keys)) if (isFreshResult(v, this.freshnessDays, now)) found.set(key, v);
    return found;
  }

  /** Whatever the cache still holds for `keys`, fresh or not: the verdict a bounce is joined to (bounce-ledger.ts). */
  async held(keys: string[]): Promise<Map<string, Verification>> {
    const found = new Map<string, Verification>();
    if (keys.length === 0) return found;
    const cacheKeys = keys.map((k) => this.keys.cache(k));
    // MGET cannot span a cluster's slots: there, one GET per address, sent together.
    const values = this.keys.cluster ? await Promise.all(cacheKeys.map((k) => this.redis.get(k))) : await this.redis.mget(cacheKeys);
    values.forEach((raw, i) => {
      if (!raw) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return;
      }
      const v = parseStoredVerification(parsed);
      if (v) found.set(keys[i]!, v);
    });
    return found;
  }

  /** Verdicts a hard bounce proved (reason `hard_bounce`): kept `ttlMs` (the run data's retention), not for the freshness window. */
  async keepCorrected(results: Verification[], ttlMs: number): Promise<void> {
    const entries = results.map((v) => ({ key: this.keys.cache(v.normalized), value: JSON.stringify(v), ttlMs }));
    if (this.keys.cluster) await this.setEach(entries);
    else await storeResults(this.redis, entries);
  }

  async setMany(results: Verification[]): Promise<void> {
    const entries = this.entries(results);
    if (this.keys.cluster) await this.setEach(entries);
    else await storeResults(this.redis, entries);
  }

  /**
   * Results just bought: stored, and the billable ones added to a run's credits counter, in one script,
   * so what the run says it spent moves with what the cache holds. Each purchase is counted once by its
   * answer (address and `checkedAt`, kept in `credits.purchases`): a script that ioredis sends again
   * after a reconnect (Redis ran it, the reply was lost) counts nothing twice.
   *
   * On a cluster the cache entries and the run are on different slots, which no MULTI spans: the
   * entries are stored first, then the purchases counted (still once each).
   *
   * With the run's `answers`, an address the run already has an answer for keeps it (run-answers.ts):
   * that answer is returned in place of the one just bought, and it is what is cached, so the cache and
   * every record of the run hold one result. The run's answer is cached again each time (the same
   * value): a worker killed between keeping it and caching it leaves it uncached, and a re-sync would
   * buy the address again and rewrite its records. Returns `results`, each as the run holds it.
   */
  async keepBought(results: Verification[], credits?: { key: string; field: string; purchases: string }, answers?: RunAnswers): Promise<Verification[]> {
    const kept = answers ? await keepFirstAnswers(this.redis, answers, results) : results;
    const entries = this.entries(kept);
    // Every purchase is counted, a replaced one too: the engine billed it (or, collected again, counts once).
    const billable = results.filter((v) => v.billable);
    const countArgs = credits && billable.length > 0 ? ([COUNT_PURCHASES, 2, credits.key, credits.purchases, credits.field, ...billable.map(flaggedPurchase)] as const) : undefined;
    if (this.keys.cluster) {
      await this.setEach(entries);
      if (countArgs) await runScript(this.redis, ...countArgs);
      return kept;
    }
    await storeResults(this.redis, entries, credits && { ...credits, ids: billable.map(flaggedPurchase) });
    return kept;
  }

  /** What to store for each result: unknowns are not kept, nor results already past the longest freshness window. */
  private entries(results: Verification[]): CacheEntry[] {
    // Kept for the longest window anyone may ask for (a run can ask for more than the default).
    const ttlMs = Math.max(this.freshnessDays, DEFAULT_FRESHNESS_DAYS) * DAY_MS;
    const entries: CacheEntry[] = [];
    for (const v of results) {
      if (v.risk === 'unknown') continue;
      const age = Date.now() - Date.parse(v.checkedAt);
      const ttl = ttlMs - (Number.isFinite(age) ? Math.max(0, age) : 0);
      if (ttl > 0) entries.push({ key: this.keys.cache(v.normalized), value: JSON.stringify(v), ttlMs: ttl });
    }
    return entries;
  }

  /** One SET per entry, sent together (a cluster spreads the addresses over its slots). */
  private async setEach(entries: CacheEntry[]): Promise<void> {
    await Promise.all(entries.map((e) => this.redis.set(e.key, e.value, 'PX', e.ttlMs)));
  }
}

type CacheEntry = StoredEntry;

