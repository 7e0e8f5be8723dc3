import type { SmtpReply } from './smtp-session';
import { REPLY_RULES, type ReplyClass } from './smtp-reply-rules';

export type { ReplyClass } from './smtp-reply-rules';

/** Only phrases that name a missing mailbox: RFC 5321's generic "mailbox unavailable" is often a policy block. */
const NOT_FOUND = /(no such (user|mailbox|recipient|address)|user unknown|unknown (user|recipient|mailbox)|(mailbox|user|recipient|address|account)( \S+)? (does not|doesn't) exist|mailbox not found|recipient not found|user not found|invalid (recipient|mailbox)|not a valid (mailbox|recipient)|no mailbox here|unrouteable address)/i;
const FULL = /(mailbox (is )?full|over ?quota|quota exceeded|exceeded (the )?(storage|quota)|insufficient (system )?storage|mailbox size limit)/i;
const DISABLED = /((account|mailbox|user)( \S+)? (has been |is )?(disabled|deactivated|inactive|suspended|closed|locked|terminated)|no longer (active|in use)|expired account)/i;
const GREYLIST = /(gr[ea]y ?list|try (again )?later|temporarily (deferred|rejected|unavailable)|please retry|deferred)/i;
const RATE = /(rate limit|at a rate|unusual rate|too many (connections|messages|recipients|concurrent|sessions)|unexpected volume|server busy|throttl)/i;
const BLOCKED = /(block(ed|list)|black ?list|spamhaus|spamcop|barracuda|sorbs|reputation|\bpolicy\b|access denied|client host|not allowed|not authori[sz]ed|relay(ing)? (denied|not permitted|disallowed)|\brbl\b|dnsbl|banned|spam|helo|sender|reverse dns|ptr)/i;

/**
 * Classifies a reply. Order: documented provider answers (REPLY_RULES), then the RFC 3463 enhanced status
 * code, then the text. An address is only called missing on positive evidence: 5.1.x (except the sender
 * codes 5.1.7/5.1.8 and the inconclusive 5.1.4/5.1.5) or a phrase that names a missing mailbox. 5.7.x and
 * policy texts are `blocked`, never missing; a 5xx naming nothing is `ambiguous` (unknown, re-checked).
 */
export function classifyReply(reply: SmtpReply): ReplyClass {
  const { code, enhanced, text } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  const codeText = String(code);
  const rule = REPLY_RULES.find((r) => r.code.test(codeText) && (r.enhanced === null || (enhanced !== null && r.enhanced.test(enhanced))) && r.text.test(text));
  if (rule) return rule.class;
  const [, subject, detail] = (enhanced ?? '').split('.').map(Number);
  if (code >= 400 && code < 500) {
    if (FULL.test(text) || (subject === 2 && detail === 2)) return 'mailbox_full';
    if (RATE.test(text) || code === 421) return 'rate_limited';
    if (subject === 7 && BLOCKED.test(text) && !GREYLIST.test(text)) return 'blocked';
    if (GREYLIST.test(text) || code === 450 || code === 451 || subject === 7) return 'greylisted';
    return 'temporary';
  }
  if (code < 500 || code >= 600) return 'ambiguous';
  if (enhanced) {
    if (subject === 1) {
      if (detail === 7 || detail === 8) return 'blocked'; // the sender's address, not the recipient's
      if (detail !== 4 && detail !== 5) return 'mailbox_not_found';
    }
    if (subject === 2 && detail === 2) return 'mailbox_full';
    if (subject === 2 && detail === 1) return 'mailbox_disabled';
    // 5.7.x is "security or policy": never a verdict on the mailbox (a full mailbox is still told apart).
    if (subject === 7) return FULL.test(text) ? 'mailbox_full' : 'blocked';
  }
  if (FULL.test(text) || (code === 552 && !enhanced && !RATE.test(text))) return 'mailbox_full';
  if (BLOCKED.test(text) || RATE.test(text)) return 'blocked';
  if (DISABLED.test(text)) return 'mailbox_disabled';
  if (NOT_FOUND.test(text)) return 'mailbox_not_found';
  return 'ambiguous';
}
