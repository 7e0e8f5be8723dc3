import nock from 'nock';
import { HOSTED_ENGINE_URL } from '@verify-hub/core';
import App from 'verify-hub-zapier';
import { FakeEngine } from '../fakes/engine';
import { KEY, appError, appTester, rejection, throttled } from './helpers';

const verify = App.creates.verify_email.operation.perform;
const find = App.searches.find_email_verification.operation.perform;

describe('Zapier app: Verify Email Address, Find Email Verification, connection test', () => {
  const engine = new FakeEngine({ apiKey: KEY });
  let authData: Record<string, string>;

  beforeAll(async () => {
    authData = { apiKey: KEY, engineUrl: await engine.start() };
  });
  afterAll(() => engine.stop());
  // nock patches Node's HTTP client for the whole worker when imported: undone here, or the suites after this one go through it.
  afterAll(() => nock.restore());
  beforeEach(() => {
    engine.requests.length = 0;
    engine.billed = 0;
    engine.options = { apiKey: KEY };
  });

  it('verifies an address: canonical result, explanation, key only in the X-API-Key header', async () => {
    const result = await appTester(verify, { authData, inputData: { email: '  Jane.Doe@Example.COM ' } });
    expect(result).toMatchObject({
      email: 'Jane.Doe@Example.COM',
      normalized: 'Jane.Doe@example.com',
      risk: 'safe',
      score: 92,
      reason: 'deliverable',
      billable: true,
      checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none' },
      deliverability: { grade: 'A', score: 92, authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listedCount: 0, totalChecks: 10 } },
    });
    expect(result.explanation).toMatch(/^Safe to send/);
    expect(result.explanation).not.toMatch(/not checked/);
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0]!.keyMatched).toBe(true);
    expect(engine.requests[0]!.url).not.toContain(KEY);
  });

  it('normalises field set A answers with core rules and explains an unknown as not billed', async () => {
    engine.options.fieldSet = 'A';
    const risky = await appTester(verify, { authData, inputData: { email: 'disposable.x@example.com' } });
    expect(risky).toMatchObject({ risk: 'risky', reason: 'disposable', score: 55, checks: { disposable: true, roleAccount: false, catchAll: null, smtp: true, spamTrapRisk: null } });
    engine.options.fieldSet = 'B';
    const unknown = await appTester(verify, { authData, inputData: { email: 'unknown.greylist@example.com' } });
    expect(unknown).toMatchObject({ risk: 'unknown', billable: false, checks: { smtp: null, smtpCheck: 'timeout' } });
    expect(unknown.explanation).toMatch(/^Unknown: the mail server did not answer in time\. This result was not billed; try again later/);
    expect(unknown.explanation).not.toMatch(/not checked/);
    expect(engine.billed).toBe(1);
  });

  it('says "not checked" where no SMTP conversation happened (smtp_check "not_checked", or set A\'s smtp_valid null)', async () => {
    const b = await appTester(verify, { authData, inputData: { email: 'notchecked.b@example.com' } });
    expect(b).toMatchObject({ risk: 'risky', checks: { smtp: null, smtpCheck: 'not_checked' } });
    expect(b.explanation).toMatch(/Mailbox not checked: no SMTP conversation/);
    expect(b.explanation).not.toMatch(/refused/);
    engine.options.fieldSet = 'A';
    const a = await appTester(verify, { authData, inputData: { email: 'notchecked.a@example.com' } });
    expect(a).toMatchObject({ checks: { smtp: null, smtpCheck: null, mx: true } });
    expect(a.explanation).toMatch(/Mailbox not checked/);
  });

  it('reads values outside the known vocabularies as they came, and answers with flags from a mixed answer', async () => {
    engine.options.fieldSet = 'B-unseen';
    const unseen = await appTester(verify, { authData, inputData: { email: 'fine@example.com' } });
    expect(unseen).toMatchObject({ risk: 'safe', score: 92, checks: { smtpCheck: 'probably_ok', smtp: null, spamTrapRisk: 'negligible-ish' }, deliverability: { authentication: { spf: 'hardfail-ish' } } });
    engine.options.fieldSet = 'AB';
    const mixed = await appTester(verify, { authData, inputData: { email: 'disposable.ab@example.com' } });
    expect(mixed).toMatchObject({ risk: 'risky', checks: { disposable: true, smtpCheck: 'deliverable' } });
  });

  it('answers an impossible address as invalid without an engine call, and an empty one with an error naming the field', async () => {
    const result = await appTester(verify, { authData, inputData: { email: 'no-at-sign' } });
    expect(result).toMatchObject({ risk: 'invalid', reason: 'syntax', billable: false });
    const error = appError(await rejection(appTester(verify, { authData, inputData: { email: '   ' } })));
    expect(error.message).toMatch(/^Email Address: is empty/);
    expect(engine.requests).toHaveLength(0);
  });

  it('a bad key is an ExpiredAuthError the user can act on, and never echoes the key', async () => {
    const error = await rejection(appTester(verify, { authData: { ...authData, apiKey: 'vh_wrongkey' }, inputData: { email: 'a@example.com' } }));
    expect(error.name).toBe('ExpiredAuthError');
    expect(error.message).toMatch(/rejected the API key.*Reconnect/);
    expect(error.message).not.toContain('vh_wrongkey');
    expect(engine.requests).toHaveLength(1); // no retry for 401
  });

  describe.each(['epoch-seconds', 'epoch-ms', 'seconds-from-now'] as const)('429 rate limit with X-RateLimit-Reset as %s', (form) => {
    it('becomes a ThrottledError whose delay comes from X-RateLimit-Reset (no Retry-After is sent)', async () => {
      engine.script('busy@example.com', { kind: 'rate-limited', resetInMs: 42_000, form });
      const error = throttled(await rejection(appTester(verify, { authData, inputData: { email: 'busy@example.com' } })));
      expect(error.name).toBe('ThrottledError');
      // 42 s away; epoch-seconds rounds the reset up to the next whole second
      expect(error.delay).toBeGreaterThanOrEqual(40);
      expect(error.delay).toBeLessThanOrEqual(43);
      expect(engine.callsFor('busy@example.com')).toBe(1);
    });
  });

  it('quota exhausted (code or far reset) is an error naming the remedy', async () => {
    engine.script('q1@example.com', { kind: 'quota' });
    const coded = appError(await rejection(appTester(verify, { authData, inputData: { email: 'q1@example.com' } })));
    expect(coded).toMatchObject({ code: 'QUOTA_EXCEEDED', status: 429 });
    expect(coded.message).toMatch(/Buy a credit pack or upgrade your plan/);
    // no body code: a reset days away means quota, not rate
    engine.script('q2@example.com', { kind: 'quota', code: null, resetInMs: 3 * 24 * 3600 * 1000 });
    const uncoded = await rejection(appTester(verify, { authData, inputData: { email: 'q2@example.com' } }));
    expect(appError(uncoded).code).toBe('QUOTA_EXCEEDED');
  });

  it('the real quota of the fake engine: the next verification after the last credit fails with the remedy', async () => {
    engine.options.quota = 1;
    await appTester(verify, { authData, inputData: { email: 'first@example.com' } });
    const error = appError(await rejection(appTester(verify, { authData, inputData: { email: 'second@example.com' } })));
    expect(error.message).toMatch(/credit pack/);
  });

  it('engine trouble is retried, then the address is unknown (not billed) instead of failing the Zap', async () => {
    engine.script('flaky@example.com', { kind: 'status', status: 503 }, { kind: 'result', risk: 'invalid' });
    const recovered = await appTester(verify, { authData, inputData: { email: 'flaky@example.com' } });
    expect(recovered.risk).toBe('invalid');
    expect(engine.callsFor('flaky@example.com')).toBe(2);
    engine.script('down@example.com', { kind: 'status', status: 500 });
    const down = await appTester(verify, { authData, inputData: { email: 'down@example.com' } });
    expect(down).toMatchObject({ risk: 'unknown', reason: 'engine_error', billable: false });
    expect(engine.callsFor('down@example.com')).toBe(3); // first try + 2 retries
  });

  it('search returns the result, or nothing when its risk is not among Only Risks', async () => {
    expect(await appTester(find, { authData, inputData: { email: 'ok@example.com' } })).toHaveLength(1);
    const hit = await appTester(find, { authData, inputData: { email: 'invalid.x@example.com', risks: ['invalid', 'unknown'] } });
    expect(hit.map((r) => r.risk)).toEqual(['invalid']);
    expect(await appTester(find, { authData, inputData: { email: 'fine@example.com', risks: ['invalid'] } })).toEqual([]);
    const bad = appError(await rejection(appTester(find, { authData, inputData: { email: 'a@example.com', risks: ['dangerous'] } })));
    expect(bad.message).toMatch(/^Only Risks: "dangerous"/);
  });

  it('the connection test accepts a good key without spending a credit and refuses a bad one clearly', async () => {
    const ok = await appTester(App.authentication.test, { authData });
    expect(ok).toEqual({ engineUrl: authData.engineUrl, keyAccepted: true });
    expect(engine.requests[0]).toMatchObject({ email: undefined, keyMatched: true });
    expect(engine.billed).toBe(0);
    const bad = appError(await rejection(appTester(App.authentication.test, { authData: { ...authData, apiKey: 'nope' } })));
    expect(bad).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(bad.message).toMatch(/rejected this API key/);
    const badUrl = appError(await rejection(appTester(App.authentication.test, { authData: { ...authData, engineUrl: 'ftp://x' } })));
    expect(badUrl.message).toMatch(/^Engine URL: must start with https/);
    const withPassword = appError(await rejection(appTester(App.authentication.test, { authData: { ...authData, engineUrl: 'https://user:s3cret@engine.example.com' } })));
    expect(withPassword.message).toMatch(/^Engine URL: must not contain a user name or password/);
    expect(withPassword.message).not.toContain('s3cret');
  });

  it('labels the connection with the engine host and the key prefix only', async () => {
    const label = await appTester(App.authentication.connectionLabel, { authData });
    expect(label).toBe(`${new URL(authData.engineUrl!).host} (key vh_…)`);
    expect(label).not.toContain(KEY.slice(3));
  });

  it('uses the hosted engine when no Engine URL is given', async () => {
    const scope = nock(HOSTED_ENGINE_URL, { reqheaders: { 'x-api-key': KEY } })
      .get('/api/v1/verify')
      .query({ email: 'hosted@example.com' })
      .reply(200, { email: 'hosted@example.com', risk: 'safe', score: 97, syntax_valid: true, mx_found: true, smtp_check: 'deliverable' });
    try {
      const result = await appTester(verify, { authData: { apiKey: KEY }, inputData: { email: 'hosted@example.com' } });
      expect(result).toMatchObject({ risk: 'safe', score: 97 });
      expect(scope.isDone()).toBe(true);
    } finally {
      nock.cleanAll();
    }
  });

  it('sends each credential only to its own service: the key to the engine, the admin token to the hub, neither elsewhere', async () => {
    const seen: Record<string, { key: boolean; bearer: boolean }> = {};
    const record = (name: string) =>
      function (this: { req: { headers: Record<string, string | undefined> } }) {
        seen[name] = { key: this.req.headers['x-api-key'] !== undefined, bearer: this.req.headers.authorization !== undefined };
        return {};
      };
    nock('https://elsewhere.example.net').get('/x').reply(200, record('elsewhere'));
    nock('https://hub.example.net').get('/api/runs').reply(200, record('hub'));
    nock('https://engine.example.net').get('/prefix/api/v1/verify').query(true).reply(200, record('engine'));
    const withHub = { apiKey: KEY, engineUrl: 'https://engine.example.net/prefix/', hubUrl: 'https://hub.example.net', hubToken: 'hub-admin-token' };
    try {
      await appTester(async (z) => {
        for (const url of ['https://elsewhere.example.net/x', 'https://hub.example.net/api/runs', 'https://engine.example.net/prefix/api/v1/verify?email=a@b.c']) await z.request({ url });
        return null;
      }, { authData: withHub });
      expect(seen).toEqual({ elsewhere: { key: false, bearer: false }, hub: { key: false, bearer: true }, engine: { key: true, bearer: false } });
    } finally {
      nock.cleanAll();
    }
  });
});
