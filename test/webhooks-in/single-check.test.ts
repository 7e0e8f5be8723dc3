import request from 'supertest';
import { EngineClient } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';
import { ADMIN_TOKEN, bearer, createHarness, type Harness } from './harness';

/** `POST /api/verify`: one address checked by the hub's engine (the fake engine over HTTP), explained in plain words. */
describe('single-address check (POST /api/verify)', () => {
  const engine = new FakeEngine({ extensions: true });
  let h: Harness;

  beforeAll(async () => {
    await engine.start();
    const verifier = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
    h = await createHarness({ verifier, singleCheck: { perMinute: 12 } });
  });
  afterAll(async () => {
    await h.close();
    await engine.stop();
  });

  it('answers the canonical result with its plain-words explanation, each check and the typo suggestion; no run is touched', async () => {
    engine.script('someone@gmial.com', { kind: 'result', risk: 'risky', reason: 'catch_all', fields: { did_you_mean: 'gmail.com', smtp_check: 'not_checked', is_catch_all: null } });
    const res = await request(h.hub.app).post('/api/verify').set(bearer).send({ email: ' someone@gmial.com ' });
    expect(res.status).toBe(200);
    expect(res.body.verification).toMatchObject({ email: 'someone@gmial.com', risk: 'risky', score: 55, reason: 'catch_all', billable: true, checks: { typoSuggestion: 'gmail.com', smtpCheck: 'not_checked', catchAll: null } });
    expect(res.body.explanation.summary).toMatch(/^Risky: .*\(score 55\/100\)\. .*Mailbox not checked/);
    expect(res.body.explanation.reason).toMatch(/catch-all/);
    expect(res.body.explanation.didYouMean).toBe('someone@gmail.com');
    const checks = Object.fromEntries((res.body.explanation.checks as { check: string; value: string; checked: boolean }[]).map((c) => [c.check, c]));
    expect(checks.syntax).toMatchObject({ value: 'well-formed', checked: true });
    expect(checks.smtp).toMatchObject({ value: 'not checked', checked: false });
    expect(checks.catchAll).toMatchObject({ value: 'not checked', checked: false });
    expect(checks.typoSuggestion).toMatchObject({ value: 'likely: did you mean someone@gmail.com?' });
    // Single checks count nothing against runs.
    expect(h.runs.runs.size).toBe(0);
    expect(h.runs.events).toHaveLength(0);
  });

  it('an address without a typo has no suggestion', async () => {
    const res = await request(h.hub.app).post('/api/verify').set(bearer).send({ email: 'ada@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.verification.risk).toBe('safe');
    expect(res.body.explanation.summary).toMatch(/^Safe to send/);
    expect(res.body.explanation.didYouMean).toBeNull();
  });

  it('bad input is a 400 naming email; it reaches no engine', async () => {
    const before = engine.requests.length;
    for (const body of [{}, { email: '' }, { email: '   ' }, { email: 42 }, { email: `${'a'.repeat(320)}@example.com` }]) {
      const res = await request(h.hub.app).post('/api/verify').set(bearer).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_INPUT', field: 'body.email', error: expect.stringMatching(/^body\.email: /) });
    }
    expect(engine.requests.length).toBe(before);
  });

  it('is behind the admin auth: no token 401, a session cookie needs the CSRF header', async () => {
    expect((await request(h.hub.app).post('/api/verify').send({ email: 'ada@example.com' })).status).toBe(401);
    const signIn = await request(h.hub.app).post('/api/session').send({ token: ADMIN_TOKEN });
    const cookie = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []).find((c) => c.startsWith('vh_session='))!.split(';')[0]!;
    expect((await request(h.hub.app).post('/api/verify').set('Cookie', cookie).send({ email: 'ada@example.com' })).status).toBe(403);
    const ok = await request(h.hub.app).post('/api/verify').set('Cookie', cookie).set('X-VerifyHub-CSRF', '1').send({ email: 'ada@example.com' });
    expect(ok.status).toBe(200);
  });

  it("the engine's refusals are answered as what to do, never as a 401 (the dashboard's own session)", async () => {
    engine.script('quota@example.com', { kind: 'quota', resetInMs: 3_600_000 });
    const quota = await request(h.hub.app).post('/api/verify').set(bearer).send({ email: 'quota@example.com' });
    expect(quota.status).toBe(503);
    expect(quota.body).toMatchObject({ code: 'ENGINE_QUOTA_EXCEEDED', error: expect.stringMatching(/quota is used up until .*credit pack/) });
    expect(Number(quota.headers['retry-after'])).toBeGreaterThan(0);

    engine.rotateKey('another-key');
    try {
      const refused = await request(h.hub.app).post('/api/verify').set(bearer).send({ email: 'ada@example.com' });
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({ code: 'ENGINE_UNAUTHORIZED', error: expect.stringMatching(/ENGINE_API_KEY/) });
      expect(JSON.stringify(refused.body)).not.toContain('test-engine-key');
    } finally {
      engine.rotateKey('test-engine-key');
    }
  });

  it('is rate-limited per client address: 429 with Retry-After past the limit', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 14; i++) answers.push((await request(h.hub.app).post('/api/verify').set(bearer).send({ email: `person${i}@example.com` })).status);
    expect(answers).toContain(429);
    const limited = await request(h.hub.app).post('/api/verify').set(bearer).send({ email: 'late@example.com' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'TOO_MANY_CHECKS', error: expect.stringMatching(/at most 12 single checks a minute/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers 503 when the deployment has no engine', async () => {
    const bare = await createHarness();
    try {
      const res = await request(bare.hub.app).post('/api/verify').set(bearer).send({ email: 'ada@example.com' });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('VERIFY_DISABLED');
    } finally {
      await bare.close();
    }
  });
});
