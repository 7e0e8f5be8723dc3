import App from 'verify-hub-zapier';
import { FakeEngine } from '../fakes/engine';
import { KEY, appError, appTester, rejection, throttled } from './helpers';

const verifyList = App.creates.verify_email_list.operation.perform;

describe('Zapier app: Verify Email List', () => {
  const engine = new FakeEngine({ apiKey: KEY });
  let authData: Record<string, string>;

  beforeAll(async () => {
    authData = { apiKey: KEY, engineUrl: await engine.start() };
  });
  afterAll(() => engine.stop());
  beforeEach(() => {
    engine.requests.length = 0;
    engine.billed = 0;
    engine.options = { apiKey: KEY };
  });

  it('takes line items and comma/newline lists, answers every input in order, with counts and per-risk lists', async () => {
    const result = await appTester(verifyList, {
      authData,
      inputData: { emails: ['ann@example.com', 'invalid.bob@example.com, risky.cat@example.com\nunknown.dan@example.com', ' ann@EXAMPLE.com ', 'not-an-address'] },
    });
    expect(result.results.map((r) => [r.email, r.risk])).toEqual([
      ['ann@example.com', 'safe'],
      ['invalid.bob@example.com', 'invalid'],
      ['risky.cat@example.com', 'risky'],
      ['unknown.dan@example.com', 'unknown'],
      ['ann@example.com', 'safe'], // the duplicate shares the first answer (trimmed spelling of the input)
      ['not-an-address', 'invalid'],
    ]);
    expect(result).toMatchObject({ total: 6, safe: 2, risky: 1, invalid: 2, unknown: 1, unfinished: 0, credits_used: 3, note: 'All addresses were checked.' });
    expect(result.invalid_emails).toBe('invalid.bob@example.com, not-an-address');
    expect(result.results[3]!.explanation).toMatch(/not billed/);
    // deduped: ann once; the impossible address never reached the engine
    expect(engine.requests.map((r) => r.email).sort()).toEqual(['ann@example.com', 'invalid.bob@example.com', 'risky.cat@example.com', 'unknown.dan@example.com']);
  });

  it('refuses more than 100 addresses or none, naming the field', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `u${i}@example.com`).join(',');
    const tooMany = appError(await rejection(appTester(verifyList, { authData, inputData: { emails: many } })));
    expect(tooMany.message).toMatch(/^Email Addresses: 101 addresses given, at most 100/);
    const none = appError(await rejection(appTester(verifyList, { authData, inputData: { emails: [' ', ''] } })));
    expect(none.message).toMatch(/^Email Addresses: no email address given/);
    expect(engine.requests).toHaveLength(0);
  });

  it('verifies with bounded concurrency: 20 addresses at 150 ms each take at least 4 rounds of 5', async () => {
    engine.options.latencyMs = 150;
    const started = Date.now();
    const result = await appTester(verifyList, { authData, inputData: { emails: Array.from({ length: 20 }, (_, i) => `c${i}@example.com`) } });
    const elapsed = Date.now() - started;
    expect(result.safe).toBe(20);
    expect(elapsed).toBeGreaterThanOrEqual(4 * 150 - 20); // 20 / LIST_CONCURRENCY(5) rounds; unbounded would take ~150 ms
  });

  it('answers within its time budget: hanging and slow addresses come back unknown (not billed) with an explanation', async () => {
    engine.script('hangs@example.com', { kind: 'hang' });
    engine.script('slow@example.com', { kind: 'result', risk: 'safe', latencyMs: 2_500 });
    const started = Date.now();
    const result = await appTester(verifyList, {
      authData,
      inputData: { emails: 'a@example.com\nhangs@example.com\nslow@example.com\ninvalid.b@example.com', timeBudgetSeconds: 1 },
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(5_000);
    expect(result.results.map((r) => [r.email, r.risk, r.reason])).toEqual([
      ['a@example.com', 'safe', 'deliverable'],
      ['hangs@example.com', 'unknown', 'time_budget_exceeded'],
      ['slow@example.com', 'unknown', 'time_budget_exceeded'],
      ['invalid.b@example.com', 'invalid', 'mailbox_not_found'], // field set B carries no reason code: core reads it from smtp_check
    ]);
    expect(result.results[1]).toMatchObject({ billable: false });
    expect(result.results[1]!.explanation).toMatch(/did not finish within the time Zapier allows.*not billed/);
    expect(result).toMatchObject({ unfinished: 2, unknown: 2, credits_used: 2 });
    expect(result.note).toMatch(/did not finish/);
  });

  it('waits out a short rate limit inside the budget and finishes the list', async () => {
    engine.script('r@example.com', { kind: 'rate-limited', resetInMs: 300, form: 'epoch-ms' }, { kind: 'result', risk: 'safe' });
    const result = await appTester(verifyList, { authData, inputData: { emails: ['r@example.com', 's@example.com'] } });
    expect(result).toMatchObject({ safe: 2, unfinished: 0 });
    expect(engine.callsFor('r@example.com')).toBe(2);
  });

  it('a rate limit beyond the budget with nothing done is a ThrottledError with the reset delay', async () => {
    engine.script('r1@example.com', { kind: 'rate-limited', resetInMs: 90_000, form: 'seconds-from-now' });
    const error = throttled(await rejection(appTester(verifyList, { authData, inputData: { emails: 'r1@example.com', timeBudgetSeconds: 2 } })));
    expect(error.name).toBe('ThrottledError');
    expect(error.delay).toBeGreaterThanOrEqual(88);
    expect(error.delay).toBeLessThanOrEqual(91);
  });

  it('quota: partial results are kept and the rest is unknown with the remedy; with nothing done the step fails with it', async () => {
    // five verifications start at once (LIST_CONCURRENCY); the third hits the quota, the two beside it still finish
    // (the quota answer is immediate, the others take 300 ms, so no worker is free to start q6 before it)
    engine.options.latencyMs = 300;
    engine.script('q3@example.com', { kind: 'quota' });
    const emails = ['q1@example.com', 'q2@example.com', 'q3@example.com', 'q4@example.com', 'q5@example.com', 'q6@example.com'];
    const partial = await appTester(verifyList, { authData, inputData: { emails } });
    expect(partial.results.map((r) => `${r.email}:${r.risk}:${r.reason}`)).toEqual([
      'q1@example.com:safe:deliverable',
      'q2@example.com:safe:deliverable',
      'q3@example.com:unknown:quota_exhausted',
      'q4@example.com:safe:deliverable',
      'q5@example.com:safe:deliverable',
      'q6@example.com:unknown:quota_exhausted',
    ]);
    expect(partial).toMatchObject({ unfinished: 2, credits_used: 4 });
    expect(partial.note).toMatch(/Buy a credit pack or upgrade your plan/);
    expect(engine.callsFor('q6@example.com')).toBe(0);
    engine.options.quota = 0;
    const none = appError(await rejection(appTester(verifyList, { authData, inputData: { emails } })));
    expect(none).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(none.message).toMatch(/credit pack/);
  });

  it('a bad key fails the whole step with ExpiredAuthError', async () => {
    const error = await rejection(appTester(verifyList, { authData: { ...authData, apiKey: 'wrong' }, inputData: { emails: 'a@example.com,b@example.com' } }));
    expect(error.name).toBe('ExpiredAuthError');
  });
});
