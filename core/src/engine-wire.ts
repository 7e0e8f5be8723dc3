import { z } from 'zod';
import {
  DKIM_VALUES,
  DMARC_VALUES,
  RiskSchema,
  SMTP_CHECK_OUTCOMES,
  SPAM_TRAP_LEVELS,
  SPF_VALUES,
  type Checks,
  type Deliverability,
  type Verification,
} from './verification';
import type { Risk } from './result-wire';

/**
 * The one reading and writing of the engine's verify answer (ENGINE-API.md §2.1, DESIGN.md §1).
 * Field names and types are the published ones, word for word; core/README.md has the mapping table.
 *
 * Reading is forgiving field by field: any field may be absent or null, a value outside the published
 * type is dropped with a warning naming the field, and the verdict survives. Only an answer with
 * neither field set B's `risk` nor field set A's `valid`/`deliverable` is refused.
 */

/** A problem with one field of an answer that was otherwise read. */
export interface WireWarning {
  field: string;
  problem: string;
}

export type WireReading =
  | { ok: true; verification: Verification; warnings: WireWarning[] }
  | { ok: false; problem: string; warnings: WireWarning[] };

/** Scores used when the answer carries none (field set A has no score). */
export const FIELD_SET_A_SCORES: Record<Risk, number> = { safe: 90, risky: 55, invalid: 5, unknown: 0 };

const bool = z.boolean();
const text = z.string().trim().min(1);
const count = z.number().int().min(0);
// Built once: schemas built per answer were the largest CPU cost of a 1,000,000-contact sync, and much of its garbage.
const objectBlock = z.record(z.string(), z.unknown());
const percent = z.number().min(0).max(100);
const anyText = z.string();

const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Values a schema would hand back unchanged, recognised without running it: nearly every field of
 * every answer. A safeParse per field (and a copy of each object block) was most of what reading an
 * answer allocated; anything these do not recognise still goes through its schema, which decides.
 */
const PASSES_UNCHANGED = new Map<z.ZodType, (v: unknown) => boolean>([
  [bool, (v) => typeof v === 'boolean'],
  [anyText, (v) => typeof v === 'string'],
  [text, (v) => typeof v === 'string' && v !== '' && v.trim() === v],
  [count, (v) => Number.isSafeInteger(v) && (v as number) >= 0],
  [percent, (v) => typeof v === 'number' && v >= 0 && v <= 100],
  [objectBlock, isPlainObject],
]);

/** Every top-level field this module reads, with the type it must have. */
const FIELDS = {
  // both sets
  email: anyText,
  score: percent,
  mx_found: bool,
  // field set B
  risk: z.string().trim().toLowerCase().pipe(RiskSchema),
  syntax_valid: bool,
  smtp_check: text,
  is_disposable: bool,
  is_role_account: bool,
  is_catch_all: bool,
  is_free_provider: bool,
  spam_trap_risk: text,
  deliverability: objectBlock,
  // field set A
  valid: bool,
  deliverable: bool,
  smtp_valid: bool,
  disposable: bool,
  role_based: bool,
  free_email: bool,
  // verify-hub's documented extension fields
  reason: anyText,
  normalized: anyText,
  catch_all_confidence: z.number().min(0).max(1),
  checked_at: z.iso.datetime({ offset: true }),
  billable: bool,
  did_you_mean: text,
} as const;
const FIELD_ENTRIES = Object.entries(FIELDS);
type Field = keyof typeof FIELDS;
type Read = { [K in Field]?: z.output<(typeof FIELDS)[K]> };

/** The canonical checks that a field of the answer fills; an unknown wire field never takes their place. */
const CANONICAL_CHECKS = new Set(['syntax', 'mx', 'smtp', 'smtpCheck', 'disposable', 'roleAccount', 'catchAll', 'catchAllConfidence', 'freeProvider', 'spamTrapRisk', 'typoSuggestion']);

