import { VerifyHubError, networkFailure, platformErrorKinds } from '@verify-hub/core';

/**
 * Salesforce's failures as core's kinds, which the host acts on: an AuthError pauses a run until the
 * platform is reconnected (and a connect form answers "refused"), a RateLimitError waits, a
 * QuotaError pauses until its reset, a TransientError (5xx, no answer) is tried once more.
 */
export const SalesforceErrors = platformErrorKinds('salesforce');

/**
 * The org's rolling 24-hour allocation gives no reset time: a paused run looks again after an hour
 * (calls older than 24 h fall out of the window continuously).
 */
export const ALLOWANCE_RETRY_MS = 60 * 60_000;

/** What the user reads when a refresh token is revoked or expired (`invalid_grant`). */
export const RECONNECT_WORDS =
  'Salesforce refused the sign-in (refresh token revoked or expired, or the app was blocked): reconnect Salesforce (Connections in the dashboard, or `verify-hub salesforce connect` for a JWT connection)';

/** Salesforce error codes meaning "try again": its servers, not the request. */
const TRANSIENT_CODES = new Set(['SERVER_UNAVAILABLE', 'UNKNOWN_EXCEPTION', 'QUERY_TIMEOUT', 'REQUEST_RUNNING_TOO_LONG', 'TXN_SECURITY_METERING_ERROR']);
/** Codes meaning the session or its user can no longer be used: reconnect. */
const AUTH_CODES = new Set(['INVALID_SESSION_ID', 'invalid_grant', 'INVALID_AUTH_HEADER', 'API_DISABLED_FOR_ORG', 'API_CURRENTLY_DISABLED', 'INVALID_OPERATION_WITH_EXPIRED_PASSWORD', 'inactive_user', 'inactive_org']);

/** A Salesforce answer the contract does not act on by kind (a malformed query, a field it does not know). */
export class SalesforceApiError extends VerifyHubError {
  override readonly code: string = 'SALESFORCE_API_ERROR';
  constructor(
    message: string,
    readonly errorCode: string,
  ) {
    super(message);
  }
}

/** The error code of a REST error, an OAuth error (its name), or a SOAP fault (`sf:INVALID_SESSION_ID`, prefix dropped). */
const codeOf = (error: { errorCode?: unknown; name?: unknown; error?: unknown }) =>
  String(error.errorCode ?? (typeof error.error === 'string' ? error.error : undefined) ?? error.name ?? '').replace(/^[A-Za-z]+:/, '');

/**
 * The one place a Salesforce failure (jsforce's `HttpApiError`, an OAuth error, a SOAP fault, a
 * dropped connection) becomes core's kind. `REQUEST_LIMIT_EXCEEDED` is Salesforce's refusal of the
 * org's daily allocation (not a 429): a quota, so the run pauses instead of retrying.
 */
export function salesforceError(error: unknown, now = Date.now()): unknown {
  if (error instanceof VerifyHubError) return error;
  if (typeof error !== 'object' || error === null) return error;
  const code = codeOf(error as Record<string, unknown>);
  const message = String((error as { message?: unknown }).message ?? code).slice(0, 300);
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    return new SalesforceErrors.QuotaError(`Salesforce refused the call: the org's 24-hour API allocation is used up (REQUEST_LIMIT_EXCEEDED); the run resumes when calls free up`, { resetAt: now + ALLOWANCE_RETRY_MS });
  }
  if (AUTH_CODES.has(code) || /^ERROR_HTTP_(401|403)$/.test(code)) return new SalesforceErrors.AuthError(`${RECONNECT_WORDS} (${code})`);
  if (TRANSIENT_CODES.has(code) || /^ERROR_HTTP_(5\d\d|429)$/.test(code)) return new SalesforceErrors.TransientError(`Salesforce answered ${code}: ${message}`);
  const unreachable = networkFailure(error);
  if (unreachable) return new SalesforceErrors.TransientError(`Salesforce could not be reached: ${unreachable}`);
  if (code) return new SalesforceApiError(`Salesforce answered ${code}: ${message}`, code);
  return error;
}

/** Runs one call, its failure turned into core's kind. */
export async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw salesforceError(error);
  }
}
