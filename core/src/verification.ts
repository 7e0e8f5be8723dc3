import { z } from 'zod';
import { RISKS } from './result-wire';

export const RiskSchema = z.enum(RISKS);

/**
 * verify-hub's own values for the answer's open string vocabularies (ENGINE-API.md publishes only one
 * example of each). An engine may send others: they are kept as they came, never a reason to refuse.
 */
export const SPAM_TRAP_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export type SpamTrapRisk = (typeof SPAM_TRAP_LEVELS)[number];
/** The outcome of the SMTP conversation (`smtp_check` on the wire). */
export const SMTP_CHECK_OUTCOMES = [
  'deliverable', 'undeliverable', 'catch_all', 'mailbox_full', 'greylisted', 'temporary_failure', 'blocked', 'timeout', 'unreachable', 'ambiguous', 'not_checked',
] as const;
export type SmtpCheckOutcome = (typeof SMTP_CHECK_OUTCOMES)[number];
/** SPF: the qualifier of the record's `all` (`-all` strict, `~all` soft, `?all` or none neutral, `+all` open), or no record. */
export const SPF_VALUES = ['strict', 'soft', 'neutral', 'open', 'missing'] as const;
export const DKIM_VALUES = ['found', 'missing'] as const;
/** DMARC: the published policy (`p=`), or no record. */
export const DMARC_VALUES = ['reject', 'quarantine', 'none', 'missing'] as const;

const flag = z.boolean().nullable();
/** An open vocabulary: one of ours, or whatever the engine sent. */
const openValue = z.string().min(1).nullable();

/**
 * The individual checks behind a result. `null` means "not determined": the check was not made or not
 * reported (no SMTP conversation is never "the server refused the mailbox"). Engines may add more checks,
 * which are kept as they come.
 */
export const ChecksSchema = z.looseObject({
  syntax: flag,
  mx: flag,
  /** The mailbox was accepted (true) or refused (false) over SMTP; null when no conversation decided it. */
  smtp: flag,
  /** The SMTP outcome, in SMTP_CHECK_OUTCOMES or as the engine sent it. */
  smtpCheck: openValue,
  disposable: flag,
  roleAccount: flag,
  catchAll: flag,
  catchAllConfidence: z.number().min(0).max(1).optional(),
  freeProvider: flag,
  /** In SPAM_TRAP_LEVELS or as the engine sent it. */
  spamTrapRisk: openValue,
});
export type Checks = z.infer<typeof ChecksSchema>;

export const DeliverabilitySchema = z.object({
  grade: openValue,
  score: z.number().min(0).max(100).nullable(),
  authentication: z.object({ spf: openValue, dkim: openValue, dmarc: openValue }),
  blacklist: z.object({
    listed: flag,
    listedCount: z.number().int().min(0).nullable(),
    totalChecks: z.number().int().min(0).nullable(),
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
export function undeterminedChecks(syntax: boolean | null): Checks {
  return {
    syntax,
    mx: null,
    smtp: null,
    smtpCheck: null,
    disposable: null,
    roleAccount: null,
    catchAll: null,
    freeProvider: null,
    spamTrapRisk: null,
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
    checks: undeterminedChecks(null),
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

/**
 * Reads a result stored by an earlier verify-hub (in the Redis cache): before the wire module, checks had
 * no `smtpCheck` and authentication results were booleans. Reading them keeps a result already paid for
 * from being bought again; what the old shape cannot say (an SPF or DMARC policy) becomes null.
 */
export function parseStoredVerification(value: unknown): Verification | undefined {
  const direct = VerificationSchema.safeParse(value);
  if (direct.success) return direct.data;
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown> & { checks?: Record<string, unknown>; deliverability?: { authentication?: Record<string, unknown> } };
  const checks = v.checks && { smtpCheck: null, ...v.checks };
  const auth = v.deliverability?.authentication;
  const legacy = (key: string, yes: string | null) => (typeof auth?.[key] === 'boolean' ? (auth[key] ? yes : 'missing') : auth?.[key]);
  const deliverability = auth && { ...v.deliverability, authentication: { spf: legacy('spf', null), dkim: legacy('dkim', 'found'), dmarc: legacy('dmarc', null) } };
  const upgraded = VerificationSchema.safeParse({ ...v, checks, ...(deliverability ? { deliverability } : {}) });
  return upgraded.success ? upgraded.data : undefined;
}
