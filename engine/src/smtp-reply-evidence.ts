/**
 * What a reply's words say about the recipient, as data. The classifier (smtp-classify.ts) reads a reply
 * at RCPT TO in this order: documented provider answers (REPLY_RULES), security gateways' own reason codes
 * (GATEWAY_CODES), then these text rows, first match wins, and only when the text says nothing the RFC 3463
 * enhanced code. The text outweighs the code when they disagree: "550 5.7.1 No such user" is a missing
 * mailbox, "550 5.1.1 ... has sent to too many recipients this hour" a rate limit, "552 5.1.1 ... over
 * quota" a full mailbox.
 *
 * Every row carries a real reply and where it was published; test/engine/smtp-reply-rules.test.ts
 * classifies every example, and engine/test-data/smtp-replies.json holds the labelled corpus they come
 * from (engine/test-data/NOTICE.md for the sources and their licences).
 */
export type TextEvidence =
  | 'full' // the recipient's mailbox is over quota: it exists
  | 'rate' // the server limits our volume or rate (ours, or the recipient's inflow): nothing about existence
  | 'sender' // about our side: our IP, reputation, sender address, authentication, relaying
  | 'greylist'
  | 'temporary' // a temporary state of the recipient or the server ("temporarily locked", "verification in progress")
  | 'missing' // this recipient does not exist here
  | 'disabled' // this recipient exists but is disabled, suspended or closed
  | 'policy'; // another refusal by rule that names no missing mailbox

export interface EvidenceRule {
  evidence: TextEvidence;
  /** Words that say it, matched case-insensitively against the reply text. */
  text: RegExp;
  /** A real reply carrying these words. */
  example: string;
  /** Where the example was published. */
  source: string;
}

const SISIMAI = 'sisimai/set-of-emails (BSD-2-Clause)';
const BOUNCEPARSER = 'rjbs/Mail-DeliveryStatus-BounceParser t/corpus (Perl licence)';

