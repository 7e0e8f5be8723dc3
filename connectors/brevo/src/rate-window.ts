import { BrevoErrors } from './errors';

/** Brevo's two budgets: `/v3/contacts/*` (10/s, 36,000/h) and every other endpoint (100/h). */
export type Bucket = 'contacts' | 'other';

/** What Brevo documents for each budget: the fallback when an answer carries no headers. */
export const BREVO_LIMITS = {
  contacts: { perSecond: 10, perHour: 36_000 },
  other: { perHour: 100 },
} as const;

/** Without a reset header, a refused contacts call waits a second; a refused other call, a minute (its window is an hour). */
const DEFAULT_WAIT_MS: Record<Bucket, number> = { contacts: 1_000, other: 60_000 };

/** A closed window this short is waited out before sending. */
const PACE_MS = 2_000;

const headerNumber = (headers: Headers | undefined, name: string): number | undefined => {
  const value = headers?.get(name);
  const parsed = value === null || value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
};

/**
 * The `x-sib-ratelimit-limit/-remaining/-reset` headers of Brevo's answers, per budget: when an answer
 * says nothing remains, the next call in that budget is not sent before the reset (it fails at once
 * with a RateLimitError the host waits out); a 429's reset says when to try again. `reset` is seconds
 * from now.
 */
export class RateWindow {
  private readonly closedUntil: Record<Bucket, number> = { contacts: 0, other: 0 };
  private readonly limits: Partial<Record<Bucket, number>> = {};

  /**
   * Waits out a closed window of at most `PACE_MS` (the per-second window, reached by design when the
   * limiter paces at Brevo's rate: pacing, not a retry); a longer one throws the RateLimitError of
   * `bucket`, which the host waits out (a run, an event) or reports (a command).
   */
  async check(bucket: Bucket, what: string): Promise<void> {
    const until = this.closedUntil[bucket];
    const wait = until - Date.now();
    if (wait <= 0) return;
    if (wait <= PACE_MS) return void (await new Promise((resolve) => setTimeout(resolve, wait)));
    throw new BrevoErrors.RateLimitError(`Brevo's rate limit for ${what} is used up until its reset (x-sib-ratelimit-remaining: 0)`, { resetAt: until, limit: this.limits[bucket], remaining: 0 });
  }

  /** Reads an answer's headers: remaining 0 closes the window until the reset. */
  observe(bucket: Bucket, headers: Headers | undefined): void {
    const limit = headerNumber(headers, 'x-sib-ratelimit-limit');
    if (limit !== undefined) this.limits[bucket] = limit;
    const remaining = headerNumber(headers, 'x-sib-ratelimit-remaining');
    const reset = headerNumber(headers, 'x-sib-ratelimit-reset');
    if (remaining === 0) this.closedUntil[bucket] = Date.now() + (reset ?? DEFAULT_WAIT_MS[bucket] / 1000) * 1000;
  }

  /** A 429 in `bucket`: closes its window until the reset the headers give, and returns that time. */
  refused(bucket: Bucket, headers: Headers | undefined): number {
    const reset = headerNumber(headers, 'x-sib-ratelimit-reset');
    const until = Date.now() + (reset === undefined ? DEFAULT_WAIT_MS[bucket] : Math.max(reset * 1000, 100));
    this.closedUntil[bucket] = until;
    return until;
  }

  limitOf(bucket: Bucket): number | undefined {
    return this.limits[bucket];
  }
}
