import type { SmtpReply } from './smtp-session';
import { REPLY_RULES, type ReplyClass, type ReplyStage } from './smtp-reply-rules';
import { gatewayEvidence, textEvidence, type TextEvidence } from './smtp-reply-evidence';

export type { ReplyClass, ReplyStage } from './smtp-reply-rules';

/** Broad "come back later" words, read only for a 4xx whose text named nothing more precise. */
const LATER = /(try (again )?later|temporarily (deferred|rejected|unavailable)|please retry|deferred)/i;

/**
 * Classifies a reply. At RCPT TO, in order of strength: documented provider answers (REPLY_RULES), a
 * security gateway's own reason code (GATEWAY_CODES), what the text says about this recipient
 * (TEXT_EVIDENCE), and only when the text says nothing the RFC 3463 enhanced code. An address is only
 * called missing on positive evidence. Before RCPT (greeting, EHLO, MAIL FROM) a reply is about the
 * server or our sender, never the recipient: a "user unknown" answering MAIL FROM is our sender unknown.
 */
export function classifyReply(reply: SmtpReply, stage: ReplyStage = 'rcpt'): ReplyClass {
  const { code, text } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  const enhanced = reply.enhanced ?? inlineEnhanced(text);
  const temporary = code >= 400 && code < 500;
  if (stage !== 'rcpt') return temporary ? laterClass(aboutServer(textEvidence(text)), code, enhanced, text) : 'blocked';
  const codeText = String(code);
  const rule = REPLY_RULES.find((r) => r.code.test(codeText) && (r.enhanced === null || (enhanced !== null && r.enhanced.test(enhanced))) && r.text.test(text));
  if (rule) return rule.class;
  const evidence = gatewayEvidence(text)?.evidence ?? textEvidence(text);
  if (temporary) return laterClass(evidence, code, enhanced, text);
  if (code < 500 || code >= 600) return 'ambiguous';
  switch (evidence) {
    case 'full':
      return 'mailbox_full';
    case 'rate':
      return 'rate_limited';
    case 'sender':
    case 'policy':
      return 'blocked';
    case 'greylist':
      return 'greylisted';
    case 'temporary':
      return 'temporary';
    case 'missing':
      return 'mailbox_not_found';
    case 'disabled':
      return 'mailbox_disabled';
    case null:
      return byEnhancedCode(code, enhanced, text);
  }
}

/** Before RCPT nothing is said about the recipient: a missing or disabled "user" there is our sender. */
function aboutServer(evidence: TextEvidence | null): TextEvidence | null {
  return evidence === 'missing' || evidence === 'disabled' ? 'sender' : evidence;
}

/** A 4xx: come back later. A named unknown recipient is its own class (re-checked, invalid only if it stays so). */
function laterClass(evidence: TextEvidence | null, code: number, enhanced: string | null, text: string): ReplyClass {
  const [, subject, detail] = (enhanced ?? '').split('.').map(Number);
  switch (evidence) {
    case 'full':
      return 'mailbox_full';
    case 'rate':
      return 'rate_limited';
    case 'greylist':
      return 'greylisted';
    case 'missing':
      return 'user_unknown_temporary';
    case 'sender':
      return 'blocked';
    case 'temporary':
    case 'disabled':
      return 'temporary';
    case 'policy':
    case null:
      break;
  }
  if (subject === 2 && detail === 2) return 'mailbox_full';
  // 4.1.1 "bad destination mailbox", temporarily (Postfix's unverified address, a relay's cached rejection).
  if (subject === 1 && detail === 1) return 'user_unknown_temporary';
  if (code === 421) return 'rate_limited';
  if (evidence === 'policy' && subject === 7) return 'blocked';
  if (LATER.test(text) || code === 450 || code === 451 || subject === 7) return 'greylisted';
  return 'temporary';
}

/** A 5xx whose text names nothing: RFC 3463. 5.7.x is policy, never a verdict on the mailbox. */
function byEnhancedCode(code: number, enhanced: string | null, text: string): ReplyClass {
  const [, subject, detail] = (enhanced ?? '').split('.').map(Number);
  if (enhanced) {
    if (subject === 1) {
      if (detail === 7 || detail === 8) return 'blocked'; // the sender's address, not the recipient's
      if (detail !== 4 && detail !== 5) return 'mailbox_not_found';
    }
    if (subject === 2 && detail === 2) return 'mailbox_full';
    if (subject === 2 && detail === 1) return 'mailbox_disabled';
    if (subject === 7 && detail === 13) return 'mailbox_disabled'; // RFC 7372: user account disabled
    if (subject === 7) return 'blocked';
    return 'ambiguous';
  }
  // RFC 5321's 552 is "exceeded storage allocation"; a 552 about the message's size says nothing of the mailbox.
  if (code === 552 && !/size|too (large|big)/i.test(text)) return 'mailbox_full';
  return 'ambiguous';
}

/** qmail and some gateways put the enhanced code in the text: "(#5.1.1)", "#5.1.0 Address rejected". */
function inlineEnhanced(text: string): string | null {
  return /(?:^|[\s(])#([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1] ?? null;
}
