import { checkSyntax } from '@verify-hub/engine';

describe('checkSyntax: RFC 5321/5322 edge cases', () => {
  it.each([
    ['simple', 'john@acme-mail.com'],
    ['dots inside the local part', 'john.q.public@acme-mail.com'],
    ['sub-address tag', 'john+newsletter@acme-mail.com'],
    ['every atext symbol', "a!#$%&'*+/=?^_`{|}~-z@acme-mail.com"],
    ['quoted local part with a space', '"john doe"@acme-mail.com'],
    ['quoted local part with an @', '"john@home"@acme-mail.com'],
    ['quoted local part with consecutive dots', '"john..doe"@acme-mail.com'],
    ['quoted local part with an escaped quote', '"john\\"doe"@acme-mail.com'],
    ['IPv4 address literal', 'john@[192.0.2.1]'],
    ['IPv6 address literal', 'john@[IPv6:2001:db8::1]'],
    ['subdomain', 'john@mail.eu.acme-mail.com'],
    ['hyphen inside a label', 'john@my-acme-mail.co.uk'],
    ['local part of exactly 64 octets', `${'a'.repeat(64)}@acme-mail.com`],
    ['label of exactly 63 octets', `john@${'d'.repeat(63)}.com`],
  ])('accepts %s', (_label, address) => {
    expect(checkSyntax(address)).toMatchObject({ ok: true });
  });

  it.each([
    ['empty', ''],
    ['no @', 'john.acme-mail.com'],
    ['two @ outside quotes', 'john@doe@acme-mail.com'],
    ['leading dot', '.john@acme-mail.com'],
    ['trailing dot', 'john.@acme-mail.com'],
    ['consecutive dots', 'john..doe@acme-mail.com'],
    ['unquoted space', 'john doe@acme-mail.com'],
    ['comment in the local part', 'john(work)@acme-mail.com'],
    ['comment after the domain', 'john@acme-mail.com(work)'],
    ['unbalanced quote', '"john@acme-mail.com'],
    ['domain with consecutive dots', 'john@acme..com'],
    ['domain label starting with a hyphen', 'john@-acme.com'],
    ['domain label ending with a hyphen', 'john@acme-.com'],
    ['single-label domain', 'john@localhost'],
    ['one-letter top-level domain', 'john@acme.c'],
    ['numeric top-level domain (a bare IP without brackets)', 'john@192.0.2.1'],
    ['malformed address literal', 'john@[300.1.2.3]'],
    ['local part over 64 octets', `${'a'.repeat(65)}@acme-mail.com`],
    ['local part over 64 octets in UTF-8', `${'é'.repeat(33)}@acme-mail.com`],
    ['label over 63 octets', `john@${'d'.repeat(64)}.com`],
    ['domain over 253 octets', `john@${Array.from({ length: 5 }, () => 'd'.repeat(60)).join('.')}.com`],
    ['line break', 'john@acme-mail.com\r\nRCPT TO:<x@y.com>'],
    ['zero-width space in the local part', 'jo\u200bhn@acme-mail.com'],
    ['zero-width joiner in the local part', 'jo\u200dhn@acme-mail.com'],
    ['right-to-left override in the local part', 'john\u202egpj.exe@acme-mail.com'],
    ['bidi isolate in the local part', '\u2066john@acme-mail.com'],
    ['byte-order mark inside the local part', 'jo\ufeffhn@acme-mail.com'],
    ['unpaired surrogate in the local part', 'jo\ud800hn@acme-mail.com'],
    ['private-use character in the local part', 'jo\ue000hn@acme-mail.com'],
    ['IPv4 literal with three parts', 'john@[1.2.3]'],
    ['malformed IPv6 literal', 'john@[IPv6:zz::1]'],
    ['general address literal (tag:content)', 'john@[x400:c=us;a=;p=acme]'],
  ])('rejects %s, naming the problem', (_label, address) => {
    const result = checkSyntax(address);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.length).toBeGreaterThan(3);
  });

  it('converts an IDN domain to ASCII and keeps a UTF-8 local part (RFC 6531)', () => {
    expect(checkSyntax('jörg@bücher.de')).toEqual({ ok: true, localPart: 'jörg', domain: 'xn--bcher-kva.de', quoted: false, ipLiteral: false, idn: true });
    expect(checkSyntax('用户@例子.广告')).toMatchObject({ ok: true, domain: 'xn--fsqu00a.xn--4rr70v', idn: true });
  });

  it('checks the domain again after IDNA mapping, which can produce what the parser never saw', () => {
    expect(checkSyntax('john@mail.acme\u3002com')).toMatchObject({ ok: true, domain: 'mail.acme.com' }); // an ideographic full stop maps to a dot
    expect(checkSyntax('john@\uff41cme-mail.com')).toMatchObject({ ok: true, domain: 'acme-mail.com' }); // full-width letters map to ASCII
    expect(checkSyntax('john@mail.acme\u3002\u3002com')).toMatchObject({ ok: false, problem: 'domain is not a valid host name after IDNA mapping' });
    expect(checkSyntax('john@ac\u200bme.com')).toMatchObject({ ok: false, problem: 'domain has an invisible or unsafe Unicode character' });
  });

  it('names the unsafe Unicode and the malformed literal', () => {
    expect(checkSyntax('jo\u200bhn@acme-mail.com')).toEqual({ ok: false, problem: 'local part has an invisible or unsafe Unicode character' });
    expect(checkSyntax('john@[IPv6:zz::1]')).toEqual({ ok: false, problem: 'address literal is not a valid IPv4 or IPv6 address' });
  });

  it('lower-cases the domain but keeps the case of the local part', () => {
    expect(checkSyntax('John.Doe@ACME-Mail.COM')).toMatchObject({ ok: true, localPart: 'John.Doe', domain: 'acme-mail.com' });
  });

  it('tells a comment apart from a parenthesis inside a quoted string', () => {
    expect(checkSyntax('"john(work)"@acme-mail.com')).toMatchObject({ ok: true, quoted: true });
    expect(checkSyntax('john(work)@acme-mail.com')).toEqual({ ok: false, problem: 'comments are not allowed in an SMTP address' });
  });
});
