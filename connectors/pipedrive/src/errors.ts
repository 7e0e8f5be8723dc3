import type { AxiosError } from 'axios';
import { VerifyHubError, platformErrorKinds } from '@verify-hub/core';
import { RateWindow, nextUtcMidnight } from './rate-window';

/**
 * Pipedrive's failures as core's kinds, which the host acts on: an AuthError pauses a run until the
 * platform is reconnected (and a connect form answers "refused"), a RateLimitError waits, a
 * QuotaError pauses until its reset, a TransientError (5xx, no answer) is tried once more.
 */
export const PipedriveErrors = platformErrorKinds('pipedrive');

/** Past this, a 429's reset cannot be the burst window's. */
export const LONGEST_BURST_RESET_MS = 60_000;

export const RECONNECT_WORDS = 'reconnect Pipedrive (`verify-hub pipedrive connect`, or Connections in the dashboard)';

/** What Pipedrive says in an error body (`{ success: false, error, error_info }`), kept short and free of secrets. */
function bodyWords(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const { error, message } = data as { error?: unknown; message?: unknown };
  const words = typeof error === 'string' ? error : typeof message === 'string' ? message : '';
  return words ? `: ${words.slice(0, 200)}` : '';
}

/**
 * One Pipedrive answer that was not a success, as core's kind: the one place this happens. 401 refused
 * credentials; 403 a permission the token lacks (also the user's to fix, so it pauses too); 429 the
 * 2-second burst window (RateLimitError until `x-ratelimit-reset`) or, with `x-daily-requests-left: 0`,
 * the day's allowance (QuotaError until the next UTC day); 5xx or no answer transient.
 */
export function pipedriveFailure(error: AxiosError, what: string, window: RateWindow, now: number = Date.now()): Error {
  const response = error.response;
  if (!response) return new PipedriveErrors.TransientError(`Pipedrive could not be reached for ${what} (${error.code ?? error.message})`);
  window.observe(response.headers, now);
  const status = response.status;
  const words = bodyWords(response.data);
  if (status === 401) return new PipedriveErrors.AuthError(`Pipedrive refused the credentials (401 to ${what}${words}): ${RECONNECT_WORDS}`, { status });
  if (status === 403) return new PipedriveErrors.AuthError(`Pipedrive refused ${what} (403${words}): the user or app lacks a permission; ${RECONNECT_WORDS}`, { status });
  if (status === 429) {
    if (window.dailyExhausted(now)) {
      return new PipedriveErrors.QuotaError(`Pipedrive's daily API allowance of this company is spent (429 to ${what}); it comes back at 00:00 UTC`, { resetAt: nextUtcMidnight(now) }, { status });
    }
    const retryAfter = Number(response.headers['retry-after']);
    const resetAt = window.resetAt ?? now + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 2) * 1000;
    // A 2-second window never resets a minute away: a refusal that does is the day's budget, said
    // without `x-daily-requests-left` (which Pipedrive sends on some answers only). It pauses the run.
    if (resetAt - now > LONGEST_BURST_RESET_MS) {
      return new PipedriveErrors.QuotaError(`Pipedrive refused ${what} until ${new Date(resetAt).toISOString()} (429): the company's daily API budget is spent`, { resetAt }, { status });
    }
    return new PipedriveErrors.RateLimitError(`Pipedrive's 2-second rate window is spent (429 to ${what}${words})`, { resetAt: Math.max(resetAt, now + 100) }, { status });
  }
  if (status >= 500) return new PipedriveErrors.TransientError(`Pipedrive answered ${status} to ${what}`, { status });
  return new VerifyHubError(`Pipedrive answered ${status} to ${what}${words}`, { status });
}

/** The day's allowance was already spent when a call was about to go: refused here, no call made. */
export function dailyQuotaError(what: string, window: RateWindow): Error {
  return new PipedriveErrors.QuotaError(`Pipedrive's daily API allowance of this company is spent (before ${what}); it comes back at 00:00 UTC`, { resetAt: window.dailyResetAt ?? nextUtcMidnight(Date.now()) });
}
