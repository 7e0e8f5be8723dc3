import { VerifyHubError, networkFailure, platformErrorKinds, unreachableMessage } from '@verify-hub/core';

/**
 * Klaviyo's failures as core's kinds, which the host acts on: an AuthError pauses a run until the
 * platform is reconnected (and a connect form answers "refused"), a RateLimitError waits until
 * Retry-After, a TransientError (5xx, no answer) is tried once more. Chosen here, in one place
 * (`klaviyoErrorFrom`); the SDK's own error (whose request holds the Authorization header) is never
 * kept, only the status and Klaviyo's words.
 */
export const KlaviyoErrors = platformErrorKinds('klaviyo');

/** Any other 4xx: the request itself was refused (a bad filter, a job over its limit). Not retried. */
export class KlaviyoRequestError extends VerifyHubError {
  override readonly code: string = 'KLAVIYO_BAD_REQUEST';
}

/** 404: no such list, segment, profile or job. */
export class KlaviyoNotFoundError extends KlaviyoRequestError {
  override readonly code: string = 'KLAVIYO_NOT_FOUND';
}

/** Klaviyo could not be reached at all (DNS, refused, timeout): transient, with words that say what to check. */
export class KlaviyoUnreachableError extends KlaviyoErrors.TransientError {
  override readonly code: string = 'PLATFORM_UNREACHABLE';
  constructor(reason: string) {
    super(unreachableMessage('Klaviyo', 'KLAVIYO_API_BASE', reason));
  }
}

/** One item of Klaviyo's JSON:API error answer `{ errors: [{ status, code, title, detail, source }] }`. */
interface KlaviyoErrorItem {
  code?: string;
  title?: string;
  detail?: string;
}

function firstError(body: unknown): KlaviyoErrorItem {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  const first = Array.isArray(errors) ? (errors[0] as Record<string, unknown> | undefined) : undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return first ? { code: text(first.code), title: text(first.title), detail: text(first.detail) } : {};
}

/** Retry-After is seconds (Klaviyo documents seconds); a missing or odd value waits one second. */
export function retryAfterMs(header: unknown): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000;
}

/** Builds the one error for an answer of `status` to `operation` (its body and headers as received). */
export function errorFromAnswer(status: number, body: unknown, headers: Record<string, unknown>, operation: string): Error {
  const item = firstError(body);
  const words = [item.title, item.detail].filter(Boolean).join(': ');
  const message = `Klaviyo answered ${status} to ${operation}${words ? ` (${words})` : ''}`;
  const details = { status };
  if (status === 401) return new KlaviyoErrors.AuthError(`Klaviyo refused the credentials (${status} to ${operation}): the key was revoked or the sign-in expired`, details);
  if (status === 403) return new KlaviyoErrors.AuthError(`Klaviyo refused ${operation} (403 ${item.detail ?? 'permission denied'}): the key or sign-in lacks a scope it needs`, details);
  if (status === 429) return new KlaviyoErrors.RateLimitError(`Klaviyo rate limit on ${operation}`, { resetAt: Date.now() + retryAfterMs(headers['retry-after']) }, details);
  if (status >= 500) return new KlaviyoErrors.TransientError(message, details);
  if (status === 404) return new KlaviyoNotFoundError(message, details);
  return new KlaviyoRequestError(message, details);
}

/** The one mapping from whatever the SDK (axios) or fetch threw to one of the kinds above. */
export function klaviyoErrorFrom(error: unknown, operation: string): Error {
  if (error instanceof VerifyHubError) return error;
  const e = (error ?? {}) as { response?: { status?: unknown; data?: unknown; headers?: unknown } };
  if (e.response && typeof e.response.status === 'number') {
    return errorFromAnswer(e.response.status, e.response.data, (e.response.headers ?? {}) as Record<string, unknown>, operation);
  }
  const unreached = networkFailure(error) ?? ((error as { code?: unknown }).code === 'ECONNABORTED' ? 'timed out' : undefined);
  if (unreached) return new KlaviyoUnreachableError(`${operation}: ${unreached}`);
  // Anything else (a bug, an answer that did not parse) keeps only its message, which never holds a key.
  return new VerifyHubError(`Klaviyo ${operation} failed: ${error instanceof Error ? error.message : String(error)}`);
}
