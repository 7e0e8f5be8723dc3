import type { Verification } from '@verify-hub/core';

/** What a step returns for one address: the canonical result plus a sentence a Zap builder can read. */
export type VerificationOutput = Verification & { explanation: string };

const REASON_TEXT: Record<string, string> = {
  engine_unreachable: 'the verification service could not be reached',
  engine_error: 'the verification service had an error',
  engine_bad_response: 'the verification service gave an answer that could not be read',
  verifier_error: 'the verification failed unexpectedly',
  time_budget_exceeded: 'the check did not finish within the time Zapier allows one step',
  rate_limited: 'the verify-hub rate limit was reached before this address was checked',
  quota_exhausted: 'your verify-hub credits ran out before this address was checked',
  smtp_timeout: 'the mail server did not answer in time',
  greylisted: 'the mail server asked to try again later (greylisting)',
};

const reasonText = (reason: string) => REASON_TEXT[reason] ?? reason.replace(/_/g, ' ');

/** One sentence per result; an unknown result says it was not billed and should be tried again later. */
export function explain(v: Verification): string {
  switch (v.risk) {
    case 'safe':
      return `Safe to send: ${reasonText(v.reason)} (score ${Math.round(v.score)}/100).`;
    case 'risky':
      return `Risky: ${reasonText(v.reason)} (score ${Math.round(v.score)}/100). Mail may bounce or harm your sender reputation.`;
    case 'invalid':
      return `Invalid: ${reasonText(v.reason)}. Do not send to this address.`;
    case 'unknown':
      return `Unknown: ${reasonText(v.reason)}. This result was not billed; try again later (for example with a Delay step).`;
  }
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
    f('checks__syntax', 'Syntax Valid', 'boolean'),
    f('checks__mx', 'Domain Has Mail Servers (MX)', 'boolean'),
    f('checks__smtp', 'Mailbox Accepts Mail (SMTP)', 'boolean'),
    f('checks__disposable', 'Disposable Address', 'boolean'),
    f('checks__roleAccount', 'Role Account (info@, sales@...)', 'boolean'),
    f('checks__catchAll', 'Catch-All Domain', 'boolean'),
    f('checks__catchAllConfidence', 'Catch-All Confidence (0-1)', 'number'),
    f('checks__freeProvider', 'Free Email Provider', 'boolean'),
    f('checks__spamTrapRisk', 'Spam Trap Risk (none, low, medium or high)'),
    f('deliverability__grade', 'Deliverability Grade'),
    f('deliverability__score', 'Deliverability Score (0-100)', 'number'),
    f('deliverability__authentication__spf', 'Domain Has SPF', 'boolean'),
    f('deliverability__authentication__dkim', 'Domain Has DKIM', 'boolean'),
    f('deliverability__authentication__dmarc', 'Domain Has DMARC', 'boolean'),
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
