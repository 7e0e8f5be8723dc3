import { readEngineAnswer, normalizeEmail, syntaxInvalidVerification, type Verification, type Verifier } from '@verify-hub/core';
import { defaultBehaviour, resultBody, type FieldSet } from '../engine/fake-engine';

/**
 * The fake engine's answers without HTTP, for benches that measure the pipeline rather than the
 * network (a million contacts): same rules (invalid.*, risky.*, unknown.*, disposable.*, notchecked.*,
 * else safe), read by core's one wire reading, optional latency.
 */
export class InProcessFakeVerifier implements Verifier {
  calls = 0;
  constructor(private readonly latencyMs = 0, private readonly fieldSet: FieldSet = 'B') {}
  async verify(email: string): Promise<Verification> {
    this.calls++;
    const n = normalizeEmail(email);
    if (!n.ok) return syntaxInvalidVerification(email);
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const reading = readEngineAnswer(resultBody(n.normalized, defaultBehaviour(n.normalized), this.fieldSet), email, n.normalized);
    if (!reading.ok) throw new Error(`fake verifier: ${reading.problem}`);
    return reading.verification;
  }
}
