import { GATEWAY_CODES, REPLY_RULES, TEXT_EVIDENCE, catchAllProbeWorthIt, classifyReply, detectProvider, gatewayEvidence, parseReply, textEvidence } from '@verify-hub/engine';

describe('documented provider answers (REPLY_RULES): each row, with its example reply', () => {
  it.each(REPLY_RULES.map((rule) => [rule.provider, rule.meaning, rule.example, rule.class] as const))('%s: %s -> %s', (_provider, _meaning, example, expected) => {
    expect(classifyReply(parseReply([example]))).toBe(expected);
  });

  it('no row ever calls a policy or temporary answer a missing mailbox: only 5xx rows can, and only with positive wording', () => {
    for (const rule of REPLY_RULES.filter((r) => r.class === 'mailbox_not_found')) {
      expect(rule.example).toMatch(/^5\d\d /);
      expect(rule.example).toMatch(/not exist|not found|doesn't have|access denied|unrouteable|S2017062302/i);
    }
  });

  it('Microsoft 365 "5.4.1 Access denied" is a missing user, while a Postfix "5.7.1 Access denied" is a policy block', () => {
    expect(classifyReply(parseReply(['550 5.4.1 Recipient address rejected: Access denied. AS(201806281)']))).toBe('mailbox_not_found');
    expect(classifyReply(parseReply(['554 5.7.1 <x@acme-mail.com>: Recipient address rejected: Access denied']))).toBe('blocked');
  });

  it("Gmail's \"receiving mail at a rate\" is a rate limit, not greylisting", () => {
    expect(classifyReply(parseReply(['450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.']))).toBe('rate_limited');
  });
});

describe('provider catalogue', () => {
  it.each([
    ['aspmx.l.google.com', 'google'],
    ['alt2.aspmx.l.google.com.', 'google'],
    ['smtp.google.com', 'google'],
    ['acme-com.mail.protection.outlook.com', 'microsoft'],
    ['hotmail-com.olc.protection.outlook.com', 'microsoft'],
    ['acme-com.l-v1.mx.microsoft', 'microsoft'],
    ['mta7.am0.yahoodns.net', 'yahoo'],
    ['mx-aol.mail.gm0.yahoodns.net', 'yahoo'],
    ['mx01.mail.icloud.com', 'apple'],
    ['mailsec.protonmail.ch', 'protonmail'],
    ['mx.zoho.eu', 'zoho'],
    ['mx2.zoho.com.au', 'zoho'],
    ['mx.zohocloud.ca', 'zoho'],
    ['mx.acme-mail.com', null],
    ['google.com.evil.example', null],
  ])('%s -> %s', (host, id) => {
    expect(detectProvider([host])?.id ?? null).toBe(id);
  });

  it('the catch-all probe is skipped for accept-all providers and for providers’ own consumer domains, kept for hosted custom domains', () => {
    const google = detectProvider(['aspmx.l.google.com']);
    expect(catchAllProbeWorthIt(google, 'gmail.com')).toBe(false);
    expect(catchAllProbeWorthIt(google, 'acme-mail.com')).toBe(true);
    expect(catchAllProbeWorthIt(detectProvider(['mta7.am0.yahoodns.net']), 'acme-mail.com')).toBe(false);
    expect(catchAllProbeWorthIt(null, 'acme-mail.com')).toBe(true);
  });
});

describe('text evidence over the enhanced code (TEXT_EVIDENCE): each row, with its real example', () => {
  it.each(TEXT_EVIDENCE.map((row) => [row.evidence, row.example] as const))('%s: %s', (evidence, example) => {
    expect(textEvidence(parseReply([example]).text)).toBe(evidence);
  });

  it.each([
    ['552 5.2.2 <pseudo-local-part-of-apple-icloud-mail@icloud.com>: user is over quota', 'mailbox_full'],
    ['550 5.1.1 <kijitora@example.com> - 203.0.113.222 has sent to too many recipients this hour. IB607 <http://x.co/rlbounce>', 'rate_limited'],
    ['550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.', 'rate_limited'],
    ['550 5.7.1 No such user c18si2365148hub', 'mailbox_not_found'],
    ['525 5.7.13 <neko-nyaan@example.org>: Recipient address rejected: Disabled recipient address', 'mailbox_disabled'],
    ['550 5.7.1 <kijitora@example.com>: Recipient address rejected: User kijitora@example.com temporary locked. Please try again later!', 'temporary'],
    ['550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences', 'blocked'],
    ['550 #5.1.0 Address rejected.', 'mailbox_not_found'],
    ['450 4.1.1 <kijitora@example.org>: Recipient address rejected: User unknown in virtual alias table', 'user_unknown_temporary'],
    ['450 4.2.2 Greylisted, please try again later', 'greylisted'],
  ] as const)('%s -> %s', (reply, expected) => {
    expect(classifyReply(parseReply([reply]))).toBe(expected);
  });

  it('the stage matters: a "user unknown" answering MAIL FROM is about our sender, never the recipient', () => {
    expect(classifyReply(parseReply(['550 5.1.1 <probe@verifier.example>... User unknown']), 'mail')).toBe('blocked');
    expect(classifyReply(parseReply(['450 4.1.1 <probe@verifier.example>: Sender address rejected: User unknown']), 'mail')).toBe('blocked');
    expect(classifyReply(parseReply(['421 4.7.0 Try again later']), 'greeting')).not.toBe('user_unknown_temporary');
  });
});

describe('security gateways and hosted filters (GATEWAY_CODES)', () => {
  it.each(GATEWAY_CODES.filter((row) => row.example).map((row) => [row.gateway, row.meaning, row.example!.reply, row.evidence] as const))('%s: %s', (_gateway, _meaning, reply, evidence) => {
    expect(gatewayEvidence(reply)?.evidence).toBe(evidence);
    const cls = classifyReply(parseReply([reply]));
    expect(cls).toBe(evidence === 'missing' ? 'mailbox_not_found' : evidence === 'policy' ? 'blocked' : cls);
  });

  it("Sophos's documented codes without a public reply, in the format its gateways answer", () => {
    // The format of the public XGEMAIL_0011 reply ("550 5.7.1 XGEMAIL_0011 Command rejected") with another documented code.
    expect(classifyReply(parseReply(['550 5.7.1 XGEMAIL_0004 Command rejected']))).toBe('blocked');
    expect(classifyReply(parseReply(['550 5.7.1 XGEMAIL_0010 Command rejected']))).toBe('blocked');
    expect(classifyReply(parseReply(['550 5.7.1 XGEMAIL_0014 Command rejected']))).toBe('temporary');
  });

  it('every row names its documentation', () => {
    for (const row of GATEWAY_CODES) expect(row.documentation.length).toBeGreaterThan(10);
  });
});

describe('replies not in the corpus (answers after DATA in the same collections, replayed at RCPT)', () => {
  it.each([
    ['554 Rcpt <recipient@example.net> does not exist', 'mailbox_not_found'],
    ['550 Requested action not taken: mailbox unavailable', 'ambiguous'],
  ] as const)('%s -> %s', (reply, expected) => {
    expect(classifyReply(parseReply([reply]))).toBe(expected);
  });
});
