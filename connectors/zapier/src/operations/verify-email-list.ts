import {
  BatchVerifier,
  EngineAuthError,
  EngineQuotaError,
  EngineRateLimitError,
  InputError,
  normalizeEmail,
  unknownVerification,
  type BatchReport,
  type Risk,
  type Verification,
} from '@verify-hub/core';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { parseEmailList, MAX_LIST_ADDRESSES } from '../email-list';
import { zapierEngineVerifier } from '../engine-verifier';
import { LIST_VERIFICATION_THROTTLE } from '../throttle';
import { SAMPLE_VERIFICATION, toOutput, verificationOutputFields, type VerificationOutput } from '../verification-output';
import { withZapierErrors } from '../zapier-errors';

/** Verifications under way at once: bounded so a list does not trip the engine's rate limit. */
export const LIST_CONCURRENCY = 5;
/** Zapier stops a step at 30 s: the list action answers by 25 s at the latest, finished or not. */
export const MAX_LIST_BUDGET_SECONDS = 25;

export interface ListOutput {
  results: VerificationOutput[];
  total: number;
  safe: number;
  risky: number;
  invalid: number;
  unknown: number;
  /** Addresses not verified when the step had to answer (time budget, rate limit or quota). */
  unfinished: number;
  credits_used: number;
  safe_emails: string;
  risky_emails: string;
  invalid_emails: string;
  unknown_emails: string;
  note: string;
}

function budgetSeconds(value: unknown): number {
  if (value === undefined || value === null || value === '') return MAX_LIST_BUDGET_SECONDS;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new InputError('Time Budget (Seconds)', `"${String(value)}" is not a positive number of seconds`);
  }
  return Math.min(n, MAX_LIST_BUDGET_SECONDS);
}

const TIMED_OUT = {
  reason: 'time_budget_exceeded',
  note: 'Some checks did not finish within the time Zapier allows one step: those addresses are unknown (not billed). Run them again later.',
} as const;

/** Why the addresses still pending were not verified, as a reason code and a note for the user. */
function unfinishedReason(stopped: BatchReport['stopped']): { reason: string; note: string } {
  if (stopped?.error instanceof EngineQuotaError) {
    return { reason: 'quota_exhausted', note: 'Your verify-hub credits ran out: the addresses not checked are unknown (not billed). Buy a credit pack or upgrade your plan, then run them again.' };
  }
  if (stopped?.error instanceof EngineRateLimitError) {
    return { reason: 'rate_limited', note: 'The verify-hub rate limit was reached: the addresses not checked are unknown (not billed). Run them again later, or add a Delay step.' };
  }
  return TIMED_OUT;
}

/**
 * Verifies up to 100 addresses with core's `BatchVerifier` (dedupe, bounded concurrency, waits for
 * rate-limit resets that fit the budget) and answers within the time budget: addresses not finished by
 * then come back `unknown` with an explanation instead of failing the step. Only when nothing at all
 * could be verified do auth, quota and rate limits fail the step (so Zapier reconnects, reports the
 * quota, or replays the step after the reset).
 */
export async function verifyEmailList(z: ZObject, bundle: Bundle): Promise<ListOutput> {
  return withZapierErrors(z, async () => {
    const emails = parseEmailList(bundle.inputData.emails);
    const budgetMs = budgetSeconds(bundle.inputData.timeBudgetSeconds) * 1000;
    const deadline = Date.now() + budgetMs;
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(new Error('time budget exceeded')), budgetMs);
    let report: BatchReport;
    try {
      const verifier = zapierEngineVerifier(z, bundle, { deadline, timeoutMs: budgetMs });
      report = await new BatchVerifier(verifier, { concurrency: LIST_CONCURRENCY, signal: budget.signal, maxRateLimitWaitMs: budgetMs }).verifyAll(emails);
    } finally {
      clearTimeout(timer);
    }
    const { stopped, counters } = report;
    if (stopped?.error instanceof EngineAuthError) throw stopped.error;
    const nothingDone = counters.verified + counters.cached === 0;
    if (nothingDone && stopped?.error instanceof EngineRateLimitError) throw stopped.error; // quota included
    const why = unfinishedReason(stopped);
    const results: Verification[] = emails.map((email, i) => {
      const done = report.results[i];
      if (done) return done;
      const n = normalizeEmail(email);
      return unknownVerification(email, n.ok ? n.normalized : email.trim(), why.reason);
    });
    // Cut off by the budget either way: still pending when it ran out, or ended by the engine client's deadline.
    const timedOut = report.results.filter((r) => r?.reason === TIMED_OUT.reason).length;
    const unfinished = report.pending.length + timedOut;
    const note = report.pending.length > 0 ? why.note : timedOut > 0 ? TIMED_OUT.note : '';
    return summarize(results.map(toOutput), unfinished, counters.credits, note);
  });
}