/** In order of strength: the first matching row decides. */
export const TEXT_EVIDENCE: readonly EvidenceRule[] = [
  // A sender's quota is not the recipient's mailbox: before "quota exceeded" is read as full.
  { evidence: 'rate', text: /(daily|hourly|sending|relay|outbound|recipient|message) (sending )?(quota|limit)/i, example: '550 5.4.5 Daily sending quota exceeded', source: "Gmail's answer to an authenticated sender over its limit, quoted in public GitHub documentation (find_string)" },
  // A full mailbox first: "out of storage space and inactive" and "too many messages on the server" are full, not disabled or rate.
  { evidence: 'full', text: /mailbox (is )?full|over ?quota|quota exceeded|exceeded (the |its )?(storage|quota|disk space)|mailbox size limit|out of storage|too many messages (on|in) (the server|(the |their )?mailbox)|mailbox exceeds allowed size|disc quota/i, example: '552 5.2.2 <pseudo-local-part-of-apple-icloud-mail@icloud.com>: user is over quota', source: `${SISIMAI} maildir/bsd/rhost-apple-03.eml` },
  { evidence: 'full', text: /mailbox full|over quota/i, example: '550 5.2.2 STOREDRV.Deliver: mailbox full. The following information should help identify the cause: "MapiExceptionShutoffQuotaExceeded:00.00000:FF000000, 00.00000:0000000094000000000000000000000000000', source: `${SISIMAI} maildir/bsd/lhost-exchange2007-02.eml (prefix of the reply)` },
  // Rate and volume: about how much we send, even under a 5.1.1 or 5.2.1 code.
  { evidence: 'rate', text: /receiving mail (at a rate|too quickly)|unusual rate|rate limit|too many (connections|recipients|concurrent|sessions|messages from)|sent to too many recipients|unexpected volume|server busy|throttl|\[TSS?\d+\]/i, example: '550 5.1.1 <kijitora@example.com> - 203.0.113.222 has sent to too many recipients this hour. IB607 <http://x.co/rlbounce>', source: `${SISIMAI} maildir/bsd/rhost-godaddy-03.eml` },
  { evidence: 'rate', text: /receiving mail at a rate/i, example: '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. For more information, please visit', source: `${SISIMAI} maildir/bsd/lhost-postfix-59.eml (Gmail; prefix of the reply)` },
  // Our side: the probe's IP, reputation, sender address, authentication, relaying. Stronger than a missing-user phrase.
  { evidence: 'sender', text: /sender address rejected|sender rejected|\byour (account|ip|server|domain|host|network|mail server)\b|mail ?from domain|client host (\[[^\]]*\] )?(rejected|blocked)|blocked using|(\bip\b|address)[^.]{0,40}\b(is )?(black|block)listed|spamhaus|spamcop|sorbs|barracuda ?(reputation|central)|dnsbl|\brbl\b|reverse dns|ptr record|relay(ing)? (access )?(denied|not permitted|disallowed)|not configured to relay|\bspf\b|\bdkim\b|\bdmarc\b|reputation|unauthenticated senders?|authentication (checks )?(failed|required)|mismatches client ip|not allowed to send/i, example: '554 5.7.1 <e22-33.smtp-out.amazonses.com[192.0.2.127]>: Client host rejected: blocked using mail.neko.example.com; Please see http://mail.neko.example.com/rbl/?ip=192.0.2.127 to send.', source: `${SISIMAI} maildir/bsd/lhost-amazonses-15.eml` },
  { evidence: 'sender', text: /mismatches client ip|not allowed to send/i, example: "550 5.1.0 192.0.2.222 is not allowed to send from <example.net> per it's SPF Record. Please inspect your SPF settings, and try again. IB508 <http://x.co/rlbounce>", source: `${SISIMAI} maildir/bsd/lhost-office365-03.eml (GoDaddy; prefix of the reply)` },
  { evidence: 'greylist', text: /gr[ea]y ?list/i, example: '450 4.2.0 <schaefer@alphanet.ch>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/alphanet.ch.html', source: 'an SMTP session transcript published on GitHub (Postfix with postgrey at alphanet.ch, answering RCPT TO)' },
  { evidence: 'temporary', text: /temporar(y|ily) (locked|disabled|suspended|unavailable|blocked)|verification in progress|try again later|please retry/i, example: '550 5.7.1 <kijitora@example.com>: Recipient address rejected: User kijitora@example.com temporary locked. Please try again later!', source: `${SISIMAI} maildir/bsd/lhost-amazonses-19.eml` },
  // This recipient does not exist: beats a 5.7.x, 5.2.x or 5.3.x code.
  { evidence: 'missing', text: /no such (user|mailbox|recipient|address|account)|user ?unknown|unknown (user|recipient|mailbox|address)|(user|mailbox|recipient|rcpt|address|account)( \[?\S+\]?)? (does not|doesn't|not) exist|nonexistent (user|recipient|address)|(mailbox|recipient|user) not found|invalid (recipient|mailbox)|not a valid (mailbox|recipient)|no mail ?box (here|available|found)|unrouteable address|recip(ient)?notfound|not a known user|not an active address|no account by that name|badrcptto|bad_recipient|unknown or illegal (user|alias)|no longer on server|mailbox has moved|marked as invalid|doesn't have an? \S+ account|mailbox not found|no such domain (at this location|here)/i, example: '550 5.7.1 No such user c18si2365148hub', source: `${BOUNCEPARSER}/gmail-via-sendmail.unknown.msg` },
  { evidence: 'missing', text: /marked as invalid/i, example: '550 5.7.1 : Recipient address rejected: User email address is marked as invalid.', source: 'Proofpoint Essentials SMTP Discovery, quoted by spambrella.com/faq/email-delivery-error-codes' },
  { evidence: 'missing', text: /nonexistent user/i, example: '554 5.7.1 <aaaaagggrrriiiizz@inbox.lv>: Recipient address rejected: Nonexistent user', source: 'ronbeltran/bounce_email tests/bounces/tt_1234177688.txt (MIT)' },
  // Exists but closed: still invalid for mailing, never under a temporary wording (above).
  { evidence: 'disabled', text: /((account|mailbox|user|address)( \S+)? (has been |is )?(disabled|deactivated|inactive|suspended|closed|locked|terminated|frozen|blocked))|(disabled|deactivated) (recipient|user|account|mailbox)|no longer (active|in use)|expired account/i, example: '525 5.7.13 <neko-nyaan@example.org>: Recipient address rejected: Disabled recipient address', source: `${SISIMAI} maildir/bsd/lhost-dragonfly-27.eml` },
  { evidence: 'disabled', text: /account is blocked/i, example: '550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426', source: `${SISIMAI} maildir/bsd/rhost-franceptt-05.eml (La Poste)` },
  // Any other rule-based refusal: never a verdict on the mailbox.
  { evidence: 'policy', text: /\bpolicy\b|access denied|denied|not allowed|not authori[sz]ed|prohibited|spam|block(ed|list)|black ?list|banned|helo|refused|recipient preferences|whitelist|requires confirmation/i, example: '550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences', source: `${SISIMAI} maildir/bsd/rhost-facebook-03.eml` },
];

