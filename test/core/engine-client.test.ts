import {
  EngineAuthError,
  EngineClient,
  EngineQuotaError,
  EngineRateLimitError,
  type EngineClientOptions,
  ConfigError,
} from '@verify-hub/core';
import { FakeEngine, type ResetForm } from '../fakes/engine';

const KEY = 'sk_live_fake_engine_key_never_logged';

describe('EngineClient against the fake engine', () => {
  const engine = new FakeEngine({ apiKey: KEY });
  let url: string;
  const client = (opts: Partial<EngineClientOptions> = {}) =>
    new EngineClient({ baseUrl: url, apiKey: KEY, timeoutMs: 500, retries: 2, backoffBaseMs: 5, backoffMaxMs: 20, ...opts });

  beforeAll(async () => {
    url = await engine.start();
  });
  afterAll(() => engine.stop());
  beforeEach(() => {
    engine.requests.length = 0;
  });

  it('200, field set B: maps to the canonical result', async () => {
    engine.script('b@example.com', { kind: 'result', risk: 'risky', score: 61, reason: 'catch_all', fieldSet: 'B' });
    const v = await client().verify(' b@EXAMPLE.com ');
    expect(v).toMatchObject({ email: ' b@EXAMPLE.com ', normalized: 'b@example.com', risk: 'risky', score: 61, reason: 'catch_all', billable: true });
    expect(engine.callsFor('b@example.com')).toBe(1);
  });

  it('200, field set A only: maps by the documented rules', async () => {
    engine.script('a@example.com', { kind: 'result', risk: 'invalid', reason: 'mailbox_not_found', fieldSet: 'A' });
    const v = await client().verify('a@example.com');
    expect(v).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found', billable: true });
  });

  it('200, both field sets', async () => {
    engine.script('ab@example.com', { kind: 'result', risk: 'safe', score: 99, fieldSet: 'AB' });
    const v = await client().verify('ab@example.com');
    expect(v).toMatchObject({ risk: 'safe', score: 99, checks: { smtp: true, mx: true } });
  });

  it('sends the key only in the X-API-Key header', async () => {
    await client().verify('header@example.com');
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0]!.keyMatched).toBe(true);
    expect(engine.requests[0]!.url).not.toContain(KEY);
    expect(engine.requests[0]!.url).toBe('/api/v1/verify?email=header%40example.com');
  });

  it('401: EngineAuthError, never retried, no key in the message', async () => {
    const err = await client({ apiKey: 'wrong-key' }).verify('x@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect((err as EngineAuthError).status).toBe(401);
    expect((err as Error).message).not.toContain('wrong-key');
    expect(engine.requests).toHaveLength(1);
  });

  it.each<ResetForm>(['epoch-seconds', 'epoch-ms', 'seconds-from-now'])('429 rate with reset as %s: EngineRateLimitError with the reset time', async (form) => {
    engine.script('rl@example.com', { kind: 'rate-limited', resetInMs: 20_000, form });
    const before = Date.now();
    const err = await client().verify('rl@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineRateLimitError);
    expect(err).not.toBeInstanceOf(EngineQuotaError);
    const resetAt = (err as EngineRateLimitError).resetAt;
    // Second-granular forms round up to the next second.
    expect(resetAt).toBeGreaterThanOrEqual(before + 19_000);
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 21_000);
    expect(engine.requests).toHaveLength(1);
  });

  it('429 with X-RateLimit-Limit/Remaining: both are kept', async () => {
    engine.script('hdr@example.com', { kind: 'status', status: 429, body: { error: 'slow down', code: 'RATE_LIMITED' }, headers: { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '3' } });
    const err = (await client().verify('hdr@example.com').catch((e: unknown) => e)) as EngineRateLimitError;
    expect(err).toBeInstanceOf(EngineRateLimitError);
    expect([err.limit, err.remaining]).toEqual([60, 0]);
    expect(err.waitMs()).toBeGreaterThan(1_000);
    expect(err.waitMs()).toBeLessThanOrEqual(3_000);
  });

  it('429 quota by body code: EngineQuotaError naming the remedy', async () => {
    engine.script('q@example.com', { kind: 'quota', resetInMs: 60_000 });
    const err = await client().verify('q@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineQuotaError);
    expect((err as Error).message).toMatch(/credit pack|upgrade/);
  });

  it('429 without a code but a reset days away: quota', async () => {
    engine.script('q2@example.com', { kind: 'quota', code: null, resetInMs: 3 * 24 * 3600 * 1000, form: 'epoch-ms' });
    await expect(client().verify('q2@example.com')).rejects.toBeInstanceOf(EngineQuotaError);
  });

  it('429 without a code and a short reset: rate', async () => {
    engine.script('r2@example.com', { kind: 'rate-limited', code: null, resetInMs: 2_000 });
    const err = await client().verify('r2@example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineRateLimitError);
    expect(err).not.toBeInstanceOf(EngineQuotaError);
  });

  it('5xx then success: retried with backoff', async () => {
    engine.script('flaky@example.com', { kind: 'status', status: 503 }, { kind: 'status', status: 500 }, { kind: 'result', risk: 'safe' });
    const v = await client().verify('flaky@example.com');
    expect(v.risk).toBe('safe');
    expect(engine.callsFor('flaky@example.com')).toBe(3);
  });

  it('5xx that persists: unknown, not billable, after 1 + retries attempts', async () => {
    engine.script('down@example.com', { kind: 'status', status: 502 });
    const v = await client({ retries: 3 }).verify('down@example.com');
    expect(v).toMatchObject({ risk: 'unknown', billable: false, reason: 'engine_error', normalized: 'down@example.com' });
    expect(engine.callsFor('down@example.com')).toBe(4);
  });

  it('timeout that persists: unknown, not billable', async () => {
    engine.script('hang@example.com', { kind: 'hang' });
    const started = Date.now();
    const v = await client({ timeoutMs: 100, retries: 1 }).verify('hang@example.com');
    expect(v).toMatchObject({ risk: 'unknown', billable: false, reason: 'engine_unreachable' });
    expect(engine.callsFor('hang@example.com')).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a deadline ends the call in flight and the retries: unknown by then, not billable', async () => {
    engine.script('late@example.com', { kind: 'hang' });
    const started = Date.now();
    const v = await client({ timeoutMs: 10_000, retries: 5, backoffBaseMs: 50, deadline: started + 300 }).verify('late@example.com');
    const took = Date.now() - started;
    expect(v).toMatchObject({ risk: 'unknown', billable: false, normalized: 'late@example.com', reason: 'time_budget_exceeded' });
    // The per-attempt timeout (10 s) would have held it far longer; the deadline cut it at ~300 ms.
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2_000);
    expect(engine.callsFor('late@example.com')).toBe(1);
  });

  it('a deadline already past: no engine call at all', async () => {
    const v = await client({ deadline: Date.now() - 1 }).verify('past@example.com');
    expect(v).toMatchObject({ risk: 'unknown', billable: false, reason: 'time_budget_exceeded' });
    expect(engine.callsFor('past@example.com')).toBe(0);
  });

  it('dropped connection then success', async () => {
    engine.script('drop@example.com', { kind: 'drop' }, { kind: 'result', risk: 'invalid' });
    const v = await client().verify('drop@example.com');
    expect(v.risk).toBe('invalid');
    expect(engine.callsFor('drop@example.com')).toBe(2);
  });

  it('engine not listening at all: unknown after retries', async () => {
    const v = await client({ baseUrl: 'http://127.0.0.1:1', retries: 1 }).verify('nobody@example.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'engine_unreachable', billable: false });
  });

  it('a 200 that is not a result: unknown, not retried, not billed', async () => {
    engine.script('garbage@example.com', { kind: 'status', status: 200, body: { hello: 'world' } });
    const v = await client().verify('garbage@example.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'engine_bad_response', billable: false });
    expect(engine.callsFor('garbage@example.com')).toBe(1);
  });

  it('an address that can never be valid: invalid/syntax with no engine call', async () => {
    for (const bad of ['', '   ', 'no-at-sign', 'x@']) {
      expect(await client().verify(bad)).toMatchObject({ risk: 'invalid', reason: 'syntax', billable: false });
    }
    expect(engine.requests).toHaveLength(0);
  });

  it('rejects a base URL with credentials, naming the variable and not the secret', () => {
    let err: unknown;
    try {
      new EngineClient({ baseUrl: 'https://user:hunter2@engine.example', apiKey: KEY });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('ENGINE_URL');
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('a replay that races its first call (409, key still being answered) waits for that answer without spending a retry: one answer billed, the same verdict twice', async () => {
    engine.script('racing@example.com', { kind: 'result', risk: 'risky', score: 55, reason: 'catch_all', latencyMs: 300 });
    const billedBefore = engine.billed;
    const replaysBefore = engine.replays;
    // No retry at all: only waiting for the key's answer can give the second call a verdict.
    const racing = client({ retries: 0, timeoutMs: 2_000 });
    const first = racing.verify('racing@example.com', { idempotencyKey: 'run-1:chunk-7:racing@example.com' });
    await new Promise((r) => setTimeout(r, 50));
    const replayed = await racing.verify('racing@example.com', { idempotencyKey: 'run-1:chunk-7:racing@example.com' });
    expect(await first).toMatchObject({ risk: 'risky', score: 55, billable: true });
    expect(replayed).toMatchObject({ risk: 'risky', score: 55 });
    expect(engine.billed - billedBefore).toBe(1);
    expect(engine.replays - replaysBefore).toBe(1);
    expect(engine.requests.filter((r) => r.email === 'racing@example.com').length).toBeGreaterThan(2); // it asked again while the key was in use
  });

});

describe('EngineClient reading an answer exactly as ENGINE-API.md shows it', () => {
  const answer = (body: unknown) => (async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' } })) as typeof fetch;
  const published = {
    email: 'ann@example.com', score: 30, risk: 'risky', syntax_valid: true, mx_found: true, smtp_check: 'deliverable',
    is_disposable: true, is_role_account: false, is_catch_all: false, is_free_provider: false, spam_trap_risk: 'low',
    deliverability: { grade: 'B', score: 80, authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listed_count: 0, total_checks: 10 } },
  };

  it('keeps the verdict and the flags of the published names', async () => {
    const warn = jest.fn();
    const v = await new EngineClient({ baseUrl: 'http://engine.test', apiKey: KEY, fetch: answer(published), logger: { warn } }).verify('ann@example.com');
    expect(v).toMatchObject({ risk: 'risky', score: 30, billable: true, checks: { disposable: true, smtpCheck: 'deliverable', spamTrapRisk: 'low' } });
    expect(v.deliverability?.authentication).toEqual({ spf: 'strict', dkim: 'found', dmarc: 'reject' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('logs a malformed optional value by its field name, without the key, and keeps the verdict', async () => {
    const warn = jest.fn();
    const body = { ...published, deliverability: { ...published.deliverability, score: 'eighty' }, is_catch_all: 'maybe' };
    const v = await new EngineClient({ baseUrl: 'http://engine.test', apiKey: KEY, fetch: answer(body), logger: { warn } }).verify('ann@example.com');
    expect(v).toMatchObject({ risk: 'risky', score: 30, checks: { catchAll: null, disposable: true } });
    expect(warn).toHaveBeenCalledTimes(1);
    const [fields, message] = warn.mock.calls[0] as [{ requestId: string; fields: { field: string }[] }, string];
    expect(fields.requestId).toBe('req-1');
    expect(fields.fields.map((f) => f.field)).toEqual(['is_catch_all', 'deliverability.score']);
    expect(message).toContain('is_catch_all');
    expect(JSON.stringify(warn.mock.calls)).not.toContain(KEY);
  });

  it('an answer with no verdict at all is unknown engine_bad_response, not billed, asked once', async () => {
    let calls = 0;
    const fetchOnce = (async () => {
      calls++;
      return new Response(JSON.stringify({ email: 'ann@example.com', score: 50 }), { status: 200 });
    }) as typeof fetch;
    const v = await new EngineClient({ baseUrl: 'http://engine.test', apiKey: KEY, fetch: fetchOnce, logger: { warn: jest.fn() } }).verify('ann@example.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'engine_bad_response', billable: false });
    expect(calls).toBe(1);
  });
});
