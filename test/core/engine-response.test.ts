import { EngineResponseSchema, FIELD_SET_A_SCORES, toVerification, toWireResponse, VerificationSchema } from '@verify-hub/core';

const map = (body: unknown) => toVerification(EngineResponseSchema.parse(body), 'Ann@Example.com', 'Ann@example.com', new Date('2026-11-21T10:00:00Z'));

describe('field set B', () => {
  it('maps risk, score, reason and snake_case checks to the canonical result', () => {
    const v = map({
      email: 'Ann@example.com',
      score: 81,
      risk: 'risky',
      reason: 'catch_all',
      checks: { syntax: true, mx: true, smtp: true, disposable: false, role_account: true, catch_all: true, catch_all_confidence: 0.8, free_provider: false, spam_trap_risk: 'low', typo_suggestion: null, provider: 'google' },
      deliverability: { grade: 'B', score: 77, authentication: { spf: true, dkim: null, dmarc: false }, blacklist: { listed: true, listed_count: 2, total_checks: 10 } },
      checked_at: '2026-11-20T08:00:00Z',
    });
    expect(VerificationSchema.parse(v)).toEqual(v);
    expect(v).toMatchObject({ email: 'Ann@Example.com', normalized: 'Ann@example.com', score: 81, risk: 'risky', reason: 'catch_all', billable: true, checkedAt: '2026-11-20T08:00:00.000Z' });
    expect(v.checks).toMatchObject({ roleAccount: true, catchAll: true, catchAllConfidence: 0.8, spamTrapRisk: 'low', typoSuggestion: null, provider: 'google' });
    expect(v.deliverability?.blacklist).toEqual({ listed: true, listedCount: 2, totalChecks: 10 });
  });
  it('never bills an unknown, even if the engine says billable', () => {
    expect(map({ score: 0, risk: 'unknown', billable: true }).billable).toBe(false);
  });
  it('honours billable=false from the engine', () => {
    expect(map({ score: 90, risk: 'safe', billable: false }).billable).toBe(false);
  });
  it('folds a reason to snake_case', () => {
    expect(map({ score: 5, risk: 'invalid', reason: 'Mailbox Not-Found' }).reason).toBe('mailbox_not_found');
  });
});

describe('field set A (no risk given)', () => {
  it.each([
    [{ valid: false }, 'invalid', 'syntax'],
    [{ valid: false, mx_found: false }, 'invalid', 'no_mx'],
    [{ valid: true, mx_found: false }, 'invalid', 'no_mx'],
    [{ valid: true, deliverable: false }, 'invalid', 'mailbox_not_found'],
    [{ valid: true, smtp_valid: false }, 'invalid', 'mailbox_not_found'],
    [{ valid: true, deliverable: true, disposable: true }, 'risky', 'disposable'],
    [{ valid: true, deliverable: true, role_account: true }, 'risky', 'role_account'],
    [{ valid: true, deliverable: true, catch_all: true }, 'risky', 'catch_all'],
    [{ valid: true, deliverable: true, spam_trap: true }, 'risky', 'spam_trap'],
    [{ valid: true, deliverable: true }, 'safe', 'deliverable'],
    [{ valid: true, deliverable: null }, 'unknown', 'unknown'],
  ] as const)('%j -> %s (%s)', (body, risk, reason) => {
    const v = map(body);
    expect(v.risk).toBe(risk);
    expect(v.reason).toBe(reason);
    expect(v.score).toBe(FIELD_SET_A_SCORES[risk]);
    expect(v.billable).toBe(risk !== 'unknown');
  });
  it('fills checks from the flat booleans', () => {
    const v = map({ valid: true, deliverable: true, smtp_valid: true, mx_found: true, free_provider: true });
    expect(v.checks).toMatchObject({ syntax: true, mx: true, smtp: true, freeProvider: true, disposable: false, catchAll: null, spamTrapRisk: 'none' });
  });
});

describe('both field sets', () => {
  it('B wins where both speak; A fills the checks B leaves out', () => {
    const v = map({ risk: 'safe', score: 97, valid: false, deliverable: false, disposable: true, checks: { disposable: false } });
    expect(v.risk).toBe('safe');
    expect(v.score).toBe(97);
    expect(v.checks.disposable).toBe(false);
    expect(v.checks.smtp).toBe(false);
  });
});

describe('bad answers', () => {
  it.each([
    [{}, ''],
    [{ score: 50 }, ''],
    [{ risk: 'excellent', score: 50 }, 'risk'],
    [{ risk: 'safe', score: 150 }, 'score'],
    [{ valid: 'yes' }, 'valid'],
  ])('rejects %j', (body, field) => {
    const r = EngineResponseSchema.safeParse(body);
    expect(r.success).toBe(false);
    if (field) expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(field);
  });
});

describe('toWireResponse', () => {
  it('round-trips through toVerification', () => {
    const v = map({ score: 64, risk: 'risky', reason: 'role_account', checks: { syntax: true, mx: true, smtp: true, disposable: false, role_account: true, catch_all: false, free_provider: true, spam_trap_risk: 'none', gibberish: false } });
    const again = toVerification(EngineResponseSchema.parse(toWireResponse(v)), v.email, v.normalized);
    expect(again).toEqual(v);
  });
  it('keeps field set A consistent with the risk', () => {
    const wire = toWireResponse(map({ score: 2, risk: 'invalid', reason: 'mailbox_not_found', checks: { syntax: true, mx: true, smtp: false } }));
    expect(wire).toMatchObject({ valid: true, deliverable: false, smtp_valid: false, mx_found: true });
  });
});
