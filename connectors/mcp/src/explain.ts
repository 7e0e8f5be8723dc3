import { reasonInWords, smtpNotChecked as smtpNotCheckedInCore, SPAM_TRAP_LEVELS } from '@verify-hub/core';
import { z } from 'zod';
import type { ExplainInput } from './portable';

export const VERDICTS = ['send', 'send_with_caution', 'do_not_send', 'retry_later'] as const;

export const ExplanationSchema = z.object({
  email: z.string().optional().describe('The address, when the result named it.'),
  verdict: z.enum(VERDICTS).describe('What to do: send, send_with_caution, do_not_send, or retry_later (unknown results: check again later).'),
  headline: z.string().describe('One sentence for the user.'),
  explanation: z.string().describe('Why, in plain language.'),
  factors: z.array(z.string()).describe('Each signal behind the verdict, one sentence each.'),
});
export type Explanation = z.infer<typeof ExplanationSchema>;

function reasonText(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return reasonInWords(reason) ?? `the engine's reason code is "${reason}"`;
}

type Checks = NonNullable<ExplainInput['checks']>;

/** Here an absent check means "not checked", which core's rule spells `null`. */
function smtpNotChecked(c: Checks): boolean {
  return smtpNotCheckedInCore({ smtp: c.smtp ?? null, smtpCheck: c.smtpCheck ?? null, mx: c.mx ?? null });
}

/** The SMTP factor: refused, not checked, or an outcome that decided nothing; nothing when accepted or not given. */
function smtpFactor(c: Checks): string | undefined {
  if (smtpNotChecked(c)) return 'The mailbox was not checked over SMTP (no conversation with the mail server took place), so its existence is not confirmed.';
  if (c.smtp === false) return 'The mail server refused the mailbox.';
  if (c.smtp !== true && typeof c.smtpCheck === 'string' && c.smtpCheck !== 'deliverable') {
    return `The SMTP check did not confirm the mailbox (outcome "${c.smtpCheck}").`;
  }
  return undefined;
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
  else if (typeof c.spamTrapRisk === 'string' && !(SPAM_TRAP_LEVELS as readonly string[]).includes(c.spamTrapRisk)) factors.push(`The engine rates its spam-trap risk "${c.spamTrapRisk}".`);
  if (c.freeProvider) factors.push('It is at a free mail provider (a personal address, not a company one).');
  if (c.mx === false) factors.push('Its domain has no mail server (MX record).');
  const smtp = smtpFactor(c);
  if (smtp) factors.push(smtp);
  const d = result.deliverability;
  if (d?.blacklist?.listed) factors.push(`The domain is on ${d.blacklist.listedCount ?? 'some'} of ${d.blacklist.totalChecks ?? 'the checked'} blocklists.`);
  const missingAuth = (['spf', 'dkim', 'dmarc'] as const).filter((k) => d?.authentication?.[k] === 'missing');
  if (missingAuth.length > 0) factors.push(`The domain lacks ${missingAuth.map((k) => k.toUpperCase()).join(', ')}, so its own mail may land in spam.`);

  // "deliverable" claims an SMTP confirmation: not when no SMTP conversation took place.
  const because = result.reason === 'deliverable' && smtpNotChecked(c) ? 'the domain can receive mail, but the mailbox itself was not checked over SMTP' : reasonText(result.reason);
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
