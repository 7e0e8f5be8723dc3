import type { CallLimiter, LimiterFactory } from '@verify-hub/core';

/**
 * Klaviyo limits each endpoint on its own, with a 1-second burst window and a 1-minute steady window
 * (the `x-klaviyo-ratelimit` of each operation in Klaviyo's OpenAPI description, revision 2026-07-15).
 * Calls wait their turn in both windows, shared by every worker; a 429 that still comes back carries
 * Retry-After, which the host waits out.
 */
export const RATE_LIMITS = {
  accounts: { burst: 1, steady: 15 },
  lists: { burst: 75, steady: 750 },
  segments: { burst: 75, steady: 750 },
  profiles: { burst: 75, steady: 750 },
  listProfiles: { burst: 75, steady: 750 },
  segmentProfiles: { burst: 75, steady: 750 },
  importJobCreate: { burst: 10, steady: 150 },
  importJobRead: { burst: 10, steady: 150 },
  importErrors: { burst: 10, steady: 150 },
  suppressJobCreate: { burst: 75, steady: 750 },
  suppressJobRead: { burst: 75, steady: 750 },
} as const;
export type KlaviyoEndpoint = keyof typeof RATE_LIMITS;

/** Each window a little longer than Klaviyo's: a call's start here and its arrival there are not the same instant. */
const WINDOW_MARGIN_MS = 100;

/** One limiter per endpoint, both windows, named by the account so every connection to it shares them. */
export function endpointLimiters(factory: LimiterFactory, account: string): (endpoint: KlaviyoEndpoint) => CallLimiter {
  const made = new Map<KlaviyoEndpoint, CallLimiter>();
  return (endpoint) => {
    let limiter = made.get(endpoint);
    if (!limiter) {
      const { burst, steady } = RATE_LIMITS[endpoint];
      const perSecond = factory({ key: `klaviyo:${account}:${endpoint}:1s`, perInterval: { count: burst, intervalMs: 1000 + WINDOW_MARGIN_MS } });
      const perMinute = factory({ key: `klaviyo:${account}:${endpoint}:1m`, perInterval: { count: steady, intervalMs: 60_000 + WINDOW_MARGIN_MS } });
      limiter = { schedule: (fn) => perMinute.schedule(() => perSecond.schedule(fn)) };
      made.set(endpoint, limiter);
    }
    return limiter;
  };
}
