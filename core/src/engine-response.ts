import { z } from 'zod';
import { RiskSchema, SpamTrapRiskSchema, type Checks, type Risk, type SpamTrapRisk, type Verification, VerificationSchema } from './verification';

/**
 * The engine's 200 answer comes with field set B (canonical: score, risk, reason, checks), field set A
 * (older flat booleans: valid, deliverable, smtp_valid, ...), or both. Both are validated here and
 * normalised by the rules in `toVerification`, documented in core/README.md.
 */
const nullableBool = z.boolean().nullable().optional();

export const WireChecksSchema = z.looseObject({
  syntax: nullableBool,
  mx: nullableBool,
  smtp: nullableBool,
  disposable: nullableBool,
  role_account: nullableBool,
  catch_all: nullableBool,
  catch_all_confidence: z.number().min(0).max(1).nullable().optional(),
  free_provider: nullableBool,
  spam_trap_risk: SpamTrapRiskSchema.nullable().optional(),
});

export const WireDeliverabilitySchema = z.object({
  grade: z.string(),
  score: z.number().min(0).max(100),
  authentication: z.object({ spf: z.boolean().nullable(), dkim: z.boolean().nullable(), dmarc: z.boolean().nullable() }),
  blacklist: z.object({ listed: z.boolean(), listed_count: z.number().int().min(0), total_checks: z.number().int().min(0) }),
});

export const EngineResponseSchema = z
  .looseObject({
    email: z.string().optional(),
    normalized: z.string().optional(),
    // field set B
    score: z.number().min(0).max(100).optional(),
    risk: RiskSchema.optional(),
    reason: z.string().optional(),
    checks: WireChecksSchema.optional(),
    deliverability: WireDeliverabilitySchema.optional(),
    checked_at: z.string().optional(),
    billable: z.boolean().optional(),
    // field set A
    valid: nullableBool,
    deliverable: nullableBool,
    smtp_valid: nullableBool,
    mx_found: nullableBool,
    disposable: nullableBool,
    role_account: nullableBool,
    catch_all: nullableBool,
    free_provider: nullableBool,
    spam_trap: nullableBool,
  })
  .refine((r) => r.risk !== undefined || r.valid !== undefined || r.deliverable !== undefined, {
    message: 'neither field set B (risk) nor field set A (valid/deliverable) is present',
  });
export type EngineResponse = z.infer<typeof EngineResponseSchema>;

/** Scores used when only field set A is present (it carries no score). */
export const FIELD_SET_A_SCORES: Record<Risk, number> = { safe: 90, risky: 55, invalid: 5, unknown: 0 };

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function firstDefined<T>(...values: (T | null | undefined)[]): T | null {
  for (const v of values) if (v !== undefined && v !== null) return v;
  return null;
}

function spamTrapLevel(r: EngineResponse): SpamTrapRisk {
  if (r.checks?.spam_trap_risk) return r.checks.spam_trap_risk;
  // Field set A has only a boolean: a suspected trap is treated as high risk.
  return r.spam_trap ? 'high' : 'none';
}

/** Field set A's verdict, when field set B gives no risk. */
function riskFromFieldSetA(r: EngineResponse, checks: Checks): { risk: Risk; reason: string } {
  if (r.valid === false) return { risk: 'invalid', reason: checks.mx === false ? 'no_mx' : 'syntax' };
  if (r.mx_found === false) return { risk: 'invalid', reason: 'no_mx' };
  if (r.deliverable === false || r.smtp_valid === false) return { risk: 'invalid', reason: 'mailbox_not_found' };
  if (checks.disposable) return { risk: 'risky', reason: 'disposable' };
  if (checks.spamTrapRisk === 'high') return { risk: 'risky', reason: 'spam_trap' };
  if (checks.catchAll) return { risk: 'risky', reason: 'catch_all' };
  if (checks.roleAccount) return { risk: 'risky', reason: 'role_account' };
  if (r.deliverable === true) return { risk: 'safe', reason: 'deliverable' };
  return { risk: 'unknown', reason: 'unknown' };
}

function defaultReason(risk: Risk): string {
  return { safe: 'deliverable', risky: 'risky', invalid: 'undeliverable', unknown: 'unknown' }[risk];
}

/**
 * Maps a validated engine answer onto the canonical `Verification`.
 * - B wins over A wherever both speak; A's flat booleans fill checks that B's `checks` leaves out.
 * - Without a B risk: valid=false -> invalid (syntax, or no_mx); mx_found=false -> invalid (no_mx);
 *   deliverable=false or smtp_valid=false -> invalid (mailbox_not_found); a disposable, high spam-trap,
 *   catch-all or role flag -> risky; deliverable=true otherwise -> safe; anything else -> unknown.
 * - Without a score: the FIELD_SET_A_SCORES of the risk.
 * - `unknown` is never billable, whatever the engine says; otherwise billable unless the engine says not.
 */