function summarize(results: VerificationOutput[], unfinished: number, credits: number, note: string): ListOutput {
  const of = (risk: Risk) => results.filter((r) => r.risk === risk);
  const emails = (risk: Risk) => of(risk).map((r) => r.email).join(', ');
  return {
    results,
    total: results.length,
    safe: of('safe').length,
    risky: of('risky').length,
    invalid: of('invalid').length,
    unknown: of('unknown').length,
    unfinished,
    credits_used: credits,
    safe_emails: emails('safe'),
    risky_emails: emails('risky'),
    invalid_emails: emails('invalid'),
    unknown_emails: emails('unknown'),
    note: note || 'All addresses were checked.',
  };
}

const SAMPLE_LIST: ListOutput = summarize(
  [
    SAMPLE_VERIFICATION,
    toOutput({ ...SAMPLE_VERIFICATION, email: 'info@Example.org', normalized: 'info@example.org', risk: 'risky', reason: 'role_account', score: 61, checks: { ...SAMPLE_VERIFICATION.checks, roleAccount: true }, deliverability: undefined }),
    toOutput(unknownVerification('sam@slow-mail.example.net', 'sam@slow-mail.example.net', 'greylisted', new Date('2026-11-20T14:03:29.000Z'))),
  ],
  0,
  2,
  '',
);

export const verifyEmailListAction = {
  key: 'verify_email_list',
  noun: 'Email List',
  display: {
    label: 'Verify Email List',
    description: `Verifies up to ${MAX_LIST_ADDRESSES} email addresses in one step and returns each result as line items, with counts per risk.`,
  },
  operation: {
    inputFields: [
      {
        key: 'emails',
        label: 'Email Addresses',
        type: 'string' as const,
        list: true,
        required: true,
        helpText: `Up to ${MAX_LIST_ADDRESSES} addresses: map line items, or type or map one text with addresses separated by commas or new lines.`,
      },
      {
        key: 'timeBudgetSeconds',
        label: 'Time Budget (Seconds)',
        type: 'integer' as const,
        required: false,
        default: String(MAX_LIST_BUDGET_SECONDS),
        helpText: `How long the step may verify before it answers (at most ${MAX_LIST_BUDGET_SECONDS}, within Zapier's 30-second limit). Addresses not finished by then come back as unknown, not billed, to run again later.`,
      },
    ],
    perform: verifyEmailList,
    throttle: LIST_VERIFICATION_THROTTLE,
    outputFields: [
      { key: 'total', label: 'Addresses Given', type: 'integer' as const },
      { key: 'safe', label: 'Safe Addresses', type: 'integer' as const },
      { key: 'risky', label: 'Risky Addresses', type: 'integer' as const },
      { key: 'invalid', label: 'Invalid Addresses', type: 'integer' as const },
      { key: 'unknown', label: 'Unknown Addresses (not billed)', type: 'integer' as const },
      { key: 'unfinished', label: 'Addresses Not Finished in Time', type: 'integer' as const },
      { key: 'credits_used', label: 'Credits Used', type: 'integer' as const },
      { key: 'safe_emails', label: 'Safe Email Addresses (comma-separated)' },
      { key: 'risky_emails', label: 'Risky Email Addresses (comma-separated)' },
      { key: 'invalid_emails', label: 'Invalid Email Addresses (comma-separated)' },
      { key: 'unknown_emails', label: 'Unknown Email Addresses (comma-separated)' },
      { key: 'note', label: 'Note' },
      ...verificationOutputFields('results[]'),
    ],
    sample: SAMPLE_LIST,
  },
};
