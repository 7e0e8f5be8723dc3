import { readEngineAnswer, type Verification } from '@verify-hub/core';
import { ExplainInputSchema, explainResult, explanationText, toPortableResult } from '@verify-hub/mcp';
import { resultBody, type FieldSet, type ResultBehaviour } from '../fakes/engine';

/** What the hub makes of the fake engine's answer in a given field set (core's one wire reading). */
function fromEngine(email: string, b: ResultBehaviour, fieldSet: FieldSet = 'B'): Verification {
  const reading = readEngineAnswer(resultBody(email, b, fieldSet), email, email);
  if (!reading.ok) throw new Error(reading.problem);
  return reading.verification;
}

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
      deliverability: { authentication: { spf: 'strict', dkim: 'missing', dmarc: 'missing' }, blacklist: { listed: true, listedCount: 2, totalChecks: 50 } },
    });
    expect(e.factors).toEqual(['The domain is on 2 of 50 blocklists.', 'The domain lacks DKIM, DMARC, so its own mail may land in spam.']);
    expect(explanationText(e).split('\n')).toHaveLength(4);
  });

  test('no SMTP conversation (smtp_check "not_checked"): says the mailbox was not checked, never that the server refused it', () => {
    const v = fromEngine('a@reserved.test', { kind: 'result', risk: 'risky', flags: { smtpCheck: 'not_checked', catchAll: false } });
    expect(v.checks).toMatchObject({ smtp: null, smtpCheck: 'not_checked' });
    const e = explainResult(ExplainInputSchema.parse(toPortableResult(v)));
    const text = explanationText(e);
    expect(text).toContain('not checked over SMTP');
    expect(text).not.toMatch(/refused/);
  });

  test('field set A with smtp_valid null: not checked, and a "deliverable" reason does not claim an SMTP confirmation', () => {
    const v = fromEngine('b@example.com', { kind: 'result', risk: 'safe', reason: 'deliverable', flags: { smtpCheck: null } }, 'A');
    expect(v.checks).toMatchObject({ smtp: null, smtpCheck: null });
    const e = explainResult(ExplainInputSchema.parse(toPortableResult(v)));
    expect(e.verdict).toBe('send');
    expect(e.explanation).toContain('the mailbox itself was not checked over SMTP');
    expect(e.explanation).not.toContain('confirmed that the mailbox exists');
    expect(e.factors.join(' ')).toContain('not checked over SMTP');
  });

  test('a refused mailbox is still said so, and an undecided outcome names it', () => {
    const refused = fromEngine('c@example.com', { kind: 'result', risk: 'invalid' });
    expect(explainResult(ExplainInputSchema.parse(toPortableResult(refused))).factors).toContain('The mail server refused the mailbox.');
    const greylisted = explainResult(ExplainInputSchema.parse(toPortableResult(fromEngine('d@example.com', { kind: 'result', risk: 'unknown', flags: { smtpCheck: 'greylisted' } }))));
    expect(greylisted.factors.join(' ')).toContain('did not confirm the mailbox (outcome "greylisted")');
    expect(greylisted.factors.join(' ')).not.toMatch(/refused|not checked/);
  });

  test('takes the published shape: authentication strings, spam_trap_risk "low", and values it has never seen', () => {
    const published = fromEngine('e@example.com', { kind: 'result', risk: 'safe', flags: { disposable: true } });
    expect(published.deliverability?.authentication).toEqual({ spf: 'strict', dkim: 'found', dmarc: 'reject' });
    const e = explainResult(ExplainInputSchema.parse(toPortableResult(published)));
    expect(e.factors.join(' ')).toContain('disposable');
    expect(e.factors.join(' ')).not.toContain('lacks');

    const unseen = fromEngine('f@example.com', { kind: 'result', risk: 'risky' }, 'B-unseen');
    const parsed = ExplainInputSchema.safeParse(toPortableResult(unseen));
    expect(parsed.success).toBe(true);
    expect(explainResult(parsed.data!).factors.join(' ')).toContain('did not confirm the mailbox (outcome "accepts_everything")');

    const missing = explainResult({ risk: 'safe', deliverability: { authentication: { spf: 'missing', dkim: 'found' } } });
    expect(missing.factors).toEqual(['The domain lacks SPF, so its own mail may land in spam.']);
  });
});
