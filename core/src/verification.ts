import { z } from 'zod';

/** The four risks every part of the hub speaks. `unknown` is never billed and never written as `invalid`. */
export const RISKS = ['safe', 'risky', 'invalid', 'unknown'] as const;
export const RiskSchema = z.enum(RISKS);
export type Risk = z.infer<typeof RiskSchema>;

export const SPAM_TRAP_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export const SpamTrapRiskSchema = z.enum(SPAM_TRAP_LEVELS);
export type SpamTrapRisk = z.infer<typeof SpamTrapRiskSchema>;

/**
 * The individual checks behind a result. `null` means "not determined" (for example no SMTP
 * conversation took place); engines may add more checks, which are kept as they come.
 */
export const ChecksSchema = z.looseObject({
  syntax: z.boolean(),
  mx: z.boolean().nullable(),
  smtp: z.boolean().nullable(),
  disposable: z.boolean(),
  roleAccount: z.boolean(),
  catchAll: z.boolean().nullable(),
  catchAllConfidence: z.number().min(0).max(1).optional(),
  freeProvider: z.boolean(),
  spamTrapRisk: SpamTrapRiskSchema,
});
export type Checks = z.infer<typeof ChecksSchema>;

export const DeliverabilitySchema = z.object({
  grade: z.string(),
  score: z.number().min(0).max(100),
  authentication: z.object({
    spf: z.boolean().nullable(),
    dkim: z.boolean().nullable(),
    dmarc: z.boolean().nullable(),
  }),
  blacklist: z.object({
    listed: z.boolean(),
    listedCount: z.number().int().min(0),
    totalChecks: z.number().int().min(0),
  }),
});
export type Deliverability = z.infer<typeof DeliverabilitySchema>;

/** Stable snake_case reason codes, for example `deliverable`, `mailbox_not_found`, `no_mx`, `disposable`. */
export const ReasonSchema = z.string().regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, 'reason must be a snake_case code');

/** The canonical verification result (DESIGN.md §2). The TypeScript type is inferred from this schema. */
export const VerificationSchema = z.object({
  email: z.string(),
  normalized: z.string(),
  score: z.number().min(0).max(100),
  risk: RiskSchema,
  reason: ReasonSchema,
  checks: ChecksSchema,
  deliverability: DeliverabilitySchema.optional(),
  checkedAt: z.iso.datetime({ offset: true }),
  billable: z.boolean(),
});
export type Verification = z.infer<typeof VerificationSchema>;

/** Checks for an address that was never looked at by an engine (rejected locally, or the engine failed). */
export function undeterminedChecks(syntax: boolean): Checks {
  return {
    syntax,
    mx: null,
    smtp: null,
    disposable: false,
    roleAccount: false,
    catchAll: null,
    freeProvider: false,
    spamTrapRisk: 'none',
  };
}

/**
 * An `unknown` result for an address the engine could not answer for (outage, timeout after the
 * retries). Never billed; the sync pipeline re-checks it later.
 */
export function unknownVerification(email: string, normalized: string, reason: string, now = new Date()): Verification {
  return {
    email,
    normalized,
    score: 0,
    risk: 'unknown',
    reason,
    checks: undeterminedChecks(true),
    checkedAt: now.toISOString(),
    billable: false,
  };
}

/**
 * The result for an address rejected locally before any engine call (empty, no @, over the length
 * limits): invalid with reason `syntax`, and not billable since no credit was spent.
 */
export function syntaxInvalidVerification(email: string, now = new Date()): Verification {
  return {
    email,
    normalized: typeof email === 'string' ? email.trim() : '',
    score: 0,
    risk: 'invalid',
    reason: 'syntax',
    checks: undeterminedChecks(false),
    checkedAt: now.toISOString(),
    billable: false,
  };
}
