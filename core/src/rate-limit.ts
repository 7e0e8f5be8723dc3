import type { RateLimitInfo } from './errors';

/**
 * `X-RateLimit-Reset` comes in three forms; the magnitude tells them apart:
 * - >= 1e12: epoch milliseconds (1e12 ms is September 2001);
 * - >= 1e9: epoch seconds (1e9 s is September 2001; no rate window lasts 31 years);
 * - otherwise: seconds from now.
 * Returns epoch milliseconds, or undefined when the header is missing or not a number.
 */
export function parseResetHeader(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const n = Number(value.trim());
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n >= 1e12) return Math.round(n);
  if (n >= 1e9) return Math.round(n * 1000);
  return now + Math.round(n * 1000);
}

function intHeader(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Reads `X-RateLimit-Limit/Remaining/Reset`; a missing reset means "try again in `fallbackMs`". */
export function readRateLimitHeaders(
  get: (name: string) => string | null | undefined,
  now = Date.now(),
  fallbackMs = 1000,
): RateLimitInfo {
  return {
    resetAt: parseResetHeader(get('x-ratelimit-reset'), now) ?? now + fallbackMs,
    limit: intHeader(get('x-ratelimit-limit')),
    remaining: intHeader(get('x-ratelimit-remaining')),
  };
}

/**
 * A 429 is a quota (not a rate) error when the body says so (`code` containing QUOTA, as the local
 * engine and the hosted service send), or, when the body has no code, when the reset is further away
 * than any rate window: more than `QUOTA_RESET_THRESHOLD_MS` (one hour). Monthly quotas reset at the
 * start of the next period, rate windows within seconds or minutes.
 */
export const QUOTA_RESET_THRESHOLD_MS = 60 * 60 * 1000;

export function isQuota429(bodyCode: string | undefined, resetAt: number, now = Date.now()): boolean {
  if (bodyCode) {
    const code = bodyCode.toUpperCase();
    if (code.includes('QUOTA') || code.includes('CREDIT')) return true;
    if (code.includes('RATE')) return false;
  }
  return resetAt - now > QUOTA_RESET_THRESHOLD_MS;
}
