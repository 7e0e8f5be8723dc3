import { MAX_ADDRESS, normalizeEmail } from '@verify-hub/core';

describe('normalizeEmail', () => {
  it('trims and lower-cases the domain but keeps the local part', () => {
    expect(normalizeEmail('  John.Doe@Example.COM \n')).toEqual({ ok: true, normalized: 'John.Doe@example.com', localPart: 'John.Doe', domain: 'example.com' });
  });
  it('converts an IDN domain to ASCII', () => {
    const r = normalizeEmail('anna@Bücher.example');
    expect(r.ok && r.normalized).toBe('anna@xn--bcher-kva.example');
  });
  it('keeps an address literal', () => {
    const r = normalizeEmail('x@[192.0.2.1]');
    expect(r.ok && r.domain).toBe('[192.0.2.1]');
  });
  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['no-at-sign.example.com', 'no @'],
    ['@example.com', 'empty local part'],
    ['someone@', 'empty domain'],
    [`${'a'.repeat(65)}@example.com`, 'local part over 64 characters'],
    [`a@${'b'.repeat(252)}.com`, 'domain over 255 characters'],
  ])('rejects %j (%s) with reason syntax', (input, problem) => {
    expect(normalizeEmail(input)).toEqual({ ok: false, reason: 'syntax', problem });
  });
  it('rejects non-strings', () => {
    expect(normalizeEmail(42)).toMatchObject({ ok: false, problem: 'not a string' });
    expect(normalizeEmail(undefined)).toMatchObject({ ok: false });
  });
  it('rejects an address over the total length limit', () => {
    const local = 'l'.repeat(64);
    const domain = `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.com`;
    expect(`${local}@${domain}`.length).toBeGreaterThan(MAX_ADDRESS);
    expect(normalizeEmail(`${local}@${domain}`)).toMatchObject({ ok: false, problem: `address over ${MAX_ADDRESS} characters` });
  });
  it.each([
    ['nul\u0000@example.com', /control/],
    ['a\r\nb@example.com', /control/],
    ['rtl\u202e@example.com', /direction/],
    ['zero\u200bwidth@example.com', /invisible/],
    ['lone\ud800@example.com', /control/],
    ['broken\ufffd@example.com', /control/],
    ['x@@example.com', /more than one @/],
    ['a@b@example.com', /more than one @/],
    ['.a@example.com', /starts or ends with a dot/],
    ['a.@example.com', /starts or ends with a dot/],
    ['a..b@example.com', /two dots/],
    ['a@example..com', /empty label/],
    ['a@.example.com', /empty label/],
    ['a@example.com.', /empty label/],
    [`a@${'l'.repeat(64)}.com`, /label over 63/],
    ['a@-example.com', /inner hyphens/],
    ['a@example.com, b@example.org', /several addresses/],
    ['a@example.com;b@example.org', /several addresses/],
    ['a@example.com b@example.org', /several addresses|space/],
    ['Ann <a@example.com>', /space/], ['<a@example.com>', /not allowed/],
  ])('rejects %j locally (%s): it can never be an address', (input, problem) => {
    const r = normalizeEmail(input);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe('syntax');
    expect(!r.ok && r.problem).toMatch(problem);
  });
  it.each(['"john doe"@example.com', "o'brien+tag@example.com", `x@${'l'.repeat(63)}.example.com`, 'anna@bücher.example', 'a-b.c_d@sub-1.example.co.uk', 'x@[192.0.2.1]'])(
    'still accepts %j (the engine decides)',
    (input) => expect(normalizeEmail(input).ok).toBe(true),
  );
});
