import { RiskSchema } from '@verify-hub/core';
import { z } from 'zod';

/**
 * What `explain_result` accepts: a result as `verify_email` returns it. Only `risk` is required, so an
 * assistant can also pass a result it summarised or got elsewhere; unknown fields are ignored.
 */
export const ExplainInputSchema = z.looseObject({
  email: z.string().optional(),
  risk: RiskSchema,
  score: z.number().min(0).max(100).optional(),
  reason: z.string().optional(),
  checks: z
    .looseObject({
      syntax: z.boolean().nullable().optional(),
      mx: z.boolean().nullable().optional(),
      smtp: z.boolean().nullable().optional(),
      disposable: z.boolean().nullable().optional(),
      roleAccount: z.boolean().nullable().optional(),
      catchAll: z.boolean().nullable().optional(),
      catchAllConfidence: z.number().min(0).max(1).optional(),
      freeProvider: z.boolean().nullable().optional(),
      spamTrapRisk: z.enum(['none', 'low', 'medium', 'high']).optional(),
    })
    .optional(),
  deliverability: z
    .looseObject({
      grade: z.string().optional(),
      authentication: z.object({ spf: z.boolean().nullable(), dkim: z.boolean().nullable(), dmarc: z.boolean().nullable() }).partial().optional(),
      blacklist: z.object({ listed: z.boolean(), listedCount: z.number(), totalChecks: z.number() }).partial().optional(),
    })
    .optional(),
});
export type ExplainInput = z.infer<typeof ExplainInputSchema>;

export const VERDICTS = ['send', 'send_with_caution', 'do_not_send', 'retry_later'] as const;

export const ExplanationSchema = z.object({
  email: z.string().optional(),
  verdict: z.enum(VERDICTS).describe('send, send_with_caution, do_not_send, or retry_later'),
  headline: z.string().describe('One sentence for the user'),
  explanation: z.string().describe('Why, in plain language'),
  factors: z.array(z.string()).describe('Each signal behind the verdict, one sentence each'),
});
export type Explanation = z.infer<typeof ExplanationSchema>;

/** Plain-language meaning of the engine's reason codes that most often need one. */
const REASON_TEXT: Record<string, string> = {
  deliverable: 'the mail server confirmed that the mailbox exists and accepts mail',
  syntax: 'the address is not well-formed (for example a missing @ or an invalid domain)',
  no_mx: 'its domain has no mail server (no MX record), so nothing can be delivered there',
  mailbox_not_found: 'the mail server says this mailbox does not exist',
  disabled: 'the mailbox exists but is disabled',
  full_inbox: 'the mailbox is full and currently refuses new mail',
  disposable: 'it is a disposable (throwaway) address',
  role_account: 'it is a role address (like info@ or sales@) read by a team, not one person',
  catch_all: "the domain accepts mail for any address (catch-all), so this mailbox's existence cannot be confirmed",
  spam_trap: 'it looks like a spam trap',
  smtp_timeout: 'the mail server did not answer in time',
  engine_unreachable: 'the verification engine could not be reached',
  engine_error: 'the verification engine failed',
  engine_bad_response: 'the verification engine gave an answer that could not be read',
};

function reasonText(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return REASON_TEXT[reason] ?? `the engine's reason code is "${reason}"`;
}

/**
 * Turns a verification result into a recommendation a person can act on. The verdict follows the risk,
 * except that a high spam-trap risk is never worth sending to.
 */
export function explainResult(result: ExplainInput): Explanation {
  const c = result.checks ?? {};
  const factors: string[] = [];
  const who = result.email ? `${result.email}` : 'This address';
  const score = result.score === undefined ? '' : ` (score ${result.score}/100)`;

  if (c.disposable) factors.push('It is a disposable (throwaway) address: the person may stop reading it soon; ask for a permanent one.');
  if (c.roleAccount) factors.push('It is a role address read by a team: fine for transactional mail, a higher complaint risk for marketing.');
  if (c.catchAll) {
    const confidence = c.catchAllConfidence === undefined ? '' : ` (confidence ${Math.round(c.catchAllConfidence * 100)}%)`;
    factors.push(`The domain accepts mail for any address (catch-all)${confidence}: the mailbox itself could not be confirmed.`);
  }
  if (c.spamTrapRisk === 'high' || c.spamTrapRisk === 'medium') factors.push(`It has a ${c.spamTrapRisk} spam-trap risk: mailing a trap hurts the sender's reputation.`);
  if (c.freeProvider) factors.push('It is at a free mail provider (a personal address, not a company one).');
  if (c.mx === false) factors.push('Its domain has no mail server (MX record).');
  if (c.smtp === false) factors.push('The mail server refused the mailbox.');
  const d = result.deliverability;
  if (d?.blacklist?.listed) factors.push(`The domain is on ${d.blacklist.listedCount ?? 'some'} of ${d.blacklist.totalChecks ?? 'the checked'} blocklists.`);
  const missingAuth = (['spf', 'dkim', 'dmarc'] as const).filter((k) => d?.authentication?.[k] === false);
  if (missingAuth.length > 0) factors.push(`The domain lacks ${missingAuth.map((k) => k.toUpperCase()).join(', ')}, so its own mail may land in spam.`);

  const because = reasonText(result.reason);
  const base = { ...(result.email === undefined ? {} : { email: result.email }), factors };

  if (result.risk === 'unknown') {
    return {
      ...base,
      verdict: 'retry_later',
      headline: `${who} could not be verified right now: keep it and check again later.`,
      explanation:
        `No verdict was reached${because ? ` because ${because}` : ''}. This is not a sign that the address is bad, and no credit was charged. ` +
        'Verify it again in a few hours; do not remove it on this result alone.',
    };
  }
  if (result.risk === 'invalid') {
    return {
      ...base,
      verdict: 'do_not_send',
      headline: `${who} is invalid${score}: do not send to it.`,
      explanation: `Mail to it would bounce${because ? ` because ${because}` : ''}. Remove it from the list, or ask the contact for a corrected address; bounces hurt the sender's reputation.`,
    };
  }
  if (c.spamTrapRisk === 'high') {
    return {
      ...base,
      verdict: 'do_not_send',
      headline: `${who} is likely a spam trap${score}: do not send to it.`,
      explanation: 'Spam traps exist to catch senders of unsolicited mail; a single message to one can get the sending domain blocklisted. Remove it.',
    };
  }
  if (result.risk === 'risky') {
    return {
      ...base,
      verdict: 'send_with_caution',
      headline: `${who} is risky${score}: it may work, but it may bounce or go unread.`,
      explanation:
        `The address could be delivered to, but ${because ?? 'some signals make delivery or engagement uncertain'}. ` +
        'Send transactional mail if the contact asked for it; for campaigns, keep it in a separate segment and watch bounces and engagement.',
    };
  }
  return {
    ...base,
    verdict: 'send',
    headline: `${who} is safe to send to${score}.`,
    explanation: `${because ? `${because.charAt(0).toUpperCase()}${because.slice(1)}` : 'The address passed every check'}; mail to it should be delivered.`,
  };
}

/** The explanation as plain text, for assistants that read only text content. */
export function explanationText(e: Explanation): string {
  return [e.headline, e.explanation, ...e.factors.map((f) => `- ${f}`)].join('\n');
}
