import { EngineQuotaError, EngineRateLimitError, sleep, type Verification, type Verifier, type VerifyOptions } from '@verify-hub/core';

/** A reset already in the past (clock skew) still waits this long, so a retry loop cannot spin. */
const MIN_WAIT_MS = 500;

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: Clock = { now: () => Date.now(), sleep };

/**
 * The node's one place for engine 429s (rate, not quota): every caller waits until `X-RateLimit-Reset`
 * and tries again, all behind one gate, while the time spent waiting stays within `budgetMs` for the
 * whole execution. Past the budget the rate-limit error goes on to the BatchVerifier, which stops.
 */
export class RateLimitWaiter implements Verifier {
  private waitedMs = 0;
  private openAt = 0;

  constructor(private readonly inner: Verifier, private readonly budgetMs: number, private readonly clock: Clock = realClock) {}

  /** Total time spent waiting for rate-limit resets so far. */
  get totalWaitedMs(): number {
    return this.waitedMs;
  }

  async verify(email: string, options: VerifyOptions = {}): Promise<Verification> {
    for (;;) {
      const wait = this.openAt - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait, options.signal);
      const outcome = await this.inner.verify(email, options).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ('result' in outcome) return outcome.result;
      // Core's typed errors pass through as they are: the BatchVerifier acts on them, and the node turns
      // what stops the batch into a NodeApiError in one place (stopToNodeError).
      const { error } = outcome;
      if (!(error instanceof EngineRateLimitError) || error instanceof EngineQuotaError) throw error;
      const now = this.clock.now();
      const until = Math.max(error.resetAt, now + MIN_WAIT_MS);
      const extra = until - Math.max(now, this.openAt);
      if (extra <= 0) continue;
      if (this.waitedMs + extra > this.budgetMs) {
        // Keep a reset in the future, so whoever gets this error does not retry at once.
        throw new EngineRateLimitError(
          `engine rate limit: waited ${Math.round(this.waitedMs / 1000)} s in total, and the next reset (${new Date(until).toISOString()}) is beyond the allowed wait`,
          { resetAt: until, limit: error.limit, remaining: error.remaining },
          { status: 429, requestId: error.requestId },
        );
      }
      this.waitedMs += extra;
      this.openAt = until;
    }
  }
}
