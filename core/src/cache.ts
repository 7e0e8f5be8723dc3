import { HARD_BOUNCE_REASON } from './bounce';
import type { Verification } from './verification';

/** Where verified results are kept so an address is not paid for twice. Keyed on `normalized`. */
export interface VerificationCache {
  /** The fresh results among `keys`; stale and `unknown` entries are never returned. */
  getMany(keys: string[]): Promise<Map<string, Verification>>;
  setMany(results: Verification[]): Promise<void>;
}

export const DEFAULT_FRESHNESS_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a result may be served instead of a new verification. Unknown results are never final. A
 * verdict a hard bounce proved (reason `hard_bounce`, bounce.ts) does not age like a check: it is
 * served for as long as it is kept, so the address is never bought again.
 */
export function isFreshResult(v: Verification, freshnessDays: number, now = Date.now()): boolean {
  if (v.risk === 'unknown') return false;
  if (v.reason === HARD_BOUNCE_REASON) return true;
  const checked = Date.parse(v.checkedAt);
  return Number.isFinite(checked) && now - checked < freshnessDays * DAY_MS;
}

/**
 * The in-process cache (the Redis one lives in sync-jobs). `remember` limits it to the addresses a run
 * will meet again: `verify-hub clean` passes the file's repeated addresses, so a 50,000-row file does
 * not keep 50,000 results alive (old-generation memory that grew with the file; issue 22, item 5).
 */
export class InMemoryVerificationCache implements VerificationCache {
  private readonly entries = new Map<string, Verification>();
  constructor(private readonly options: { freshnessDays?: number; now?: () => number; remember?: (normalized: string) => boolean } = {}) {}

  async getMany(keys: string[]): Promise<Map<string, Verification>> {
    const now = this.options.now?.() ?? Date.now();
    const days = this.options.freshnessDays ?? DEFAULT_FRESHNESS_DAYS;
    const found = new Map<string, Verification>();
    for (const key of keys) {
      const v = this.entries.get(key);
      if (v && isFreshResult(v, days, now)) found.set(key, v);
    }
    return found;
  }

  async setMany(results: Verification[]): Promise<void> {
    const remember = this.options.remember;
    for (const v of results) if (v.risk !== 'unknown' && (!remember || remember(v.normalized))) this.entries.set(v.normalized, v);
  }

  get size(): number {
    return this.entries.size;
  }
}
