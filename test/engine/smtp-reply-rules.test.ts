import { REPLY_RULES, catchAllProbeWorthIt, classifyReply, detectProvider, parseReply } from '@verify-hub/engine';

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
