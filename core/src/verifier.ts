import type { Verification } from './verification';

export interface VerifyOptions {
  signal?: AbortSignal;
  /**
   * Names this purchase, so that asking again for the same address under the same key is answered
   * without a second charge: sent as the `Idempotency-Key` header (a verify-hub extension of the
   * engine API, honoured by the local and self-hosted engine; engines that ignore it still answer).
   * A worker killed while its request was in flight leaves the answer with the engine; the replay
   * collects it instead of buying the address again.
   */
  idempotencyKey?: string;
}

/**
 * Anything that verifies one address: the HTTP `EngineClient`, or the in-process local engine.
 * Implementations throw `EngineAuthError`, `EngineRateLimitError` or `EngineQuotaError`; any other
 * failure ends as an `unknown`, not-billable result, so no address is ever lost to an exception.
 */
export interface Verifier {
  verify(email: string, options?: VerifyOptions): Promise<Verification>;
}

/** Answers marked by `markCollected`: a mark on the object, not a field of the result (it is not part of the verdict). */
const collected = new WeakSet<Verification>();

/**
 * Marks an answer the engine gave again under an Idempotency-Key it had answered and billed before
 * (`Idempotent-Replayed: true`): its purchase is the first request's, made once. Whoever counts
 * purchases counts it only if that first one was not counted (a worker killed with it in flight).
 */
export function markCollected(v: Verification): Verification {
  collected.add(v);
  return v;
}

/** Whether `v` was collected again under its Idempotency-Key (see markCollected). */
export function isCollected(v: Verification): boolean {
  return collected.has(v);
}
