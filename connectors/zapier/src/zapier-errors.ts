import { EngineAuthError, EngineQuotaError, EngineRateLimitError, InputError, VerifyHubError } from '@verify-hub/core';
import type { ZObject } from 'zapier-platform-core';

/** Seconds Zapier waits before replaying a throttled step, at least 1 (Zapier counts whole seconds). */
export function throttleDelaySeconds(error: EngineRateLimitError, now = Date.now()): number {
  return Math.max(1, Math.ceil(error.waitMs(now) / 1000));
}

/**
 * The one place where a hub failure becomes a Zapier error:
 * - engine 401 -> `ExpiredAuthError`: the key has nothing to refresh (custom auth), so Zapier marks the
 *   connection expired and asks the user to reconnect with a valid key;
 * - quota 429 -> an error naming the remedy (before the rate check: a quota error is also a rate error);
 * - rate 429 -> `ThrottledError` with the delay until `X-RateLimit-Reset`, so Zapier replays the step;
 * - bad input -> an error naming the field; anything else keeps its message (core's never hold a key).
 */
export function toZapierError(z: ZObject, error: unknown, now = Date.now()): Error {
  if (error instanceof EngineAuthError) {
    return new z.errors.ExpiredAuthError(
      'verify-hub rejected the API key (missing, invalid or revoked). Reconnect your verify-hub account with a valid key from your verify-hub dashboard.',
    );
  }
  if (error instanceof EngineQuotaError) {
    const until = new Date(error.resetAt).toISOString().slice(0, 10);
    return new z.errors.Error(
      `Your verify-hub verification credits are used up until ${until}. Buy a credit pack or upgrade your plan to go on now; unknown results were not billed.`,
      'QUOTA_EXCEEDED',
      429,
    );
  }
  if (error instanceof EngineRateLimitError) {
    const delay = throttleDelaySeconds(error, now);
    return new z.errors.ThrottledError(`verify-hub rate limit reached; Zapier retries this step in ${delay} s.`, delay);
  }
  if (error instanceof InputError) return new z.errors.Error(error.message, 'INVALID_INPUT', 400);
  if (error instanceof VerifyHubError) return new z.errors.Error(error.message, error.code, error.status);
  if (error instanceof Error) return error;
  return new z.errors.Error(String(error));
}

/** Runs `fn` and rethrows any failure as the Zapier error `toZapierError` chooses. */
export async function withZapierErrors<T>(z: ZObject, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toZapierError(z, error);
  }
}
