import { checksInWords, suggestedAddress, VerificationSchema, type Verification } from '@verify-hub/core';

function result(checks: Record<string, unknown>, email = 'someone@gmial.com'): Verification {
  return VerificationSchema.parse({
    email,
    normalized: email,
    score: 40,
    risk: 'risky',
    reason: 'catch_all',
    checks: { syntax: true, mx: true, smtp: null, smtpCheck: null, disposable: false, roleAccount: null, catchAll: null, freeProvider: true, spamTrapRisk: null, ...checks },
    checkedAt: '2026-11-23T18:00:00.000Z',
    billable: true,
  });
}

describe('plain words for one result', () => {
  it('suggestedAddress: a suggested domain goes after the local part; a whole address is kept; none is null', () => {
    expect(suggestedAddress(result({ typoSuggestion: 'gmail.com' }))).toBe('someone@gmail.com');
    expect(suggestedAddress(result({ typoSuggestion: 'some.one@gmail.com' }))).toBe('some.one@gmail.com');
    expect(suggestedAddress(result({ typoSuggestion: null }))).toBeNull();
    expect(suggestedAddress(result({ typoSuggestion: '  ' }))).toBeNull();
    expect(suggestedAddress(result({}))).toBeNull();
  });

  it('checksInWords: a check not made says "not checked", never "no"; the typo row only when the engine reports one', () => {
    const words = Object.fromEntries(checksInWords(result({ catchAll: false, typoSuggestion: 'gmail.com' })).map((c) => [c.check, c]));
    expect(words.syntax).toMatchObject({ value: 'well-formed', checked: true });
    expect(words.mx).toMatchObject({ value: 'found', checked: true });
    expect(words.smtp).toMatchObject({ value: 'not checked', checked: false });
    expect(words.roleAccount).toMatchObject({ value: 'not checked', checked: false });
    expect(words.catchAll).toMatchObject({ value: 'no', checked: true });
    expect(words.freeProvider).toMatchObject({ value: 'yes' });
    expect(words.spamTrapRisk).toMatchObject({ value: 'not checked' });
    expect(words.typoSuggestion).toMatchObject({ value: 'likely: did you mean someone@gmail.com?' });
    expect(checksInWords(result({})).map((c) => c.check)).not.toContain('typoSuggestion');
    expect(Object.fromEntries(checksInWords(result({ typoSuggestion: null })).map((c) => [c.check, c.value])).typoSuggestion).toBe('none found');
  });

  it('checksInWords: SMTP outcomes in words, an unseen one as it came', () => {
    const smtp = (checks: Record<string, unknown>) => checksInWords(result(checks)).find((c) => c.check === 'smtp')!.value;
    expect(smtp({ smtp: true, smtpCheck: 'deliverable' })).toBe('the mail server accepts this mailbox');
    expect(smtp({ smtp: false, smtpCheck: 'undeliverable' })).toBe('the mail server refuses this mailbox');
    expect(smtp({ smtpCheck: 'not_checked' })).toBe('not checked');
    expect(smtp({ smtp: true })).toBe('the mail server accepts this mailbox');
    expect(smtp({ smtpCheck: 'probably_ok' })).toBe('probably ok');
  });
});
