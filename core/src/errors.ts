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

/**
 * Who refused: `'engine'`, or a platform module's id (`'toy'`). Control flow branches on the kind of an
 * error (auth, rate limit, quota) and names the source in what it tells the user, never on a connector's class name.
 */
export type ErrorSource = string;

/**
 * A key or token missing, invalid, revoked or without the rights: never retried; a run pauses on it
 * and says what to fix. Every connector's auth error extends this one.
 */
export class AuthError extends VerifyHubError {
  override readonly code: string = 'UNAUTHORIZED';
  constructor(message: string, readonly source: ErrorSource, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * A platform failed in a way worth one more try (a 5xx answer, a dropped connection): the pipeline's
 * write retries it once, after a short wait; a connector throws it and retries nothing itself.
 */
export class TransientError extends VerifyHubError {
  override readonly code: string = 'TRANSIENT';
  constructor(message: string, readonly source: ErrorSource, details: ErrorDetails = {}) {
    super(message, details);
  }
}

export interface RateLimitInfo {
  /** When the limit resets, epoch milliseconds. */
  resetAt: number;
  limit?: number;
  remaining?: number;
}

/** A request rate refused for now (429 and the like): wait until `resetAt`, then go on. */
export class RateLimitError extends VerifyHubError {
  override readonly code: string = 'RATE_LIMITED';
  readonly resetAt: number;
  readonly limit?: number;
  readonly remaining?: number;
  constructor(message: string, readonly source: ErrorSource, info: RateLimitInfo, details: ErrorDetails = {}) {
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

/**
 * An allowance used up until a reset far away (the engine's monthly credits, HubSpot's daily calls):
 * a run pauses until `resetAt` or a top-up. It is a rate limit with a long reset, so code that only
 * waits out rate limits must test for `QuotaError` first.
 */
export class QuotaError extends RateLimitError {
  override readonly code: string = 'QUOTA_EXCEEDED';
}

/*
 * The engine's own classes. `instanceof` on them asks a kind and a source (`Symbol.hasInstance`), not
 * a constructor: an engine quota is also an engine rate limit (a long one), as callers have always
 * relied on, while a HubSpot or Mailchimp error of the same kind is not the engine's.
 */

/** 401 from the engine: key missing, invalid or revoked. */
export class EngineAuthError extends AuthError {
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, 'engine', details);
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof AuthError && value.source === 'engine';
  }
}

/** 429 from the engine, for its request rate (wait until `resetAt`) or its quota (an `EngineQuotaError`). */
export class EngineRateLimitError extends RateLimitError {
  constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
    super(message, 'engine', info, details);
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof RateLimitError && value.source === 'engine';
  }
}

/** 429 for the account's quota (monthly credits): pause until reset or top-up. */
export class EngineQuotaError extends QuotaError {
  constructor(message: string, info: RateLimitInfo, details: ErrorDetails = {}) {
    super(message, 'engine', info, details);
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof QuotaError && value.source === 'engine';
  }
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

/**
 * A platform's API could not be reached (DNS, connection refused or reset, timeout) once the retries
 * were spent. The message says what to do, naming the platform and the setting of its address:
 * "HubSpot could not be reached: check the network or HUBSPOT_API_BASE (connection refused)". Each
 * connector makes its own (it knows its label and variable); hosts answer it generically (the hub: 502).
 * `instanceof PlatformUnreachableError` asks the kind (its code), so a connector may keep its own class
 * hierarchy and still be recognised.
 */
export class PlatformUnreachableError extends VerifyHubError {
  override readonly code: string = 'PLATFORM_UNREACHABLE';
  constructor(readonly source: ErrorSource, label: string, setting: string, readonly reason: string) {
    super(unreachableMessage(label, setting, reason));
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== PlatformUnreachableError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof VerifyHubError && value.code === 'PLATFORM_UNREACHABLE';
  }
}

/** The words of a PlatformUnreachableError, for connectors whose class extends another of theirs. */
export function unreachableMessage(label: string, setting: string, reason: string): string {
  return `${label} could not be reached: check the network or ${setting} (${reason})`;
}
