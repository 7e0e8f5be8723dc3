import { randomUUID } from 'node:crypto';
import { EngineClient, InMemoryVerificationCache, unknownVerification, type Verification } from '@verify-hub/core';
import { Keys, RedisVerificationCache, createRedis, createRedisLimiterFactory, runInProcess, type Redis } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeSource, InProcessFakeVerifier } from '../fakes/source';

let redis: Redis;
let keys: Keys;
beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL!);
  keys = new Keys(`vhtest-${randomUUID().slice(0, 8)}`);
});
afterAll(async () => {
  const found = await redis.keys(`${keys.prefix}:*`);
  if (found.length) await redis.del(...found);
  await redis.quit();
});

describe('Redis limiter shared by every worker', () => {
  it('never lets more than `count` calls start in any window, across two limiter instances', async () => {
    const other = createRedis(process.env.REDIS_URL!);
    try {
      const spec = { key: 'engine:test', perInterval: { count: 10, intervalMs: 400 } };
      const a = createRedisLimiterFactory(redis, keys)(spec);
      const b = createRedisLimiterFactory(other, keys)(spec);
      const starts: number[] = [];
      const call = () => Promise.resolve(starts.push(Date.now()));
      const before = Date.now();
      await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).schedule(call)));
      starts.sort((x, y) => x - y);
      expect(starts).toHaveLength(30);
      // Starts are booked 40 ms apart (10 per 400 ms) on Redis's clock, and a call never runs before
      // its booking; so, however late this process's event loop fires (a loaded CI machine delays
      // some timers by 250 ms and more), the i-th call to start cannot have started before
      // `before + 40 i`. Without the limiter all 30 start within a few ms. (A 2 ms allowance: Node
      // may fire a timer a millisecond early and Date.now truncates.)
      for (let i = 0; i < starts.length; i++) expect(starts[i]! - before).toBeGreaterThanOrEqual(i * 40 - 2);
      // Both instances booked on the one schedule in Redis: it advanced by 30 bookings of 40 ms, and
      // never ran more than one booking ahead of the calls actually made.
      const [seconds, micros] = await redis.time();
      const scheduleEndUs = Number(await redis.get(keys.limiterStarts('engine:test')));
      const nowUs = Number(seconds) * 1e6 + Number(micros);
      expect(scheduleEndUs - before * 1000).toBeGreaterThanOrEqual(30 * 40_000 - 2000);
      expect(scheduleEndUs - before * 1000).toBeLessThanOrEqual(nowUs - before * 1000 + 40_000);
    } finally {
      await other.quit();
    }
  });

  it('bounds the calls under way at once', async () => {
    const limiter = createRedisLimiterFactory(redis, keys)({ key: 'mailchimp:acct', maxConcurrent: 3 });
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        limiter.schedule(async () => {
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 30));
          running--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(await redis.zcard(keys.limiterRunning('mailchimp:acct'))).toBe(0); // every slot given back
  });
});

describe('Redis result cache', () => {
  const result = (email: string, risk: Verification['risk'], checkedAt = new Date().toISOString()): Verification => ({
    ...unknownVerification(email, email, 'x'),
    risk,
    reason: 'deliverable',
    score: 90,
    billable: risk !== 'unknown',
    checkedAt,
  });

  it('serves fresh final results, never unknown or stale ones, and ignores a corrupt entry', async () => {
    const cache = new RedisVerificationCache(redis, keys, { freshnessDays: 30 });
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    await cache.setMany([result('a@example.com', 'safe'), result('b@example.com', 'unknown'), result('c@example.com', 'invalid', old)]);
    await redis.set(keys.cache('d@example.com'), '{not json');
    const hits = await cache.getMany(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com']);
    expect([...hits.keys()]).toEqual(['a@example.com']);
    expect(await redis.exists(keys.cache('b@example.com'))).toBe(0);
    // A shorter window on the same store treats a 2-day-old result as stale.
    await cache.setMany([result('f@example.com', 'safe', new Date(Date.now() - 2 * 86_400_000).toISOString())]);
    expect((await cache.withFreshness(1).getMany(['f@example.com'])).size).toBe(0);
    expect((await cache.getMany(['f@example.com'])).size).toBe(1);
  });
});

describe('in-process executor (what `clean` runs, no Redis)', () => {
  it('gives exact counters over 5,000 contacts in 25 pages', async () => {
    const source = new FakeSource({ size: 5_000, pageSize: 200, invalidEvery: 4, unknownEvery: 50 });
    const verifier = new InProcessFakeVerifier();
    const r = await runInProcess({ connector: source, scope: { kind: 'all' }, verifier, cache: new InMemoryVerificationCache(), pageConcurrency: 3, verifyConcurrency: 20 });
    expect(r.stopped).toBeUndefined();
    expect(r.pages).toBe(25);
    expect(r.counters).toEqual({ pulled: 5_000, skipped: 0, unreadable: 0, cached: 0, verified: 5_000, rejected: 0, unknown: 100, written: 5_000, unchanged: 0, failed: 0, credits: 4_900 });
    expect(verifier.calls).toBe(5_000);
  });

  it('on quota, writes every remaining row as unknown not_checked and reports the stop', async () => {
    const engine = new FakeEngine({ quota: 30 });
    await engine.start();
    try {
      const source = new FakeSource({ size: 100, pageSize: 20 });
      const r = await runInProcess({ connector: source, scope: { kind: 'all' }, verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }), verifyConcurrency: 5 });
      expect(r.stopped?.reason).toBe('quota');
      expect(r.counters.written).toBe(100); // no row dropped
      expect(r.counters.credits).toBe(30);
      expect(r.counters.unknown).toBe(70);
      expect(source.storedFor('c99')).toMatchObject({ ev_risk: 'unknown', ev_reason: 'not_checked' });
    } finally {
      await engine.stop();
    }
  });

  it('a credit cap is spent up to the limit even when early pages buy little (no "cap of 0" from shares held for pages still running)', async () => {
    // The first 200 contacts are all unknown (free): a cap of 150 must still buy 150 in the pages after.
    const source = new FakeSource({ size: 1_000, pageSize: 200, emailOf: (i) => (i < 200 ? `unknown.${i}@example.com` : `user${i}@example.com`) });
    const cheapFirst = new InProcessFakeVerifier();
    const r = await runInProcess({ connector: source, scope: { kind: 'all' }, verifier: cheapFirst, creditCap: 150, pageConcurrency: 3 });
    expect(r.counters.credits).toBe(150);
    expect(r.stopped?.reason).toBe('credit_cap');
    expect(r.counters.written).toBe(1_000);
  });

  it('stops at the credit cap without exceeding it', async () => {
    const source = new FakeSource({ size: 300, pageSize: 50 });
    const verifier = new InProcessFakeVerifier();
    const r = await runInProcess({ connector: source, scope: { kind: 'all' }, verifier, creditCap: 120, pageConcurrency: 3 });
    expect(r.stopped?.reason).toBe('credit_cap');
    expect(r.counters.credits).toBe(120);
    expect(verifier.calls).toBe(120);
    expect(r.counters.written).toBe(300);
  });
});
