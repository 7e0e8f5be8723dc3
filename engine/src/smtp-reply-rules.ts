import type { ProviderId } from './providers';

/** What an SMTP reply to RCPT TO (or to a step before it) means for the mailbox. */
export type ReplyClass =
  | 'accepted'
  | 'mailbox_not_found'
  | 'mailbox_full'
  | 'mailbox_disabled'
  | 'greylisted'
  | 'rate_limited' // the server slows us down (too many connections, messages or recipients): re-check later
  | 'blocked' // a policy block (our IP, reputation, blocklist, sender): says nothing about the mailbox
  | 'temporary' // another 4xx
  | 'user_unknown_temporary' // a 4xx that names this recipient unknown: re-checked, invalid only when refused so again hours later
  | 'ambiguous'; // a 5xx that names no reason ("mailbox unavailable" is often a policy block too)

/** The step of the conversation a reply answered: only an answer to RCPT TO can speak about the recipient. */
export type ReplyStage = 'greeting' | 'ehlo' | 'mail' | 'rcpt';

/**
 * One documented answer of a mail provider (or of a common MTA) that the RFC 3463 code alone reads wrong.
 * Rows are data: each carries a real example reply, and test/engine/smtp-reply-rules.test.ts classifies
 * every example, so a row cannot be added without a test. The scripted peers of the accuracy bench
 * answer with these same examples.
 */
export interface ReplyRule {
  /** Whose documented answer this is (`any`: several MTAs word it so). */
  provider: ProviderId | 'any';
  /** What it means, in a few words (shown in the README table). */
  meaning: string;
  /** The reply codes the row applies to. */
  code: RegExp;
  /** The enhanced status code, when the row depends on it (`null`: none or any). */
  enhanced: RegExp | null;
  text: RegExp;
  class: ReplyClass;
  /** A real reply of that provider, one line. */
  example: string;
}

