/**
 * Each domain's catch-all answer for `ttlMs`, so one random RCPT serves every address of the domain in
 * that period. Verifications that need the answer while a probe is in flight wait for that probe instead
 * of sending their own (a probe that ends without an answer lets the next one try).
 */
export class CatchAllCache {
  private readonly known = new Map<string, { catchAll: boolean; expires: number }>();
  private readonly inFlight = new Map<string, Promise<boolean | null>>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  /** The domain's answer, from the cache, from a probe in flight, or from `probe` (then `probed` is true). */
  async answer(domain: string, probe: () => Promise<boolean | null>): Promise<{ catchAll: boolean | null; probed: boolean }> {
    const hit = this.known.get(domain);
    if (hit && hit.expires > Date.now()) return { catchAll: hit.catchAll, probed: false };
    const pending = this.inFlight.get(domain);
    if (pending) {
      const answer = await pending.catch(() => null);
      if (answer !== null) return { catchAll: answer, probed: false };
    }
    const mine = probe();
    if (this.ttlMs > 0) this.inFlight.set(domain, mine);
    try {
      const catchAll = await mine;
      if (catchAll !== null && this.ttlMs > 0) {
        if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value as string);
        this.known.set(domain, { catchAll, expires: Date.now() + this.ttlMs });
      }
      return { catchAll, probed: true };
    } finally {
      if (this.inFlight.get(domain) === mine) this.inFlight.delete(domain);
    }
  }

  clear(): void {
    this.known.clear();
  }
}
