import { BatchVerifier, EngineClient, InMemoryVerificationCache, type Verification, type Verifier } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';

const KEY = 'batch-test-key';

describe('BatchVerifier', () => {
  const engine = new FakeEngine({ apiKey: KEY });
  let client: EngineClient;

  beforeAll(async () => {
    client = new EngineClient({ baseUrl: await engine.start(), apiKey: KEY, timeoutMs: 1000, retries: 1, backoffBaseMs: 5 });
  });
  afterAll(() => engine.stop());
  beforeEach(() => {
    engine.requests.length = 0;
    engine.billed = 0;
    engine.options = { apiKey: KEY };
  });

  const addresses = (n: number, prefix = 'user') => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

  // DESIGN.md §2: only the domain is lower-cased (a local part may be case-sensitive), so A@ and a@ differ.
  it('dedupes by normalised address, rejects impossible ones locally, and counts exactly', async () => {
    const input = ['a@example.com', ' a@EXAMPLE.COM', 'b@example.com', 'a@Example.com', '', 'nope', 'invalid.c@example.com', 'unknown.d@example.com'];
    const report = await new BatchVerifier(client, { concurrency: 3 }).verifyAll(input);
    expect(report.counters).toEqual({ asked: 8, deduped: 2, rejected: 2, cached: 0, verified: 4, unknown: 1, credits: 3, rateLimitWaits: 0 });
    expect(engine.requests.map((r) => r.email).sort()).toEqual(['a@example.com', 'b@example.com', 'invalid.c@example.com', 'unknown.d@example.com']);
    // every input gets its result, in input order, duplicates share it
    expect(report.results.map((r) => r?.risk)).toEqual(['safe', 'safe', 'safe', 'safe', 'invalid', 'invalid', 'invalid', 'unknown']);
    expect(report.results[1]!.normalized).toBe('a@example.com');
    expect(report.results[4]!.reason).toBe('syntax');
    expect(report.stopped).toBeUndefined();
    expect(report.pending).toEqual([]);
  });

  it('serves fresh results from the cache: a second batch makes no engine call and spends no credit', async () => {
    const cache = new InMemoryVerificationCache();
    const batch = new BatchVerifier(client, { concurrency: 5, cache });
    const list = [...addresses(20), 'unknown.x@example.com'];
    const first = await batch.verifyAll(list);
    expect(first.counters).toMatchObject({ verified: 21, cached: 0, credits: 20, unknown: 1 });
    engine.requests.length = 0;
    const second = await batch.verifyAll(list);
    // the unknown is not cached as final: it is asked again
    expect(second.counters).toMatchObject({ cached: 20, verified: 1, credits: 0, unknown: 1 });
    expect(engine.requests.map((r) => r.email)).toEqual(['unknown.x@example.com']);
    expect(second.results.slice(0, 20)).toEqual(first.results.slice(0, 20));
  });

  it('a cache told what to remember keeps only those results, and still serves them', async () => {
    const cache = new InMemoryVerificationCache({ remember: (address) => address.startsWith('twice') });
    const batch = new BatchVerifier(client, { concurrency: 5, cache });
    await batch.verifyAll([...addresses(30), 'twice@example.com']);
    expect(cache.size).toBe(1);
    engine.requests.length = 0;
    const again = await batch.verifyAll(['twice@example.com', 'user1@example.com']);
    expect(again.counters).toMatchObject({ cached: 1, verified: 1 });
    expect(engine.requests.map((r) => r.email)).toEqual(['user1@example.com']);
  });

  it('does not serve stale cache entries', async () => {
    let now = Date.now();
    const cache = new InMemoryVerificationCache({ freshnessDays: 30, now: () => now });
    const batch = new BatchVerifier(client, { cache });
    await batch.verifyAll(['stale@example.com']);
    now += 31 * 24 * 3600 * 1000;
    const again = await batch.verifyAll(['stale@example.com']);
    expect(again.counters).toMatchObject({ cached: 0, verified: 1 });
  });

  it('waits out an engine rate limit and loses nothing', async () => {
    engine.options = { apiKey: KEY, ratePerSecond: 10, resetForm: 'epoch-ms' };
    const list = addresses(25, 'rl');
    const started = Date.now();
    const report = await new BatchVerifier(client, { concurrency: 8 }).verifyAll(list);
    expect(report.counters).toMatchObject({ verified: 25, credits: 25, unknown: 0 });
    expect(report.counters.rateLimitWaits).toBeGreaterThan(0);
    expect(report.results.every((r) => r?.risk === 'safe')).toBe(true);
    // 25 requests at 10 per one-second window need at least two resets
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('stops cleanly on quota with what it has done so far', async () => {
    engine.options = { apiKey: KEY, quota: 7 };
    const list = addresses(20, 'q');
    const report = await new BatchVerifier(client, { concurrency: 3 }).verifyAll(list);
    expect(report.stopped?.reason).toBe('quota');
    expect(report.stopped?.resumeAt).toBeGreaterThan(Date.now());
    expect(report.counters.credits).toBe(7);
    expect(report.results.filter(Boolean)).toHaveLength(7);
    expect(report.pending).toHaveLength(13);
    // nothing done is in pending, nothing pending has a result
    const done = new Set(report.results.filter((r): r is Verification => Boolean(r)).map((r) => r.normalized));
    expect(report.pending.some((p) => done.has(p))).toBe(false);
  });

  it('stops on a bad key without retrying', async () => {
    const bad = new EngineClient({ baseUrl: engine.url, apiKey: 'revoked', retries: 3, backoffBaseMs: 5 });
    const report = await new BatchVerifier(bad, { concurrency: 4 }).verifyAll(addresses(10, 'auth'));
    expect(report.stopped?.reason).toBe('auth');
    expect(report.counters.verified).toBe(0);
    expect(report.pending).toHaveLength(10);
    expect(engine.requests.length).toBeLessThanOrEqual(4);
  });

  it('never exceeds the credit cap, even with many in flight', async () => {
    const report = await new BatchVerifier(client, { concurrency: 6, creditCap: 9 }).verifyAll(addresses(30, 'cap'));
    expect(report.counters.credits).toBe(9);
    expect(engine.billed).toBe(9);
    expect(report.stopped?.reason).toBe('credit_cap');
    expect(report.pending).toHaveLength(21);
  });

  it('unknown results do not count against the credit cap', async () => {
    const list = [...addresses(5, 'unknown'), ...addresses(3, 'ok')];
    const report = await new BatchVerifier(client, { concurrency: 2, creditCap: 3 }).verifyAll(list);
    expect(report.counters).toMatchObject({ verified: 8, unknown: 5, credits: 3 });
    expect(report.stopped).toBeUndefined();
  });

  it('keeps the address as unknown when a verifier breaks its contract', async () => {
    const broken: Verifier = { verify: async () => { throw new TypeError('boom'); } };
    const report = await new BatchVerifier(broken).verifyAll(['x@example.com']);
    expect(report.results[0]).toMatchObject({ risk: 'unknown', reason: 'verifier_error', billable: false });
  });

  it('stops when aborted, listing what is left', async () => {
    engine.options = { apiKey: KEY, latencyMs: 50 };
    const controller = new AbortController();
    const batch = new BatchVerifier(client, { concurrency: 2, signal: controller.signal });
    setTimeout(() => controller.abort(), 120);
    const report = await batch.verifyAll(addresses(40, 'abort'));
    expect(report.stopped?.reason).toBe('aborted');
    expect(report.pending.length).toBeGreaterThan(0);
    expect(report.counters.verified + report.pending.length).toBe(40);
  });
});

describe('purchase scope: an Idempotency-Key per address and run', () => {
  it('sends the same key for the same address in the same scope, another in another scope, none without a scope', async () => {
    const engine = new FakeEngine();
    await engine.start();
    try {
      const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
      const seen: (string | undefined)[] = [];
      const recording: Verifier = { verify: (email, options) => (seen.push(options?.idempotencyKey), client.verify(email, options)) };
      await new BatchVerifier(recording, { purchaseScope: 'run_a' }).verifyAll(['ann@example.com', ' ann@EXAMPLE.com ', 'bob@example.com']);
      await new BatchVerifier(recording, { purchaseScope: 'run_a' }).verifyAll(['ann@example.com']);
      await new BatchVerifier(recording, { purchaseScope: 'run_b' }).verifyAll(['ann@example.com']);
      await new BatchVerifier(recording).verifyAll(['ann@example.com']);
      const [ann, bob, annAgain, annOtherRun, annNoScope] = seen;
      expect(ann).toMatch(/^[0-9a-f]{64}$/);
      expect(bob).not.toBe(ann);
      expect(annAgain).toBe(ann);
      expect(annOtherRun).not.toBe(ann);
      expect(annNoScope).toBeUndefined();
      // the replay in the same scope was answered from the kept purchase: one bill for ann in run_a
      expect(engine.replays).toBe(1);
      expect(engine.billedPer.get('ann@example.com')).toBe(3);
    } finally {
      await engine.stop();
    }
  });
});