export const REPLY_RULES: readonly ReplyRule[] = [
  // Microsoft 365: Directory-Based Edge Blocking rejects a recipient missing from the tenant with 5.4.1
  // "Access denied" — a missing mailbox, not a policy block (learn.microsoft.com, NDR 5.4.1).
  { provider: 'microsoft', meaning: 'recipient not in the tenant (edge blocking)', code: /^550$/, enhanced: /^5\.4\.1$/, text: /recipient address rejected: access denied/i, class: 'mailbox_not_found', example: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [AM0PR01MB1234.eurprd01.prod.exchangelabs.com]' },
  { provider: 'microsoft', meaning: 'recipient not found by address lookup', code: /^550$/, enhanced: /^5\.1\.10$/, text: /RecipientNotFound/i, class: 'mailbox_not_found', example: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup' },
  { provider: 'microsoft', meaning: 'sending IP banned (policy)', code: /^5\d\d$/, enhanced: /^5\.7\.\d+$/, text: /banned sending IP|blocked using|part of their network is on our block list/i, class: 'blocked', example: '550 5.7.606 Access denied, banned sending IP [192.0.2.1]. To request removal from this list please visit https://sender.office.com/' },
  { provider: 'microsoft', meaning: 'server busy (throttling)', code: /^4\d\d$/, enhanced: /^4\.7\.500$/, text: /server busy/i, class: 'rate_limited', example: '451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (S77719)' },
  { provider: 'microsoft', meaning: 'too many recipients in one session', code: /^452$/, enhanced: /^4\.5\.3$/, text: /too many recipients/i, class: 'rate_limited', example: '452 4.5.3 Too many recipients' },
  // Outlook.com (consumer) words a missing recipient as RFC 5321's generic text, but tags it with its own S-code.
  { provider: 'microsoft', meaning: 'consumer Outlook: recipient does not exist (S2017062302)', code: /^550$/, enhanced: /^5\.5\.0$/, text: /mailbox unavailable.*\(S2017062302\)/i, class: 'mailbox_not_found', example: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [DB5PEPF00014B8F.eurprd02.prod.outlook.com]' },
  // Google (support.google.com/a/answer/3726730, "SMTP error reference").
  { provider: 'google', meaning: 'account does not exist', code: /^550$/, enhanced: /^5\.1\.1$/, text: /does not exist/i, class: 'mailbox_not_found', example: '550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient\'s email address for typos or unnecessary spaces.' },
  { provider: 'google', meaning: 'account disabled', code: /^550$/, enhanced: /^5\.2\.1$/, text: /is disabled/i, class: 'mailbox_disabled', example: '550 5.2.1 The email account that you tried to reach is disabled.' },
  { provider: 'google', meaning: 'over quota', code: /^452$/, enhanced: /^4\.2\.2$/, text: /over quota/i, class: 'mailbox_full', example: '452 4.2.2 The email account that you tried to reach is over quota. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp' },
  { provider: 'google', meaning: 'the user receives mail too fast (not greylisting)', code: /^450$/, enhanced: /^4\.2\.1$/, text: /receiving mail at a rate/i, class: 'rate_limited', example: '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. Please resend your message at a later point.' },
  { provider: 'google', meaning: 'unusual rate from our IP', code: /^4\d\d$/, enhanced: /^4\.7\.28$/, text: /unusual rate/i, class: 'rate_limited', example: '421 4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited.' },
  { provider: 'google', meaning: 'try again later, closing connection', code: /^421$/, enhanced: /^4\.7\.0$/, text: /try again later, closing connection/i, class: 'rate_limited', example: '421 4.7.0 Try again later, closing connection. (EHLO) d1-20020a05600c1b0100b003fb6d3b5ae3si1234wmb.2 - gsmtp' },
  { provider: 'google', meaning: 'IP not authorised / low reputation (policy)', code: /^550$/, enhanced: /^5\.7\.1$/, text: /unsolicited mail|low reputation|not authorized/i, class: 'blocked', example: '550 5.7.1 Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been blocked.' },
  // Yahoo / AOL (senders.yahooinc.com/smtp-error-codes).
  { provider: 'yahoo', meaning: 'no such account', code: /^55\d$/, enhanced: null, text: /doesn't have an? \S+ account|user doesn't exist/i, class: 'mailbox_not_found', example: "554 delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1234.mail.gq1.yahoo.com" },
  { provider: 'yahoo', meaning: 'IP on a blocklist [BL21] (policy)', code: /^5\d\d$/, enhanced: null, text: /\[BL\d+\]|\[RL\d+\]/, class: 'blocked', example: "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes" },
  { provider: 'yahoo', meaning: 'deferred for volume or complaints [TSS04]', code: /^4\d\d$/, enhanced: null, text: /\[TS[S]?\d+\]|temporarily deferred due to/i, class: 'rate_limited', example: '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes' },
  { provider: 'yahoo', meaning: 'mailbox disabled or over quota', code: /^55\d$/, enhanced: null, text: /mailbox (is )?(disabled|inactive)|account is disabled/i, class: 'mailbox_disabled', example: '554 delivery error: dd Sorry, your message to someone@aol.com cannot be delivered. This mailbox is disabled (554.30). - mta1234.mail.bf1.yahoo.com' },
  // Apple iCloud (support.apple.com/102322).
  { provider: 'apple', meaning: 'user does not exist', code: /^550$/, enhanced: /^5\.1\.1$/, text: /user does not exist/i, class: 'mailbox_not_found', example: '550 5.1.1 <someone@icloud.com>: user does not exist' },
  { provider: 'apple', meaning: 'rejected by local policy [CS01] (policy)', code: /^5\d\d$/, enhanced: /^5\.7\.1$/, text: /\[CS\d+\]|local policy/i, class: 'blocked', example: '554 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137' },
  { provider: 'apple', meaning: 'too many connections [HM08] (throttling)', code: /^4\d\d$/, enhanced: null, text: /\[HM\d+\]|too many/i, class: 'rate_limited', example: '421 4.7.0 [HM08] Too many connections from your IP. Please try again later' },
  // Proton Mail.
  { provider: 'protonmail', meaning: 'address does not exist', code: /^550$/, enhanced: /^5\.1\.1$/, text: /address does not exist/i, class: 'mailbox_not_found', example: '550 5.1.1 <someone@proton.me>: Recipient address rejected: Address does not exist' },
  { provider: 'protonmail', meaning: 'sender IP rejected (policy)', code: /^5\d\d$/, enhanced: /^5\.7\.1$/, text: /client host rejected|blocklisted/i, class: 'blocked', example: '554 5.7.1 <unknown[192.0.2.1]>: Client host rejected: Sender IP is blocklisted' },
  // Zoho Mail.
  { provider: 'zoho', meaning: 'user does not exist', code: /^550$/, enhanced: /^5\.1\.1$/, text: /user does not exist/i, class: 'mailbox_not_found', example: '550 5.1.1 User does not exist - someone@zohomail.com' },
  { provider: 'zoho', meaning: 'relaying disallowed: a domain Zoho does not host (not a mailbox verdict)', code: /^553$/, enhanced: null, text: /relaying disallowed/i, class: 'blocked', example: '553 Relaying disallowed. Invalid Domain - someone@unhosted-example.org' },
  { provider: 'zoho', meaning: 'unusual sending activity (policy)', code: /^5\d\d$/, enhanced: /^5\.7\.1$/, text: /unusual|policy/i, class: 'blocked', example: '550 5.7.1 Email rejected per policy of the recipient due to unusual sending activity' },
  // Common MTAs.
  { provider: 'any', meaning: 'postgrey greylisting (4.2.0, not 4.7.x)', code: /^45\d$/, enhanced: null, text: /gr[ea]ylist/i, class: 'greylisted', example: '450 4.2.0 <someone@acme-mail.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/acme-mail.com.html' },
  { provider: 'any', meaning: 'Postfix restriction "Access denied" (policy, not a missing user)', code: /^5\d\d$/, enhanced: /^5\.7\.1$/, text: /access denied/i, class: 'blocked', example: '554 5.7.1 <someone@acme-mail.com>: Recipient address rejected: Access denied' },
  { provider: 'any', meaning: 'Exim "unrouteable address" (no such local user)', code: /^550$/, enhanced: null, text: /unrouteable address/i, class: 'mailbox_not_found', example: '550 Unrouteable address' },
];
