import type { Verification } from './verification';

export interface VerifyOptions {
  signal?: AbortSignal;
}

/**
 * Anything that verifies one address: the HTTP `EngineClient`, or the in-process local engine.
 * Implementations throw `EngineAuthError`, `EngineRateLimitError` or `EngineQuotaError`; any other
 * failure ends as an `unknown`, not-billable result, so no address is ever lost to an exception.
 */
export interface Verifier {
  verify(email: string, options?: VerifyOptions): Promise<Verification>;
}
