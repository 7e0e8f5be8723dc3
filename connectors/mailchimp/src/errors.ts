import { AuthError, VerifyHubError, networkFailure, unreachableMessage } from '@verify-hub/core';

/**
 * Every failure of a Mailchimp call has one class here, chosen in exactly one place
 * (`mailchimpErrorFrom`). Mailchimp answers errors as problem+json `{type, title, status, detail,
 * instance}`; the message carries `title: detail`. No error ever carries a key or token: the SDK's
 * own error (whose request holds the Authorization header) is dropped, not kept as `cause`.
 */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
}

export class MailchimpError extends VerifyHubError {
  override readonly code: string = 'MAILCHIMP_ERROR';
  readonly title?: string;
  readonly detail?: string;
  readonly type?: string;
  constructor(message: string, problem: Problem = {}) {
    super(message, { status: problem.status, requestId: problem.instance || undefined });
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
  }
  /** A Mailchimp auth error is a Mailchimp error too, though its class extends core's `AuthError`. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return this === MailchimpError && value instanceof MailchimpAuthError;
  }
}

/**
 * 401/403: the key or token is wrong, revoked, or lacks the role. Never retried; a run pauses on it.
 * It extends core's neutral `AuthError` (source `mailchimp`), which is what the pipeline pauses on.
 */
export class MailchimpAuthError extends AuthError {
  override readonly code: string = 'MAILCHIMP_UNAUTHORIZED';
  readonly title?: string;
  readonly detail?: string;
  readonly type?: string;
  constructor(message: string, problem: Problem = {}) {
    super(message, 'mailchimp', { status: problem.status, requestId: problem.instance || undefined });
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
  }
}

/** 429: more than 10 simultaneous connections for this key (Mailchimp sends no reset header). */
export class MailchimpRateLimitError extends MailchimpError {
  override readonly code: string = 'MAILCHIMP_RATE_LIMITED';
}

/** 5xx, timeouts and network failures. */
export class MailchimpUnavailableError extends MailchimpError {
  override readonly code: string = 'MAILCHIMP_UNAVAILABLE';
}

/**
 * The API (or the OAuth host) could not be reached: DNS, refused, reset, timeout. A kind of
 * unavailability (retried alike), and core's `PlatformUnreachableError` by its code, with words that
 * say what to check: "Mailchimp could not be reached: check the network or MAILCHIMP_API_BASE (...)".
 */
export class MailchimpUnreachableError extends MailchimpUnavailableError {
  override readonly code: string = 'PLATFORM_UNREACHABLE';
  readonly source = 'mailchimp';
  constructor(readonly reason: string, setting = 'MAILCHIMP_API_BASE') {
    super(unreachableMessage('Mailchimp', setting, reason));
  }
}

/** 404: no such list, segment, member or batch. */
export class MailchimpNotFoundError extends MailchimpError {
  override readonly code: string = 'MAILCHIMP_NOT_FOUND';
}

/** Any other 4xx: the request itself is wrong (bad merge field, over a limit, ...). */
export class MailchimpRequestError extends MailchimpError {
  override readonly code: string = 'MAILCHIMP_BAD_REQUEST';
}

/** A `/batches` job that did not finish in time, or whose results archive could not be read. */
export class MailchimpBatchError extends MailchimpError {
  override readonly code: string = 'MAILCHIMP_BATCH_FAILED';
}

function asProblem(body: unknown, status: number): Problem {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { type: str(b.type), title: str(b.title), detail: str(b.detail), instance: str(b.instance), status };
  }
  return { status };
}

function describe(problem: Problem, fallback: string): string {
  const title = problem.title || fallback;
  return problem.detail ? `${title}: ${problem.detail}` : title;
}

/** Builds the one error class for a problem+json answer of `status` (also used for `/batches` per-operation results). */
export function errorFromProblem(status: number, body: unknown, operation: string): MailchimpError {
  const problem = asProblem(body, status);
  const message = `Mailchimp ${operation} failed (${status}) ${describe(problem, 'error')}`;
  if (status === 401 || status === 403) return new MailchimpAuthError(message, problem);
  if (status === 429) return new MailchimpRateLimitError(message, problem);
  if (status === 404) return new MailchimpNotFoundError(message, problem);
  if (status >= 500) return new MailchimpUnavailableError(message, problem);
  return new MailchimpRequestError(message, problem);
}

/**
 * The one mapping from whatever the SDK (superagent) or fetch threw to a Mailchimp error class.
 * `setting` names where the host's address is set (the OAuth host's is MAILCHIMP_LOGIN_BASE).
 */
export function mailchimpErrorFrom(error: unknown, operation: string, setting = 'MAILCHIMP_API_BASE'): MailchimpError {
  if (error instanceof MailchimpError) return error;
  const e = (error ?? {}) as { status?: unknown; response?: { body?: unknown; text?: unknown }; timeout?: unknown; code?: unknown; name?: unknown };
  if (typeof e.status === 'number' && e.status >= 400) {
    let body = e.response?.body;
    if ((!body || (typeof body === 'object' && Object.keys(body).length === 0)) && typeof e.response?.text === 'string') {
      try {
        body = JSON.parse(e.response.text);
      } catch {
        body = undefined;
      }
    }
    return errorFromProblem(e.status, body, operation);
  }
  const unreached = networkFailure(error) ?? (e.name === 'AbortError' ? 'timed out' : undefined);
  if (unreached) return new MailchimpUnreachableError(`${operation}: ${unreached}`, setting);
  // Anything else (a bug, an unparseable answer) keeps only its message, which never holds a key.
  return new MailchimpError(`Mailchimp ${operation} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** The one retry policy: 429, 5xx, timeouts and network trouble are worth another attempt. */
export function shouldRetry(error: MailchimpError): boolean {
  return error instanceof MailchimpRateLimitError || error instanceof MailchimpUnavailableError;
}

/**
 * Whether a member's failed write may succeed when the chunk is tried again later (a write
 * failure's `retryable`): what the retry loop retries, plus a batch that did not finish in time.
 */
export function retryableLater(error: MailchimpError): boolean {
  return shouldRetry(error) || error instanceof MailchimpBatchError;
}
