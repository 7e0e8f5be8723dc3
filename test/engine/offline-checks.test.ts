import { classifyReply, isDisposableDomain, isFreeProviderDomain, isGibberish, isReservedDomain, isRoleAccount, parseReply, spamTrapLevel, subAddress, typoSuggestion } from '@verify-hub/engine';
import { DnsPeer } from '../fakes/mail-peers';
import { LocalEngine } from '@verify-hub/engine';

describe('checks that need no network', () => {
  let dns: DnsPeer;
  let engine: LocalEngine;
  beforeAll(async () => {
    dns = new DnsPeer(); // knows nothing: any query it gets would show up in dns.queries
    engine = new LocalEngine({ dnsServers: [await dns.start()], dnsTimeoutMs: 200, smtpPort: 1 });
  });
  afterAll(async () => {
    await dns.stop();
  });

  it.each([
    ['john@example.com'], ['john@mail.example.org'], ['john@example.net'], ['john@shop.test'], ['john@anything.example'], ['john@nothing.invalid'], ['john@box.localhost'],
  ])('%s is invalid (reserved_domain) without a single DNS query', async (address) => {
    const v = await engine.verify(address);
    expect(v).toMatchObject({ risk: 'invalid', reason: 'reserved_domain', score: 0, checks: { reservedDomain: true, mx: null, smtp: null } });
    expect(dns.queries).toEqual([]);
  });

  it('a disposable domain is risky with no network traffic', async () => {
    const v = await engine.verify('temp.user@mailinator.com');
    expect(v).toMatchObject({ risk: 'risky', reason: 'disposable', score: 20, checks: { disposable: true, freeProvider: false } });
    expect(dns.queries).toEqual([]);
  });

  it('a malformed address is invalid syntax, not billed, with the problem named', async () => {
    const v = await engine.verify('john..doe@acme-mail.com');
    expect(v).toMatchObject({ risk: 'invalid', reason: 'syntax', billable: false, checks: { syntax: false } });
    expect(String(v.checks.syntaxProblem)).toMatch(/unexpected character/);
    await expect(engine.verify('')).resolves.toMatchObject({ reason: 'syntax' });
    await expect(engine.verify(42 as unknown as string)).resolves.toMatchObject({ reason: 'syntax' });
    expect(dns.queries).toEqual([]);
  });

  it('an IP-literal address is risky without connecting anywhere', async () => {
    await expect(engine.verify('root@[192.0.2.1]')).resolves.toMatchObject({ risk: 'risky', reason: 'ip_literal' });
  });

  it('reports the local-part checks together', async () => {
    const v = await engine.verify('Sales+Leads@example.com');
    expect(v.checks).toMatchObject({ roleAccount: true, subAddressing: true, gibberish: false, spamTrapRisk: 'low' });
  });

  it('knows disposable domains from the maintained list, including wildcard subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('guerrillamail.com')).toBe(true);
    expect(isDisposableDomain('anything.33mail.com')).toBe(true);
    expect(isDisposableDomain('acme-mail.com')).toBe(false);
    expect(isDisposableDomain('gmail.com')).toBe(false);
  });

  it('knows free providers, and does not count disposable ones as free', () => {
    for (const d of ['gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com', 'proton.me', 'gmx.de']) expect(isFreeProviderDomain(d)).toBe(true);
    expect(isFreeProviderDomain('acme-mail.com')).toBe(false);
    expect(isFreeProviderDomain('mailinator.com')).toBe(false);
  });

  it('suggests the provider for a one-edit typo only', () => {
    expect(typoSuggestion('gmial.com')).toBe('gmail.com');
    expect(typoSuggestion('hotmial.com')).toBe('hotmail.com');
    expect(typoSuggestion('yahooo.com')).toBe('yahoo.com');
    expect(typoSuggestion('gmail.com')).toBeNull();
    expect(typoSuggestion('no-mail.com')).toBeNull();
    expect(typoSuggestion('acme-mail.com')).toBeNull();
  });

  it('a typo domain without mail hosts is a high spam-trap risk (one with working mail hosts is judged by SMTP: verdicts.test.ts)', async () => {
    const v = await new LocalEngine({ dnsServers: [dns.address], dnsTimeoutMs: 100, smtp: false }).verify('john@gmaill.com');
    expect(v.checks).toMatchObject({ typoSuggestion: 'gmail.com', spamTrapRisk: 'high' });
  });

  it('a typo domain on the disposable list (gmial.com is) is disposable, and still gets its suggestion', async () => {
    const v = await new LocalEngine({ dnsServers: [dns.address], dnsTimeoutMs: 100, smtp: false }).verify('john@gmial.com');
    expect(v).toMatchObject({ risk: 'risky', reason: 'disposable', checks: { typoSuggestion: 'gmail.com' } });
  });

  it('tells role accounts from people', () => {
    for (const l of ['info', 'Sales', 'support+eu', 'no-reply', 'postmaster', 'webmaster']) expect(isRoleAccount(l)).toBe(true);
    for (const l of ['john', 'maria.garcia', 'infoman', 'salesforce.dev.jane']) expect(isRoleAccount(l)).toBe(false);
  });

  it('flags keyboard noise as gibberish but not real names', () => {
    for (const l of ['xkqzvbwpt', 'asdfghjkl', 'qwerty123', 'bkwzqxpl', 'ab1234567']) expect(isGibberish(l)).toBe(true);
    for (const l of ['john', 'williams', 'maria.garcia', 'nguyen', 'kowalski', 'christopher', 'j.smith+news']) expect(isGibberish(l)).toBe(false);
  });

  it('splits sub-addresses', () => {
    expect(subAddress('john+news')).toEqual({ base: 'john', tag: 'news' });
    expect(subAddress('john')).toEqual({ base: 'john', tag: null });
    expect(subAddress('+john')).toEqual({ base: '+john', tag: null });
  });

  it('grades spam-trap risk', () => {
    const base = { localPart: 'john', typoDomain: false, roleAccount: false, gibberish: false, catchAll: false, blacklisted: false };
    expect(spamTrapLevel(base)).toBe('none');
    expect(spamTrapLevel({ ...base, localPart: 'spamtrap' })).toBe('high');
    expect(spamTrapLevel({ ...base, typoDomain: true })).toBe('high');
    expect(spamTrapLevel({ ...base, roleAccount: true, catchAll: true })).toBe('medium');
    expect(spamTrapLevel({ ...base, gibberish: true })).toBe('low');
    expect(spamTrapLevel({ ...base, blacklisted: true })).toBe('none');
  });

  it('knows the reserved names of RFC 2606 and RFC 6761 and nothing more', () => {
    for (const d of ['example.com', 'www.example.net', 'a.test', 'x.example', 'y.invalid', 'z.localhost']) expect(isReservedDomain(d)).toBe(true);
    for (const d of ['example.co', 'myexample.com', 'testing.com', 'test.com', 'invalid.org']) expect(isReservedDomain(d)).toBe(false);
  });
});

