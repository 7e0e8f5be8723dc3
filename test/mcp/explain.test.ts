import { explainResult, explanationText } from '@verify-hub/mcp';

describe('explainResult', () => {
  test('safe: send, with the reason in plain words', () => {
    const e = explainResult({ email: 'a@b.test', risk: 'safe', score: 92, reason: 'deliverable', checks: { freeProvider: true } });
    expect(e.verdict).toBe('send');
    expect(e.headline).toBe('a@b.test is safe to send to (score 92/100).');
    expect(e.explanation).toMatch(/^The mail server confirmed that the mailbox exists/);
    expect(e.factors).toEqual(['It is at a free mail provider (a personal address, not a company one).']);
  });

  test('risky: send with caution, one factor per signal', () => {
    const e = explainResult({ risk: 'risky', reason: 'catch_all', checks: { catchAll: true, catchAllConfidence: 0.7, roleAccount: true, disposable: true } });
    expect(e.verdict).toBe('send_with_caution');
    expect(e.factors).toHaveLength(3);
    expect(e.factors.join(' ')).toContain('catch-all) (confidence 70%)');
    expect(e.explanation).toContain('accepts mail for any address');
  });

  test('invalid: do not send, whatever the reason code', () => {
    expect(explainResult({ risk: 'invalid', reason: 'no_mx' }).explanation).toContain('no mail server');
    expect(explainResult({ risk: 'invalid', reason: 'some_new_code' })).toMatchObject({ verdict: 'do_not_send', explanation: expect.stringContaining('"some_new_code"') });
  });

  test('a high spam-trap risk is never worth sending, even when risky', () => {
    expect(explainResult({ risk: 'risky', checks: { spamTrapRisk: 'high' } }).verdict).toBe('do_not_send');
    expect(explainResult({ risk: 'risky', checks: { spamTrapRisk: 'medium' } }).verdict).toBe('send_with_caution');
  });

  test('unknown: retry later, not a reason to remove the address, no credit used', () => {
    const e = explainResult({ email: 'x@y.test', risk: 'unknown', reason: 'smtp_timeout' });
    expect(e.verdict).toBe('retry_later');
    expect(e.explanation).toContain('did not answer in time');
    expect(e.explanation).toContain('no credit was charged');
  });

  test('domain reputation signals become factors, and the text lists them', () => {
    const e = explainResult({
      risk: 'safe',
      deliverability: { authentication: { spf: true, dkim: false, dmarc: false }, blacklist: { listed: true, listedCount: 2, totalChecks: 50 } },
    });
    expect(e.factors).toEqual(['The domain is on 2 of 50 blocklists.', 'The domain lacks DKIM, DMARC, so its own mail may land in spam.']);
    expect(explanationText(e).split('\n')).toHaveLength(4);
  });
});
