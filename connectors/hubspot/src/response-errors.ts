import { z } from 'zod';
import { HubSpotApiError, HubSpotAuthError, HubSpotDailyLimitError, HubSpotRateLimitError } from './errors';
import { nextMidnight } from './portal-time';

/** HubSpot's error body; 429s add `errorType: RATE_LIMIT` and `policyName`. Anything else is tolerated. */
const ErrorBodySchema = z.looseObject({
  message: z.string().optional(),
  category: z.string().optional(),
  /** The OAuth endpoint's kind of refusal (BAD_REFRESH_TOKEN, BAD_AUTH_CODE ...), where others put `category`. */
  status: z.string().optional(),
  correlationId: z.string().optional(),
  errorType: z.string().optional(),
  policyName: z.string().optional(),
});

export type HeaderBag = Record<string, string | undefined>;

const intHeader = (headers: HeaderBag, name: string) => {
  const n = Number.parseInt(headers[name] ?? '', 10);
  return Number.isFinite(n) ? n : undefined;
};

/** What the `X-HubSpot-RateLimit-*` headers of an answer say. */
export interface RateLimitHeaders {
  max?: number;
  remaining?: number;
  intervalMs?: number;
  daily?: number;
  dailyRemaining?: number;
}

export function readRateLimitHeaders(headers: HeaderBag): RateLimitHeaders {
  return {
    max: intHeader(headers, 'x-hubspot-ratelimit-max'),
    remaining: intHeader(headers, 'x-hubspot-ratelimit-remaining'),
    intervalMs: intHeader(headers, 'x-hubspot-ratelimit-interval-milliseconds'),
    daily: intHeader(headers, 'x-hubspot-ratelimit-daily'),
    dailyRemaining: intHeader(headers, 'x-hubspot-ratelimit-daily-remaining'),
  };
}

function parseBody(raw: string): z.infer<typeof ErrorBodySchema> {
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/**
 * The one place a HubSpot error answer becomes a typed error. `timeZone` is the portal's (a DAILY 429
 * pauses until its midnight). HubSpot's messages never contain the token, so they are kept.
 */
export function hubspotErrorFromResponse(status: number, headers: HeaderBag, rawBody: string, opts: { timeZone?: string; now?: number } = {}): Error {
  const now = opts.now ?? Date.now();
  const parsed = parseBody(rawBody);
  const body = { ...parsed, category: parsed.category ?? parsed.status };
  const requestId = body.correlationId;
  const said = body.message ? `: ${body.message}` : '';
  if (status === 401) return new HubSpotAuthError(`HubSpot rejected the access token (401${body.category ? ` ${body.category}` : ''}); reconnect the portal`, { status, requestId });
  if (status === 403) return new HubSpotAuthError(`HubSpot refused the request (403): the connection lacks a scope${said}`, { status, requestId });
  if (status === 429) {
    const limits = readRateLimitHeaders(headers);
    const policy = body.policyName?.toUpperCase();
    if (policy === 'DAILY') {
      return new HubSpotDailyLimitError(`HubSpot daily API limit reached for this portal; resumes at the portal's midnight`, { resetAt: nextMidnight(opts.timeZone, now), limit: limits.daily, remaining: 0 }, { status, requestId });
    }
    const retryAfter = Number(headers['retry-after']);
    const waitMs = Number.isFinite(retryAfter) && retryAfter > 0
      ? retryAfter * 1000
      : policy === 'SECONDLY' ? 1000 : (limits.intervalMs ?? 10_000);
    return new HubSpotRateLimitError(`HubSpot rate limit (${policy ?? 'unknown policy'})`, { resetAt: now + waitMs, limit: limits.max, remaining: limits.remaining, policyName: policy }, { status, requestId });
  }
  return new HubSpotApiError(`HubSpot answered ${status}${body.category ? ` ${body.category}` : ''}${said}`, {
    status, category: body.category, retryable: status >= 500, requestId,
  });
}
