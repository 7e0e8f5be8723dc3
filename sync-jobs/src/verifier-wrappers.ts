import { EngineAuthError, EngineQuotaError, EngineRateLimitError, type CallLimiter, type Verifier } from '@verify-hub/core';
import { syncMetrics } from './metrics';

/** The engine verifier as the pipeline calls it: under the shared limiter, timed, errors counted by kind. */
export function limitedVerifier(verifier: Verifier, limiter: CallLimiter): Verifier {
  return {
    verify: (email, options) =>
      limiter.schedule(async () => {
        const end = syncMetrics.engineLatency.startTimer();
        try {
          return await verifier.verify(email, options);
        } catch (error) {
          syncMetrics.errors.inc({ kind: engineErrorKind(error) });
          throw error;
        } finally {
          end();
        }
      }),
  };
}

export function engineErrorKind(error: unknown): string {
  if (error instanceof EngineQuotaError) return 'engine_quota';
  if (error instanceof EngineRateLimitError) return 'engine_rate_limit';
  if (error instanceof EngineAuthError) return 'engine_auth';
  return 'engine_other';
}