/** Synonyms other engines use, folded onto verify-hub's vocabularies; any other value is kept as it came. */
const SYNONYMS: Record<'smtp_check' | 'spam_trap_risk' | 'spf' | 'dkim' | 'dmarc', Record<string, string>> = {
  smtp_check: {
    valid: 'deliverable', ok: 'deliverable', accepted: 'deliverable', passed: 'deliverable', pass: 'deliverable', exists: 'deliverable',
    invalid: 'undeliverable', rejected: 'undeliverable', failed: 'undeliverable', fail: 'undeliverable', mailbox_not_found: 'undeliverable', not_found: 'undeliverable',
    catchall: 'catch_all', accept_all: 'catch_all', full: 'mailbox_full', inbox_full: 'mailbox_full', greylist: 'greylisted', graylisted: 'greylisted',
    timed_out: 'timeout', skipped: 'not_checked', unchecked: 'not_checked', none: 'not_checked',
  },
  spam_trap_risk: { minimal: 'low', moderate: 'medium', severe: 'high', no: 'none' },
  spf: { hardfail: 'strict', fail: 'strict', softfail: 'soft', pass_all: 'open', none: 'missing', not_found: 'missing', absent: 'missing' },
  dkim: { present: 'found', pass: 'found', valid: 'found', none: 'missing', not_found: 'missing', absent: 'missing' },
  dmarc: { p_reject: 'reject', p_quarantine: 'quarantine', p_none: 'none', monitor: 'none', not_found: 'missing', absent: 'missing' },
};
const KNOWN: Record<keyof typeof SYNONYMS, readonly string[]> = {
  smtp_check: SMTP_CHECK_OUTCOMES,
  spam_trap_risk: SPAM_TRAP_LEVELS,
  spf: SPF_VALUES,
  dkim: DKIM_VALUES,
  dmarc: DMARC_VALUES,
};

/** One of verify-hub's values when the engine's means the same; otherwise the engine's value unchanged. */
export function foldVocabulary(kind: keyof typeof SYNONYMS, value: string): string {
  const key = value.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (KNOWN[kind].includes(key)) return key;
  return SYNONYMS[kind][key] ?? value;
}

/** What an SMTP outcome says about the mailbox: it exists (a full one too), it does not, or not decided. */
function mailboxAccepted(outcome: string | null): boolean | null {
  if (outcome === 'deliverable' || outcome === 'catch_all' || outcome === 'mailbox_full') return true;
  if (outcome === 'undeliverable') return false;
  return null;
}

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
}

function first<T>(...values: (T | undefined)[]): T | null {
  for (const v of values) if (v !== undefined) return v;
  return null;
}

/** Reads one field with its schema: absent and null are undefined; a value of the wrong type is a warning. */
function readField<S extends z.ZodType>(source: Record<string, unknown>, key: string, schema: S, path: string, warnings: WireWarning[]): z.output<S> | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (PASSES_UNCHANGED.get(schema)?.(value)) return value as z.output<S>;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  warnings.push({ field: path, problem: `${JSON.stringify(value)?.slice(0, 60)} is not ${describe(schema)}` });
  return undefined;
}

function describe(schema: z.ZodType): string {
  const type = schema instanceof z.ZodPipe ? 'one of safe, risky, invalid, unknown' : schema.def.type;
  return type === 'record' ? 'an object' : type === 'number' ? 'a number in range' : `a ${type}`;
}

function readDeliverability(block: Record<string, unknown>, warnings: WireWarning[]): Deliverability | undefined {
  const sub = (key: string) => {
    const value = readField(block, key, objectBlock, `deliverability.${key}`, warnings);
    return value ?? {};
  };
  const auth = sub('authentication');
  const blacklist = sub('blacklist');
  const vocab = (kind: 'spf' | 'dkim' | 'dmarc') => {
    const v = readField(auth, kind, text, `deliverability.authentication.${kind}`, warnings);
    return v === undefined ? null : foldVocabulary(kind, v);
  };
  const d: Deliverability = {
    grade: readField(block, 'grade', text, 'deliverability.grade', warnings) ?? null,
    score: readField(block, 'score', percent, 'deliverability.score', warnings) ?? null,
    authentication: { spf: vocab('spf'), dkim: vocab('dkim'), dmarc: vocab('dmarc') },
    blacklist: {
      listed: readField(blacklist, 'listed', bool, 'deliverability.blacklist.listed', warnings) ?? null,
      listedCount: readField(blacklist, 'listed_count', count, 'deliverability.blacklist.listed_count', warnings) ?? null,
      totalChecks: readField(blacklist, 'total_checks', count, 'deliverability.blacklist.total_checks', warnings) ?? null,
    },
  };
  const anything = d.grade !== null || d.score !== null || Object.values(d.authentication).some((v) => v !== null) || Object.values(d.blacklist).some((v) => v !== null);
  return anything ? d : undefined;
}

