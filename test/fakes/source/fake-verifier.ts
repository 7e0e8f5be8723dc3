import { toVerification, EngineResponseSchema, normalizeEmail, syntaxInvalidVerification, type Verification, type Verifier } from '@verify-hub/core';
import { resultBody } from '../engine/fake-engine';

/**
 * The fake engine's answers without HTTP, for benches that measure the pipeline rather than the
 * network (a million contacts): same rules (invalid.*, risky.*, unknown.*, else safe), optional latency.
 */
export class InProcessFakeVerifier implements Verifier {
  calls = 0;
  constructor(private readonly latencyMs = 0) {}
  async verify(email: string): Promise<Verification> {
    this.calls++;
    const n = normalizeEmail(email);
    if (!n.ok) return syntaxInvalidVerification(email);
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const local = n.localPart.toLowerCase();
    const risk = (['invalid', 'risky', 'unknown'] as const).find((r) => local.startsWith(r)) ?? 'safe';
    return toVerification(EngineResponseSchema.parse(resultBody(n.normalized, { kind: 'result', risk }, 'B')), email, n.normalized);
  }
}
