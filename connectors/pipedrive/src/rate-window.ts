import type { RawAxiosResponseHeaders, AxiosResponseHeaders } from 'axios';

type Headers = RawAxiosResponseHeaders | AxiosResponseHeaders | Record<string, unknown>;

const numberOf = (headers: Headers, name: string): number | undefined => {
  const value = (headers as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

/** The start of the next UTC day: when Pipedrive's daily allowance is counted afresh. */
export const nextUtcMidnight = (now: number): number => {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
};

/**
 * What Pipedrive's last answers said of its limits, per token: the 2-second burst window
 * (`x-ratelimit-limit`, `-remaining`, `-reset` in seconds) and what is left of the day
 * (`x-daily-requests-left`). Calls wait out a spent window instead of meeting a 429; the Redis limiter
 * the host shares between workers paces them to `x-ratelimit-limit` per 2 s in the first place.
 */
export class RateWindow {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  dailyLeft?: number;
  /** When a spent day's allowance comes back (the next UTC day). */
  dailyResetAt?: number;

  observe(headers: Headers, now: number = Date.now()): void {
    const limit = numberOf(headers, 'x-ratelimit-limit');
    const remaining = numberOf(headers, 'x-ratelimit-remaining');
    const reset = numberOf(headers, 'x-ratelimit-reset');
    const daily = numberOf(headers, 'x-daily-requests-left');
    if (limit !== undefined) this.limit = limit;
    if (remaining !== undefined) this.remaining = remaining;
    if (reset !== undefined) this.resetAt = now + Math.max(reset, 0) * 1000;
    if (daily !== undefined) {
      this.dailyLeft = daily;
      this.dailyResetAt = daily <= 0 ? nextUtcMidnight(now) : undefined;
    }
  }

  /** How long to hold the next call: until the window resets when it has nothing left, else 0. */
  waitMs(now: number = Date.now()): number {
    if (this.remaining === undefined || this.remaining > 0 || this.resetAt === undefined) return 0;
    return Math.max(this.resetAt - now, 0);
  }

  /** The day's allowance is spent: nothing more until the next UTC day. */
  dailyExhausted(now: number = Date.now()): boolean {
    return this.dailyResetAt !== undefined && now < this.dailyResetAt;
  }
}
