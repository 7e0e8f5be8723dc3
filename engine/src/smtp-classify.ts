import type { SmtpReply } from './smtp-session';

/** What an SMTP reply to RCPT TO (or to the steps before it) means for the mailbox. */
export type ReplyClass =
  | 'accepted'
  | 'mailbox_not_found'
  | 'mailbox_full'
  | 'mailbox_disabled'
  | 'greylisted'
  | 'blocked' // our probe is refused (policy, reputation, blocklist): says nothing about the mailbox
  | 'temporary' // another 4xx
  | 'ambiguous'; // a 5xx that names no reason

const NOT_FOUND = /(no such (user|mailbox|recipient|address)|user unknown|unknown (user|recipient|mailbox)|(mailbox|user|recipient|address|account)( \S+)? (does not|doesn't) exist|mailbox (is )?unavailable|mailbox not found|recipient not found|invalid (recipient|mailbox|address)|address rejected|recipient address rejected|not a valid mailbox|no mailbox|undeliverable address|unrouteable address|user not found)/i;
const FULL = /(mailbox (is )?full|over ?quota|quota exceeded|exceeded (the )?(storage|quota)|insufficient (system )?storage|mailbox size limit)/i;
const DISABLED = /(disabled|deactivated|inactive|suspended|account (has been )?(closed|locked|terminated)|no longer (active|in use|valid)|mailbox (is )?locked|expired account)/i;
const GREYLIST = /(grey ?list|gray ?list|try (again )?later|temporarily (deferred|rejected|unavailable)|please retry|deferred)/i;
const BLOCKED = /(block(ed|list)|black ?list|spamhaus|spamcop|barracuda|sorbs|reputation|\bpolicy\b|access denied|client host|not allowed|relay(ing)? (denied|not permitted)|\brbl\b|dnsbl|banned|rate limit|too many)/i;

/**
 * Classifies a reply: the reply code and the RFC 3463 enhanced status code first (they are
 * standardised), then the text (servers word things very differently). The order of the phrase tests
 * matters: "mailbox unavailable: over quota" is full, not missing.
 */
export function classifyReply(reply: SmtpReply): ReplyClass {
  const { code, enhanced, text } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  const [cls, subject, detail] = (enhanced ?? '').split('.').map(Number);
  if (code >= 400 && code < 500) {
    if (subject === 2 && detail === 2) return 'mailbox_full';
    if (FULL.test(text)) return 'mailbox_full';
    if (cls === 4 && subject === 7 && !BLOCKED.test(text)) return 'greylisted';
    if (GREYLIST.test(text) || code === 450 || code === 451) return BLOCKED.test(text) && !GREYLIST.test(text) ? 'blocked' : 'greylisted';
    return 'temporary';
  }
  if (code >= 500 && code < 600) {
    if (enhanced) {
      if (subject === 1 && (detail === 1 || detail === 0 || detail === 10 || detail === 6)) return 'mailbox_not_found';
      if (subject === 2 && detail === 2) return 'mailbox_full';
      if (subject === 2 && detail === 1) return 'mailbox_disabled';
      // 5.7.x is "security or policy": servers also use it for full or disabled mailboxes, so the text decides first.
      if (subject === 7) return FULL.test(text) ? 'mailbox_full' : DISABLED.test(text) ? 'mailbox_disabled' : 'blocked';
    }
    if (code === 552 || FULL.test(text)) return 'mailbox_full';
    if (DISABLED.test(text)) return 'mailbox_disabled';
    if (BLOCKED.test(text)) return 'blocked';
    if (NOT_FOUND.test(text)) return 'mailbox_not_found';
    if (code === 553 && /mailbox name not allowed|not allowed/i.test(text)) return 'mailbox_not_found';
    return 'ambiguous';
  }
  return 'ambiguous';
}
