import { isQuota429, parseResetHeader, QUOTA_RESET_THRESHOLD_MS, readRateLimitHeaders } from '@verify-hub/core';

const now = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('parseResetHeader', () => {
  it('reads epoch seconds', () => {
    expect(parseResetHeader(String(now / 1000 + 30), now)).toBe(now + 30_000);
  });
  it('reads epoch milliseconds', () => {
    expect(parseResetHeader(String(now + 1234), now)).toBe(now + 1234);
  });
  it('reads seconds from now', () => {
    expect(parseResetHeader('45', now)).toBe(now + 45_000);
    expect(parseResetHeader('0.5', now)).toBe(now + 500);
  });
  it('ignores missing, empty, negative and non-numeric values', () => {
    for (const v of [undefined, null, '', '  ', '-3', 'soon', 'NaN']) expect(parseResetHeader(v, now)).toBeUndefined();
  });
});

describe('readRateLimitHeaders', () => {
  it('reads limit, remaining and reset', () => {
    const headers: Record<string, string> = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' };
    expect(readRateLimitHeaders((n) => headers[n], now)).toEqual({ limit: 100, remaining: 0, resetAt: now + 12_000 });
  });
  it('falls back to a short wait when no reset is given', () => {
    expect(readRateLimitHeaders(() => undefined, now, 2000)).toEqual({ resetAt: now + 2000, limit: undefined, remaining: undefined });
  });
});

describe('isQuota429', () => {
  it('trusts the body code first', () => {
    expect(isQuota429('QUOTA_EXCEEDED', now + 1000, now)).toBe(true);
    expect(isQuota429('RATE_LIMITED', now + 10 * QUOTA_RESET_THRESHOLD_MS, now)).toBe(false);
  });
  it('without a code, a reset beyond the rate window means quota', () => {
    expect(isQuota429(undefined, now + QUOTA_RESET_THRESHOLD_MS + 1, now)).toBe(true);
    expect(isQuota429(undefined, now + 60_000, now)).toBe(false);
  });
});