describe('SMTP reply classification: what the text says about the recipient, then the enhanced code', () => {
  it.each([
    ['250 2.1.5 OK', 'accepted'],
    ['550 5.1.1 <x@acme-mail.com>: Recipient address rejected: User unknown', 'mailbox_not_found'],
    ['550 No such user here', 'mailbox_not_found'],
    ['553 5.1.10 Recipient not found', 'mailbox_not_found'],
    // RFC 5321's generic text is often a policy block: never "missing" on its own.
    ['550 Requested action not taken: mailbox unavailable', 'ambiguous'],
    ['553 Requested action not taken: mailbox name not allowed', 'blocked'], // unknown either way, never invalid
    ['550 5.1.8 Sender address rejected: Domain not found', 'blocked'],
    ['550 5.1.4 Destination mailbox address ambiguous', 'ambiguous'],
    ['552 5.2.2 Mailbox full', 'mailbox_full'],
    ['452 4.2.2 The email account that you tried to reach is over quota', 'mailbox_full'],
    ['550 5.7.1 mailbox unavailable: over quota', 'mailbox_full'],
    ['550 5.2.1 The email account that you tried to reach is disabled', 'mailbox_disabled'],
    ['550 This account has been suspended', 'mailbox_disabled'],
    // The text outweighs the code (issue 35): a recipient named missing or suspended under 5.7.1 is so; 5.7.1 alone is policy.
    ['550 5.7.1 This account has been suspended', 'mailbox_disabled'],
    ['550 5.7.1 <x@acme-mail.com>: Recipient address rejected: User unknown', 'mailbox_not_found'],
    ['550 5.7.1 Your account has been suspended', 'blocked'], // our (the sender's) account
    ['550 User unknown; client host blocked by policy', 'blocked'], // policy words win over "user unknown"
    ['450 4.7.1 <x@acme-mail.com>: Client host rejected: cannot find your reverse hostname', 'blocked'],
    ['450 4.7.1 Greylisted, try again in 5 minutes', 'greylisted'],
    ['451 Temporary local problem - please try later', 'greylisted'],
    ['421 4.7.0 Too many connections', 'rate_limited'],
    ['421 Service not available, closing transmission channel', 'rate_limited'],
    ['452 4.3.1 Insufficient system resources', 'temporary'], // the server's resources, not the mailbox's
    ['453 4.3.0 Local error in processing', 'temporary'],
    ['554 5.7.1 Service unavailable; client host [192.0.2.1] blocked using zen.spamhaus.org', 'blocked'],
    ['550 5.7.1 Rejected by policy', 'blocked'],
    ['550 Rejected', 'ambiguous'],
    ['554 Transaction failed', 'ambiguous'],
  ])('%s -> %s', (line, expected) => {
    expect(classifyReply(parseReply([line]))).toBe(expected);
  });

  it('reads multi-line replies and their enhanced code', () => {
    const reply = parseReply(['550-5.1.1 The email account that you tried to reach does', '550-5.1.1 not exist. Please try double-checking', '550 5.1.1 the recipient address.']);
    expect(reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    expect(reply.text).toBe('The email account that you tried to reach does not exist. Please try double-checking the recipient address.');
    expect(classifyReply(reply)).toBe('mailbox_not_found');
  });
});

describe('EHLO name and envelope sender defaults', () => {
  it('the EHLO name follows the operator’s MAIL FROM domain; MAIL FROM follows an EHLO name', () => {
    expect(new LocalEngine({ mailFrom: 'probe@verifier.acme-tools.com' }).options).toMatchObject({ heloName: 'verifier.acme-tools.com', mailFrom: 'probe@verifier.acme-tools.com' });
    expect(new LocalEngine({ heloName: 'mx-check.acme-tools.com' }).options).toMatchObject({ heloName: 'mx-check.acme-tools.com', mailFrom: 'verify@mx-check.acme-tools.com' });
    const fallback = new LocalEngine().options.heloName;
    expect(fallback === 'localhost' || /\./.test(fallback)).toBe(true);
  });
});