/** What a security gateway's own reason code says. */
export interface GatewayCode {
  gateway: string;
  /** The reason code or documented wording, matched against the reply text. */
  text: RegExp;
  meaning: string;
  evidence: 'missing' | 'policy' | 'temporary';
  /** The vendor's documentation of the code. */
  documentation: string;
  /** A real reply carrying the code, with where it was published (absent: none found in public sources). */
  example?: { reply: string; source: string };
}

export const GATEWAY_CODES: readonly GatewayCode[] = [
  { gateway: 'Sophos Email', text: /XGEMAIL_0011\b/, meaning: "the recipient's address does not exist in the protected domain", evidence: 'missing', documentation: 'https://docs.sophos.com/central/customer/help/en-us/ManageYourProducts/EmailSecurity/SMTPErrorCodes/index.html', example: { reply: '550 5.7.1 XGEMAIL_0011 Command rejected', source: 'linux-scsi mailing list, Message-ID <ZyajBhCcMv865wLZ@gallifrey> (2024-11-02), Remote-MTA mx-01-us-west-2.prod.hydra.sophos.com' } },
  { gateway: 'Sophos Email', text: /XGEMAIL_001[45]\b/, meaning: "the recipient's inbound rate limit (one sender, or all senders) was exceeded", evidence: 'temporary', documentation: 'https://docs.sophos.com/central/customer/help/en-us/ManageYourProducts/EmailSecurity/SMTPErrorCodes/index.html' },
  { gateway: 'Sophos Email', text: /XGEMAIL_00(0\d|1[0-3])\b/, meaning: "DKIM/SPF/DMARC, RBL/DBL, TLS, licence, block lists, a domain Sophos does not protect, size: the sender's side or the message, not the mailbox", evidence: 'policy', documentation: 'https://docs.sophos.com/central/customer/help/en-us/ManageYourProducts/EmailSecurity/SMTPErrorCodes/index.html' },
  { gateway: 'Mimecast', text: /\binvalid recipient\b/i, meaning: 'recipient validation failed: the address is not a known user of the Mimecast customer', evidence: 'missing', documentation: 'https://mimecastsupport.zendesk.com/hc/en-us/articles/34000709564691-Policies-Mimecast-SMTP-Error-Codes (550 Invalid Recipient); sisimai rhost/for-mimecast.go', example: { reply: '553 Invalid recipient kijitora@example.org (Mode: normal)', source: `${SISIMAI} maildir/bsd/lhost-bigfoot-02.eml` } },
  { gateway: 'Mimecast', text: /host network,? not allowed|administrative prohibition|envelope (blocked|rejected)|anti-spoofing policy|poor reputation sender/i, meaning: "blocked by the customer's policies (network, sender, anti-spoofing, reputation)", evidence: 'policy', documentation: 'https://mimecastsupport.zendesk.com/hc/en-us/articles/34000709564691-Policies-Mimecast-SMTP-Error-Codes; sisimai rhost/for-mimecast.go', example: { reply: '554 Host network not allowed - https://community.mimecast.com/docs/DOC-1369#554 [z7qZw5BPd1zlDYHka4589ru.us222]', source: `${SISIMAI} maildir/bsd/rhost-mimecast-01.eml` } },
  { gateway: 'Mimecast', text: /internal resources? (are )?temporarily unavailable|recipient temporarily unavailable|account service is temporarily unavailable/i, meaning: 'greylisting or a reputation check in progress: retry', evidence: 'temporary', documentation: 'https://mimecastsupport.zendesk.com/hc/en-us/articles/34000709564691-Policies-Mimecast-SMTP-Error-Codes (451 Internal resource temporarily unavailable)' },
  { gateway: 'Proofpoint', text: /marked as invalid/i, meaning: 'SMTP Discovery marked the recipient invalid', evidence: 'missing', documentation: 'Proofpoint Essentials SMTP Discovery; spambrella.com/faq/email-delivery-error-codes', example: { reply: '550 5.7.1 : Recipient address rejected: User email address is marked as invalid.', source: 'spambrella.com/faq/email-delivery-error-codes' } },
  { gateway: 'Proofpoint', text: /support\.proofpoint\.com\/dnsbl-lookup|\bpsmtp\b/i, meaning: "the sending IP is on Proofpoint's blocklist", evidence: 'policy', documentation: 'https://support.proofpoint.com/dnsbl-lookup.cgi', example: { reply: '554 Blocked - see https://support.proofpoint.com/dnsbl-lookup.cgi?ip=192.0.2.225', source: `${SISIMAI} maildir/bsd/lhost-postfix-38.eml` } },
  { gateway: 'Barracuda', text: /barracuda ?(reputation|central)|barracudanetworks\.com\/reputation/i, meaning: 'the sending IP has a poor Barracuda Reputation', evidence: 'policy', documentation: 'https://campus.barracuda.com/product/emailsecuritygateway/article/BSF/SMTPErrorCodes/ ; barracudacentral.org', example: { reply: '554 Service unavailable; Client host [xxxx.ro] blocked using Barracuda Reputation; http://www.barracudanetworks.com/reputation/?r=1&ip=', source: 'a Postfix log (mx1.xittel.net, RCPT TO) quoted in a public GitHub document, host anonymised by its author' } },
  { gateway: 'Cisco Secure Email (IronPort)', text: /#5\.1\.0 address rejected/i, meaning: 'the LDAP accept query found no such recipient (the default rejection of AsyncOS)', evidence: 'missing', documentation: 'Cisco Secure Email (AsyncOS) user guide, LDAP accept queries: default SMTP response "550 #5.1.0 Address rejected"', example: { reply: '550 #5.1.0 Address rejected.', source: `${SISIMAI} maildir/bsd/rfc3464-51.eml` } },
  { gateway: 'Cisco Secure Email (IronPort)', text: /rejected due to the sending MTA'?s poor reputation/i, meaning: "the Host Access Table refused the sending IP's reputation (SenderBase)", evidence: 'policy', documentation: 'Cisco Secure Email (AsyncOS) user guide, Host Access Table default reject message' },
  { gateway: 'Trend Micro Email Security', text: /\bERS-(RBL|QIL|DUL)\b|blocked using Trend Micro/i, meaning: "Trend Micro Email Reputation Services lists the sending IP", evidence: 'policy', documentation: 'Trend Micro Email Reputation Services (ERS) documentation, ers.trendmicro.com', example: { reply: '550 5.7.1 <rec@atrix.com.au>: Recipient address rejected: ERS-RBL.', source: 'pastebin.com/VaFdFSVL (a Postfix bounce from in.hes.trendmicro.com, RCPT TO)' } },
  { gateway: 'Trellix Email Security (FireEye ETP)', text: /\bETP10[12]\b/, meaning: 'invalid recipient: not a known client recipient, or rejected by the upstream MTA', evidence: 'missing', documentation: 'https://docs.trellix.com/data-and-email/docs/error-codes.md (ETP101, ETP102)' },
  { gateway: 'Trellix Email Security (FireEye ETP)', text: /\bETP103\b/, meaning: 'the upstream MTA did not answer in time to validate the recipient: deferred', evidence: 'temporary', documentation: 'https://docs.trellix.com/data-and-email/docs/error-codes.md (ETP103)' },
];

/** The text's evidence about the recipient, strongest first; null when it says nothing we read. */
export function textEvidence(text: string): TextEvidence | null {
  return TEXT_EVIDENCE.find((rule) => rule.text.test(text))?.evidence ?? null;
}

export function gatewayEvidence(text: string): GatewayCode | null {
  return GATEWAY_CODES.find((row) => row.text.test(text)) ?? null;
}
