import { randomUUID } from 'node:crypto';
import { EngineClient, purchaseKey } from '@verify-hub/core';
import { Keys, RedisVerificationCache, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';

/**
 * The run's one answer per address (run-answers.ts) and the cache. A worker killed -9 after the run
 * kept its answer for an address but before caching it left the address uncached; the replayed chunk
 * got the run's answer back in place of its own but cached nothing, so the next sync bought the address
 * again and rewrote its records (15 of 25,000 in a Salesforce acceptance run on CI).
 */
describe("a run's answer for an address is what the cache holds", () => {
  let engine: FakeEngine;
  let redis: Redis;
  let keys: Keys;
  let cache: RedisVerificationCache;
  const runId = `run_answers_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    engine = new FakeEngine();
    await engine.start();
    redis = createRedis(process.env.REDIS_URL!);
    keys = new Keys(`vhtest-answers-${randomUUID().slice(0, 8)}`);
    cache = new RedisVerificationCache(redis, keys);
  });
  afterAll(async () => {
    const found = await redis.keys(`${keys.prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
    await engine.stop();
  });

  it('after a worker died between keeping the answer and caching it, the replay caches the run\'s answer, not its own and not nothing', async () => {
    const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
    const email = 'kept.before.kill@answers.test';
    const credits = { key: keys.run(runId), field: 'n:credits', purchases: keys.purchases(runId) };
    const answers = { key: keys.answers(runId), ttlMs: 60_000 };
    const first = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    // What the killed worker left: the run's answer kept, the cache not yet written.
    await redis.hset(answers.key, first.normalized, JSON.stringify(first));
    expect((await cache.getMany([first.normalized])).size).toBe(0);
    // The replayed chunk collects the answer again (timed on arrival: another checked-at).
    let again = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    while (again.checkedAt === first.checkedAt) again = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    const [kept] = await cache.keepBought([again], credits, answers);
    expect(kept!.checkedAt).toBe(first.checkedAt);
    const cached = await cache.getMany([first.normalized]);
    expect(cached.get(first.normalized)?.checkedAt).toBe(first.checkedAt);
  });

  it('a later answer for an address already cached with the run\'s answer leaves the run\'s answer cached', async () => {
    const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
    const email = 'two.chunks@answers.test';
    const answers = { key: keys.answers(runId), ttlMs: 60_000 };
    const first = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    await cache.keepBought([first], undefined, answers);
    let later = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    while (later.checkedAt === first.checkedAt) later = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
    const [kept] = await cache.keepBought([later], undefined, answers);
    expect(kept!.checkedAt).toBe(first.checkedAt);
    expect((await cache.getMany([first.normalized])).get(first.normalized)?.checkedAt).toBe(first.checkedAt);
  });
});