/** Field set A's verdict, when no usable field set B `risk` came. */
function riskFromFieldSetA(r: Read, checks: Checks): { risk: Risk; reason: string } {
  if (r.valid === false) return { risk: 'invalid', reason: r.syntax_valid === false ? 'syntax' : r.mx_found === false ? 'no_mx' : 'undeliverable' };
  if (r.mx_found === false) return { risk: 'invalid', reason: 'no_mx' };
  if (r.deliverable === false || checks.smtp === false) return { risk: 'invalid', reason: 'mailbox_not_found' };
  if (checks.disposable) return { risk: 'risky', reason: 'disposable' };
  if (checks.spamTrapRisk === 'high') return { risk: 'risky', reason: 'spam_trap' };
  if (checks.catchAll) return { risk: 'risky', reason: 'catch_all' };
  if (checks.roleAccount) return { risk: 'risky', reason: 'role_account' };
  if (r.deliverable === true) return { risk: 'safe', reason: 'deliverable' };
  return { risk: 'unknown', reason: 'unknown' };
}

/**
 * The reason code when the answer sends none (field set B has no reason): worked out from the risk and
 * the checks, so "disposable" or "no MX" is not flattened to "risky" or "undeliverable".
 */
function reasonFromChecks(risk: Risk, c: Checks): string {
  const smtp = c.smtpCheck;
  switch (risk) {
    case 'safe':
      return 'deliverable';
    case 'invalid':
      if (c.syntax === false) return 'syntax';
      if (c.mx === false) return 'no_mx';
      if (smtp === 'undeliverable' || c.smtp === false) return 'mailbox_not_found';
      return 'undeliverable';
    case 'risky':
      if (c.disposable) return 'disposable';
      if (c.spamTrapRisk === 'high') return 'spam_trap';
      if (c.catchAll || smtp === 'catch_all') return 'catch_all';
      if (smtp === 'mailbox_full') return 'mailbox_full';
      if (c.roleAccount) return 'role_account';
      return 'risky';
    case 'unknown':
      if (smtp === 'timeout') return 'smtp_timeout';
      if (smtp === 'greylisted') return 'greylisted';
      if (smtp === 'blocked') return 'smtp_blocked';
      if (smtp === 'unreachable') return 'smtp_unreachable';
      if (smtp === 'temporary_failure') return 'smtp_temporary_failure';
      return 'unknown';
  }
}

/** Engines sometimes send `Mailbox Not Found` or `mailbox-not-found`: fold to snake_case. */
function normalizeReason(reason: string): string {
  const folded = reason.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return folded === '' ? 'unknown' : folded;
}

/**
 * Reads a 200 answer of any engine onto the canonical `Verification` (rules in core/README.md):
 * set B wins where both sets speak, set A fills what B leaves out, a check not reported is `null`.
 */
export function readEngineAnswer(body: unknown, email: string, normalized: string, now = new Date()): WireReading {
  const warnings: WireWarning[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, problem: 'the answer is not a JSON object', warnings };
  const source = body as Record<string, unknown>;
  const r: Read = {};
  for (const [key, schema] of FIELD_ENTRIES) {
    (r as Record<string, unknown>)[key] = readField(source, key, schema, key, warnings);
  }
  if (r.risk === undefined && r.valid === undefined && r.deliverable === undefined) {
    return { ok: false, problem: 'neither field set B (risk) nor field set A (valid, deliverable) is present', warnings };
  }

  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key in FIELDS || value === undefined) continue;
    if (CANONICAL_CHECKS.has(key)) {
      // verify-hub's own name for a check, sent as a field of its own: it is not part of the published
      // answer and must not stand in for (or break) the check read from the published field.
      warnings.push({ field: key, problem: `is verify-hub's name for a check, not a field of the answer (dropped; the published field is ${snakeCase(key)})` });
      continue;
    }
    const camel = camelCase(key);
    extras[CANONICAL_CHECKS.has(camel) ? key : camel] = value;
  }
  const smtpCheck = r.smtp_check !== undefined ? foldVocabulary('smtp_check', r.smtp_check) : r.smtp_valid === undefined ? null : r.smtp_valid ? 'deliverable' : 'undeliverable';
  const checks: Checks = {
    ...extras,
    syntax: first(r.syntax_valid, r.valid === true ? true : undefined),
    mx: first(r.mx_found),
    smtp: r.smtp_check !== undefined ? mailboxAccepted(smtpCheck) : first(r.smtp_valid),
    smtpCheck,
    disposable: first(r.is_disposable, r.disposable),
    roleAccount: first(r.is_role_account, r.role_based),
    catchAll: first(r.is_catch_all, smtpCheck === 'catch_all' ? true : undefined),
    freeProvider: first(r.is_free_provider, r.free_email),
    spamTrapRisk: r.spam_trap_risk === undefined ? null : foldVocabulary('spam_trap_risk', r.spam_trap_risk),
  };
  if (r.catch_all_confidence !== undefined) checks.catchAllConfidence = r.catch_all_confidence;
  if (r.did_you_mean !== undefined) checks.typoSuggestion = r.did_you_mean;

  const fromA = r.risk === undefined ? riskFromFieldSetA(r, checks) : undefined;
  const risk: Risk = r.risk ?? fromA!.risk;
  const deliverability = r.deliverability && readDeliverability(r.deliverability, warnings);
  // Built from fields each read by its schema above: not parsed again (a second full parse per answer
  // was the largest part of the reader's cost and of the garbage a long run promotes).
  const verification: Verification = {
    email,
    normalized,
    score: r.score ?? FIELD_SET_A_SCORES[risk],
    risk,
    reason: normalizeReason(r.reason ?? fromA?.reason ?? reasonFromChecks(risk, checks)),
    checks,
    ...(deliverability ? { deliverability } : {}),
    checkedAt: r.checked_at ? new Date(r.checked_at).toISOString() : now.toISOString(),
    // `unknown` is never billed, whatever the engine says.
    billable: risk !== 'unknown' && r.billable !== false,
  };
  return { ok: true, verification, warnings };
}

