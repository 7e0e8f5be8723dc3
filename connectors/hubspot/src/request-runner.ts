import { backoffDelay, logPlatformFailure, sleep as defaultSleep, VerifyHubError, type CallLimiter, type Logger } from '@verify-hub/core';
import { loggedAttempt } from './call-log';
import { HubSpotApiError, HubSpotAuthError, HubSpotRateLimitError, HubSpotUnreachableError, hubspotNetworkError } from './errors';

export type CallKind = 'default' | 'search';

export interface RunnerOptions {
  /** The portal's 10-second window, shared by every worker. */
  limiter: CallLimiter;
  /** Search's own per-second limit (search calls also count in the 10-second window). */
  searchLimiter: CallLimiter;
  /** Runs before each attempt: refreshes an expiring OAuth token, stops at the daily reserve. */
  beforeAttempt?: () => Promise<void>;
  /** A 401 happened: refresh the token if that can help (true), once per call. */
  onUnauthorized?: () => Promise<boolean>;
  /** Attempts for server errors, network failures and retryable per-record errors. */
  maxAttempts?: number;
  /** Waits for a full rate window before the rate limit is handed to the caller (the pipeline waits longer). */
  maxRateWaits?: number;
  backoff?: { baseMs: number; maxMs: number };
  sleep?: (ms: number) => Promise<void>;
  /** The connection's logger: a debug line per request, a warn line per call that failed for good. */
  logger?: Logger;
}

type Decision = { kind: 'wait'; ms: number } | { kind: 'backoff' } | { kind: 'refresh' } | { kind: 'stop' };

/** The one retry policy of the connector: which failures are worth another attempt, and how. */
export function retryDecision(error: unknown, now = Date.now()): Decision {
  if (error instanceof HubSpotRateLimitError) return { kind: 'wait', ms: error.waitMs(now) };
  if (error instanceof HubSpotAuthError) return error.status === 401 ? { kind: 'refresh' } : { kind: 'stop' };
  if (error instanceof HubSpotUnreachableError) return { kind: 'backoff' };
  if (error instanceof HubSpotApiError) return error.retryable ? { kind: 'backoff' } : { kind: 'stop' };
  if (error instanceof VerifyHubError) return { kind: 'stop' };
  // Anything else comes from fetch: connection refused or reset, DNS, socket timeout.
  return { kind: 'backoff' };
}

/**
 * Every HubSpot call of a connection goes through `run`: it takes a slot in the shared limiters, and
 * retries by `retryDecision` (rate windows waited out, server trouble backed off, a 401 answered with
 * one token refresh). Each attempt takes a new limiter slot, since each attempt is a request.
 */
export class RequestRunner {
  private readonly maxAttempts: number;
  private readonly maxRateWaits: number;
  private readonly backoff: { baseMs: number; maxMs: number };
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RunnerOptions) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.maxRateWaits = options.maxRateWaits ?? 12;
    this.backoff = options.backoff ?? { baseMs: 500, maxMs: 15_000 };
    this.sleep = options.sleep ?? ((ms) => defaultSleep(ms));
  }

  /**
   * `retry: false` for a contact write: one attempt (a 401 still refreshes the token once), its
   * failure thrown as it is, since the pipeline's write layer is the one place a write is tried again.
   */
  async run<T>(kind: CallKind, call: () => Promise<T>, retry = true): Promise<T> {
    let failures = 0;
    let rateWaits = 0;
    let refreshed = false;
    for (;;) {
      try {
        await this.options.beforeAttempt?.();
        return await this.schedule(kind, call);
      } catch (caught) {
        // A network failure becomes HubSpotUnreachableError here, so what outlives the retries says what to check.
        const error = hubspotNetworkError(caught);
        const decision = retryDecision(error);
        if (decision.kind === 'wait' && retry && rateWaits < this.maxRateWaits) {
          rateWaits++;
          await this.sleep(decision.ms);
          continue;
        }
        if (decision.kind === 'refresh' && !refreshed && this.options.onUnauthorized) {
          refreshed = true;
          if (await this.options.onUnauthorized()) continue;
        }
        if (decision.kind === 'backoff' && retry && ++failures < this.maxAttempts) {
          await this.sleep(backoffDelay(failures - 1, this.backoff));
          continue;
        }
        logPlatformFailure(this.options.logger, error, 'HubSpot call');
        throw error;
      }
    }
  }

  private schedule<T>(kind: CallKind, call: () => Promise<T>): Promise<T> {
    const attempt = () => loggedAttempt(this.options.logger, call);
    if (kind === 'search') return this.options.searchLimiter.schedule(() => this.options.limiter.schedule(attempt));
    return this.options.limiter.schedule(attempt);
  }
}
