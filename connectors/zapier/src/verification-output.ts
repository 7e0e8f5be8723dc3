import { DKIM_VALUES, DMARC_VALUES, explainInWords, SMTP_CHECK_OUTCOMES, SPAM_TRAP_LEVELS, SPF_VALUES, type Verification } from '@verify-hub/core';

/** What a step returns for one address: the canonical result plus a sentence a Zap builder can read. */
export type VerificationOutput = Verification & { explanation: string };

/** Words only a Zapier step needs; every other reason is in core's REASON_WORDS. */
const ZAPIER_WORDS: Record<string, string> = {
  time_budget_exceeded: 'the check did not finish within the time Zapier allows one step',
  rate_limited: 'the verify-hub rate limit was reached before this address was checked',
  quota_exhausted: 'your verify-hub credits ran out before this address was checked',
  verifier_error: 'the verification failed unexpectedly',
};

/** One sentence per result (core's explainInWords, with Zapier's own words and its Delay step). */
export function explain(v: Verification): string {
  return explainInWords(v, { own: ZAPIER_WORDS, retryHint: 'for example with a Delay step' });
}

export function toOutput(v: Verification): VerificationOutput {
  return { ...v, explanation: explain(v) };
}

/**
 * Output fields for every field of the canonical result, flattened with Zapier's `__` notation, with
 * labels a Zap builder understands. `prefix` places them under a line-item key (`results[]`).
 */
export function verificationOutputFields(prefix = '') {
  const f = (key: string, label: string, type: 'string' | 'number' | 'boolean' | 'datetime' = 'string') => ({ key: `${prefix}${key}`, label, type });
  return [
    f('email', 'Email Address'),
    f('normalized', 'Normalized Email Address'),
    f('risk', 'Risk (safe, risky, invalid or unknown)'),
    f('score', 'Score (0-100)', 'number'),
    f('reason', 'Reason Code'),
    f('explanation', 'Explanation'),
    f('billable', 'Billed (used a credit)', 'boolean'),
    f('checkedAt', 'Checked At', 'datetime'),
    f('checks__syntax', 'Syntax Valid (empty when not checked)', 'boolean'),
    f('checks__mx', 'Domain Has Mail Servers (MX; empty when not checked)', 'boolean'),
    f('checks__smtp', 'Mailbox Accepts Mail (SMTP; empty when not checked)', 'boolean'),
    f('checks__smtpCheck', `SMTP Check (${SMTP_CHECK_OUTCOMES.join(', ')})`),
    f('checks__disposable', 'Disposable Address (empty when not checked)', 'boolean'),
    f('checks__roleAccount', 'Role Account (info@, sales@...; empty when not checked)', 'boolean'),
    f('checks__catchAll', 'Catch-All Domain (empty when not checked)', 'boolean'),
    f('checks__catchAllConfidence', 'Catch-All Confidence (0-1)', 'number'),
    f('checks__freeProvider', 'Free Email Provider (empty when not checked)', 'boolean'),
    f('checks__spamTrapRisk', `Spam Trap Risk (${SPAM_TRAP_LEVELS.join(', ')})`),
    f('deliverability__grade', 'Deliverability Grade'),
    f('deliverability__score', 'Deliverability Score (0-100)', 'number'),
    f('deliverability__authentication__spf', `SPF Policy (${SPF_VALUES.join(', ')})`),
    f('deliverability__authentication__dkim', `DKIM (${DKIM_VALUES.join(', ')})`),
    f('deliverability__authentication__dmarc', `DMARC Policy (${DMARC_VALUES.join(', ')})`),
    f('deliverability__blacklist__listed', 'Domain on a Blocklist', 'boolean'),
    f('deliverability__blacklist__listedCount', 'Blocklists Listing the Domain', 'number'),
    f('deliverability__blacklist__totalChecks', 'Blocklists Checked', 'number'),
  ];
}

/** A realistic result, shown in the Zap editor before a test run. */
export const SAMPLE_VERIFICATION: VerificationOutput = toOutput({
  email: 'Jane.Doe@Example.com',
  normalized: 'Jane.Doe@example.com',
  score: 92,
  risk: 'safe',
  reason: 'deliverable',
  checks: {
    syntax: true,
    mx: true,
    smtp: true,
    smtpCheck: 'deliverable',
    disposable: false,
    roleAccount: false,
    catchAll: false,
    catchAllConfidence: 0.05,
    freeProvider: false,
    spamTrapRisk: 'none',
  },
  deliverability: {
    grade: 'A',
    score: 95,
    authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' },
    blacklist: { listed: false, listedCount: 0, totalChecks: 12 },
  },
  checkedAt: '2026-11-20T14:03:27.000Z',
  billable: true,
});
