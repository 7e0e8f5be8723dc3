/** Brevo's two budgets: `/v3/contacts/*` and every other endpoint. */
export type Bucket = 'contacts' | 'other';

interface Window {
  limit: number;
  ms: number;
  starts: number[];
}

/**
 * Brevo's documented general rate limits, as sliding windows: contacts endpoints 10 a second and
 * 36,000 an hour, every other endpoint 100 an hour. Each answer carries `x-sib-ratelimit-limit`,
 * `-remaining` and `-reset` (seconds until the tightest window frees a call), as Brevo sends them.
 * Tests may lower a limit (`set`) to reach it quickly.
 */
export class FakeBrevoLimits {
  private readonly windows: Record<Bucket, Window[]> = {
    contacts: [
      { limit: 10, ms: 1_000, starts: [] },
      { limit: 36_000, ms: 3_600_000, starts: [] },
    ],
    other: [{ limit: 100, ms: 3_600_000, starts: [] }],
  };
  /** Calls refused with 429, by budget. */
  readonly refused: Record<Bucket, number> = { contacts: 0, other: 0 };

  /** Replaces the limits of `bucket` (windows emptied). */
  set(bucket: Bucket, windows: { limit: number; ms: number }[]): void {
    this.windows[bucket] = windows.map((w) => ({ ...w, starts: [] }));
  }

  take(bucket: Bucket, now = Date.now()): { allowed: boolean; headers: Record<string, string> } {
    const windows = this.windows[bucket];
    for (const w of windows) while (w.starts.length && now - w.starts[0]! >= w.ms) w.starts.shift();
    const full = windows.find((w) => w.starts.length >= w.limit);
    if (!full) for (const w of windows) w.starts.push(now);
    else this.refused[bucket]++;
    // The tightest window names the headers: the one with the fewest calls left.
    const tightest = windows.reduce((a, b) => (b.limit - b.starts.length < a.limit - a.starts.length ? b : a));
    const remaining = Math.max(0, tightest.limit - tightest.starts.length);
    const resetMs = tightest.starts.length ? tightest.starts[0]! + tightest.ms - now : tightest.ms;
    return {
      allowed: !full,
      headers: { 'x-sib-ratelimit-limit': String(tightest.limit), 'x-sib-ratelimit-remaining': String(remaining), 'x-sib-ratelimit-reset': String(Math.max(0, Math.ceil(resetMs / 1000))) },
    };
  }
}
