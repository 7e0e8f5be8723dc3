import { VerificationSchema, type Verification } from '@verify-hub/core';

/** One risky catch-all result with every kind of value (a rounded score, an undetermined flag), for write-back mappings. */
export const riskyCatchAll = (over: Partial<Verification> = {}): Verification =>
  VerificationSchema.parse({
    email: 'ann@example.com',
    normalized: 'ann@example.com',
    score: 87.4,
    risk: 'risky',
    reason: 'catch_all',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'catch_all', disposable: false, roleAccount: true, catchAll: null, freeProvider: false, spamTrapRisk: 'low' },
    checkedAt: '2026-11-20T08:30:00.000Z',
    billable: true,
    ...over,
  });
