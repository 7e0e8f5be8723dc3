import { AuthError, PlatformUnreachableError, QuotaError, RateLimitError, VerifyHubError, networkFailure, type ErrorDetails, type RateLimitInfo } from '@verify-hub/core';

/**
 * One class per HubSpot failure kind. The control-flow ones extend core's neutral auth / rate / quota
 * classes with `source: 'hubspot'`, so the sync pipeline treats them by kind: an auth failure pauses
 * the run and says to reconnect HubSpot, a rate limit waits, a daily limit pauses the run until
 * `resetAt` (the portal's next midnight). None carries a token.
 */

/** 401 (token invalid, revoked, expired and not refreshable) or 403 (a scope is missing). */
export class HubSpotAuthError extends AuthError {
  readonly platform = 'hubspot';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, 'hubspot', details);
  }
}

/** The 10-second (or search's per-second) window is still full after the connector's own waits. */
export class HubSpotRateLimitError extends RateLimitError {
  readonly platform = 'hubspot';
  readonly policyName?: string;
  constructor(message: string, info: RateLimitInfo & { policyName?: string }, details: ErrorDetails = {}) {
    super(message, 'hubspot', info, details);
    this.policyName = info.policyName;
  }
}

/**
 * The portal's daily API limit is used up: pause until the portal's next midnight (`resetAt`, epoch ms,
 * also readable as `resumeAt`). Extends the quota error so a run pauses instead of retrying.
 */
export class HubSpotDailyLimitError extends QuotaError {
  readonly platform = 'hubspot';
  readonly policyName = 'DAILY';
  constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
    super(message, 'hubspot', info, details);
  }
  get resumeAt(): number {
    return this.resetAt;
  }
}

/** Any other error answer (4xx the contract does not retry, or 5xx/network failures that outlived the retries). */
export class HubSpotApiError extends VerifyHubError {
  override readonly code: string = 'HUBSPOT_API_ERROR';
  readonly platform = 'hubspot';
  /** HubSpot's error category (VALIDATION_ERROR, OBJECT_NOT_FOUND, OBJECT_ALREADY_EXISTS, ...). */
  readonly category?: string;
  /** Whether another attempt may succeed (server trouble), as opposed to a request HubSpot refuses. */
  readonly retryable: boolean;
  constructor(message: string, opts: { status?: number; category?: string; retryable: boolean; requestId?: string; cause?: unknown }) {
    super(message, { status: opts.status, requestId: opts.requestId, cause: opts.cause });
    this.category = opts.category;
    this.retryable = opts.retryable;
  }
}

/**
 * HubSpot's API could not be reached (DNS, refused, reset, timeout): "HubSpot could not be reached:
 * check the network or HUBSPOT_API_BASE (connection refused)". Retried like server trouble first.
 */
export class HubSpotUnreachableError extends PlatformUnreachableError {
  readonly platform = 'hubspot';
  constructor(reason: string) {
    super('hubspot', 'HubSpot', 'HUBSPOT_API_BASE', reason);
  }
}

/** The typed error for a network failure (fetch's or the SDK's), else `error` as it was. */
export function hubspotNetworkError(error: unknown): unknown {
  if (error instanceof VerifyHubError) return error;
  const reason = networkFailure(error);
  return reason ? new HubSpotUnreachableError(reason) : error;
}
