/**
 * Every failure kind of the hub has one class here. The engine's HTTP answers are mapped to them in
 * exactly one place, `engineErrorFromResponse`. No error ever carries an API key or token.
 */
export interface ErrorDetails {
  status?: number;
  requestId?: string;
  cause?: unknown;
}

export class VerifyHubError extends Error {
  readonly status?: number;
  readonly requestId?: string;
  /** A stable code clients can branch on. */
  readonly code: string = 'VERIFY_HUB_ERROR';

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.requestId = details.requestId;
  }
}

/** Bad input at a boundary: names the field, never echoes a secret. */
export class InputError extends VerifyHubError {
  override readonly code: string = 'INVALID_INPUT';
  constructor(readonly field: string, problem: string, details: ErrorDetails = {}) {
    super(`${field}: ${problem}`, details);
  }
}

/** Configuration that cannot start the process; names the variable, never its value when secret. */
export class ConfigError extends VerifyHubError {
  override readonly code: string = 'INVALID_CONFIG';
  constructor(readonly variable: string, problem: string) {
    super(`${variable}: ${problem}`);
  }
}

/** 401: key missing, invalid or revoked. Never retried; a run pauses on it. */
export class EngineAuthError extends VerifyHubError {
  override readonly code: string = 'UNAUTHORIZED';
}

export interface RateLimitInfo {
  /** When the limit resets, epoch milliseconds. */
  resetAt: number;
  limit?: number;
  remaining?: number;
}

/** 429 for the engine's request rate: wait until `resetAt`, then go on. */
export class EngineRateLimitError extends VerifyHubError {
  override readonly code: string = 'RATE_LIMITED';
  readonly resetAt: number;
  readonly limit?: number;
  readonly remaining?: number;
  constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
    super(message, details);
    this.resetAt = info.resetAt;
    this.limit = info.limit;
    this.remaining = info.remaining;
  }
  /** Milliseconds to wait from `now` (never negative). */
  waitMs(now = Date.now()): number {
    return Math.max(0, this.resetAt - now);
  }
}

/** 429 for the account's quota (monthly credits): pause until reset or top-up. */
export class EngineQuotaError extends EngineRateLimitError {
  override readonly code: string = 'QUOTA_EXCEEDED';
}

/** 5xx, timeouts and network failures that outlived the retries. */
export class EngineUnavailableError extends VerifyHubError {
  override readonly code: string = 'ENGINE_UNAVAILABLE';
}

/** A 2xx answer that is not a verification result, or any other status the contract does not name. */
export class EngineResponseError extends VerifyHubError {
  override readonly code: string = 'ENGINE_BAD_RESPONSE';
}

/** The credit cap of a batch or run would be exceeded by the next verification. */
export class CreditCapReachedError extends VerifyHubError {
  override readonly code: string = 'CREDIT_CAP_REACHED';
}

/** A webhook delivery refused: bad or missing signature (401), stale or replayed (401), malformed (400), too large (413). */
export class WebhookRejectedError extends VerifyHubError {
  override readonly code: string = 'WEBHOOK_REJECTED';
  constructor(message: string, status: 400 | 401 | 413) {
    super(message, { status });
  }
}