export function toVerification(raw: EngineResponse, email: string, normalized: string, now = new Date()): Verification {
  const c = raw.checks ?? {};
  const extras: Record<string, unknown> = {};
  const known = new Set(['syntax', 'mx', 'smtp', 'disposable', 'role_account', 'catch_all', 'catch_all_confidence', 'free_provider', 'spam_trap_risk']);
  for (const [key, value] of Object.entries(c)) {
    if (!known.has(key) && value !== undefined) extras[camelCase(key)] = value;
  }
  const checks: Checks = {
    ...extras,
    syntax: firstDefined(c.syntax, raw.valid === false && raw.mx_found !== false ? false : undefined) ?? true,
    mx: firstDefined(c.mx, raw.mx_found),
    smtp: firstDefined(c.smtp, raw.smtp_valid, raw.deliverable),
    disposable: firstDefined(c.disposable, raw.disposable) ?? false,
    roleAccount: firstDefined(c.role_account, raw.role_account) ?? false,
    catchAll: firstDefined(c.catch_all, raw.catch_all),
    freeProvider: firstDefined(c.free_provider, raw.free_provider) ?? false,
    spamTrapRisk: 'none',
  };
  checks.spamTrapRisk = spamTrapLevel(raw);
  if (typeof c.catch_all_confidence === 'number') checks.catchAllConfidence = c.catch_all_confidence;

  const fromA = raw.risk === undefined ? riskFromFieldSetA(raw, checks) : undefined;
  const risk: Risk = raw.risk ?? fromA!.risk;
  const reason = raw.reason ?? fromA?.reason ?? defaultReason(risk);
  const checkedAt = raw.checked_at && !Number.isNaN(Date.parse(raw.checked_at)) ? new Date(raw.checked_at).toISOString() : now.toISOString();
  const d = raw.deliverability;

  return VerificationSchema.parse({
    email,
    normalized,
    score: raw.score ?? FIELD_SET_A_SCORES[risk],
    risk,
    reason: normalizeReason(reason),
    checks,
    deliverability: d && {
      grade: d.grade,
      score: d.score,
      authentication: d.authentication,
      blacklist: { listed: d.blacklist.listed, listedCount: d.blacklist.listed_count, totalChecks: d.blacklist.total_checks },
    },
    checkedAt,
    billable: risk !== 'unknown' && raw.billable !== false,
  });
}

/** Engines sometimes send `Mailbox Not Found` or `mailbox-not-found`: fold to snake_case. */
function normalizeReason(reason: string): string {
  const folded = reason.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return folded === '' ? 'unknown' : folded;
}

/** The reverse mapping, used by engines that serve this API (field set B, plus field set A's booleans). */
export function toWireResponse(v: Verification): Record<string, unknown> {
  const { syntax, mx, smtp, disposable, roleAccount, catchAll, catchAllConfidence, freeProvider, spamTrapRisk, ...extras } = v.checks;
  const snake = (k: string) => k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
  const extraChecks = Object.fromEntries(Object.entries(extras).map(([k, val]) => [snake(k), val]));
  return {
    email: v.email,
    normalized: v.normalized,
    score: v.score,
    risk: v.risk,
    reason: v.reason,
    checks: {
      ...extraChecks,
      syntax,
      mx,
      smtp,
      disposable,
      role_account: roleAccount,
      catch_all: catchAll,
      ...(catchAllConfidence === undefined ? {} : { catch_all_confidence: catchAllConfidence }),
      free_provider: freeProvider,
      spam_trap_risk: spamTrapRisk,
    },
    ...(v.deliverability
      ? {
          deliverability: {
            grade: v.deliverability.grade,
            score: v.deliverability.score,
            authentication: v.deliverability.authentication,
            blacklist: {
              listed: v.deliverability.blacklist.listed,
              listed_count: v.deliverability.blacklist.listedCount,
              total_checks: v.deliverability.blacklist.totalChecks,
            },
          },
        }
      : {}),
    checked_at: v.checkedAt,
    billable: v.billable,
    // field set A, for older clients
    valid: v.checks.syntax && v.checks.mx !== false,
    deliverable: v.risk === 'invalid' ? false : v.risk === 'unknown' ? null : v.checks.smtp ?? (v.risk === 'safe' ? true : null),
    smtp_valid: smtp,
    mx_found: mx,
    disposable,
    role_account: roleAccount,
    catch_all: catchAll,
    free_provider: freeProvider,
    spam_trap: spamTrapRisk === 'high' || spamTrapRisk === 'medium',
  };
}
