import { HOOK_SIGNATURE_TOLERANCE_SECONDS, signHookPayload, verifyHookSignature } from '@verify-hub/core';

describe('completion-hook signature (core: signed by the hub, checked by the Zapier app)', () => {
  const secret = 'whsec-test-0123456789';
  const body = '{"id":"d1","event":"run.completed","run":{"id":"r1"}}';
  const now = Date.UTC(2026, 0, 2, 3, 4, 5);
  const t = Math.floor(now / 1000);

  it('writes t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> and accepts its own signature, string or bytes', () => {
    const header = signHookPayload(secret, body, t);
    expect(header).toMatch(new RegExp(`^t=${t},v1=[a-f0-9]{64}$`));
    expect(verifyHookSignature(secret, header, body, { now })).toBe(true);
    expect(verifyHookSignature(secret, header, Buffer.from(body), { now })).toBe(true);
  });

  it('refuses another body, another secret, a missing or malformed header', () => {
    const header = signHookPayload(secret, body, t);
    expect(verifyHookSignature(secret, header, body.replace('r1', 'r2'), { now })).toBe(false);
    expect(verifyHookSignature('another-secret', header, body, { now })).toBe(false);
    expect(verifyHookSignature(secret, undefined, body, { now })).toBe(false);
    expect(verifyHookSignature(secret, `t=${t},v1=abc`, body, { now })).toBe(false);
    expect(verifyHookSignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), body, { now })).toBe(false);
  });

  it('has one replay window of five minutes either way', () => {
    expect(HOOK_SIGNATURE_TOLERANCE_SECONDS).toBe(300);
    const signedAt = (offset: number) => signHookPayload(secret, body, t + offset);
    expect(verifyHookSignature(secret, signedAt(-300), body, { now })).toBe(true);
    expect(verifyHookSignature(secret, signedAt(300), body, { now })).toBe(true);
    expect(verifyHookSignature(secret, signedAt(-301), body, { now })).toBe(false);
    expect(verifyHookSignature(secret, signedAt(301), body, { now })).toBe(false);
  });
});