/** Field set B, written out in full by engines that serve this API. */
export interface WireFieldSetB {
  email: string;
  score: number;
  risk: Risk;
  syntax_valid: boolean | null;
  mx_found: boolean | null;
  smtp_check: string | null;
  is_disposable: boolean | null;
  is_role_account: boolean | null;
  is_catch_all: boolean | null;
  is_free_provider: boolean | null;
  spam_trap_risk: string | null;
  deliverability: {
    grade: string | null;
    score: number | null;
    authentication: { spf: string | null; dkim: string | null; dmarc: string | null };
    blacklist: { listed: boolean | null; listed_count: number | null; total_checks: number | null };
  };
}

/** Field set A's fields that do not collide with set B's (`email`, `score`, `mx_found` are shared). */
export interface WireFieldSetA {
  valid: boolean | null;
  deliverable: boolean | null;
  smtp_valid: boolean | null;
  disposable: boolean | null;
  role_based: boolean | null;
  free_email: boolean | null;
}

/** verify-hub's flat extension fields (engine/README.md and the OpenAPI description document each). */
export interface WireExtensions {
  reason: string;
  normalized: string;
  catch_all_confidence: number | null;
  checked_at: string;
  billable: boolean;
  did_you_mean: string | null;
}

export type WireResult = WireFieldSetB & WireFieldSetA & WireExtensions & Record<string, unknown>;

/**
 * The answer an engine serving this API gives for a `Verification`: every field of set B, set A's
 * non-colliding fields, the extension fields, and further checks flat in snake_case.
 */
export function toWireResponse(v: Verification): WireResult {
  const { syntax, mx, smtp, smtpCheck, disposable, roleAccount, catchAll, catchAllConfidence, freeProvider, spamTrapRisk, typoSuggestion, ...extras } = v.checks;
  const d = v.deliverability;
  const flat = Object.fromEntries(Object.entries(extras).map(([k, value]) => [snakeCase(k), value]));
  return {
    ...flat,
    email: v.email,
    score: Math.round(v.score),
    risk: v.risk,
    syntax_valid: syntax,
    mx_found: mx,
    smtp_check: smtpCheck,
    is_disposable: disposable,
    is_role_account: roleAccount,
    is_catch_all: catchAll,
    is_free_provider: freeProvider,
    spam_trap_risk: spamTrapRisk,
    deliverability: {
      grade: d?.grade ?? null,
      score: d?.score ?? null,
      authentication: { spf: d?.authentication.spf ?? null, dkim: d?.authentication.dkim ?? null, dmarc: d?.authentication.dmarc ?? null },
      blacklist: { listed: d?.blacklist.listed ?? null, listed_count: d?.blacklist.listedCount ?? null, total_checks: d?.blacklist.totalChecks ?? null },
    },
    valid: v.risk === 'unknown' ? null : v.risk !== 'invalid',
    deliverable: v.risk === 'invalid' ? false : v.risk === 'unknown' ? null : smtp ?? (v.risk === 'safe' ? true : null),
    smtp_valid: smtp,
    disposable,
    role_based: roleAccount,
    free_email: freeProvider,
    reason: v.reason,
    normalized: v.normalized,
    catch_all_confidence: catchAllConfidence ?? null,
    checked_at: v.checkedAt,
    billable: v.billable,
    did_you_mean: typeof typoSuggestion === 'string' ? typoSuggestion : null,
  };
}
