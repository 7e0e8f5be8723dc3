import { randomUUID } from 'node:crypto';
import { EngineClient, purchaseKey, type Verification } from '@verify-hub/core';
import { Keys, RedisVerificationCache, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';

/**
 * A run's credits against the engine's bill when an answer is collected again under its Idempotency-Key
 * (`Idempotent-Replayed: true`). The engine here answers the published fields only: no `checked_at`, so
 * each answer's time is the hub's clock when it arrived, and the first answer and its collection differ.
 * Issue 30: after kill -9s of workers (a chunk taken over while its first worker still finished a
 * purchase), run credits were one more than the engine billed.
 */
describe('credits of an answer collected again under its Idempotency-Key', () => {
  let engine: FakeEngine;
  let redis: Redis;
  let keys: Keys;
  let cache: RedisVerificationCache;
  let client: EngineClient;
  const runId = `run_collected_${randomUUID().slice(0, 8)}`;
  let credits: { key: string; field: string; purchases: string };

  beforeAll(async () => {
    engine = new FakeEngine();
    await engine.start();
    redis = createRedis(process.env.REDIS_URL!);
    keys = new Keys(`vhtest-collected-${randomUUID().slice(0, 8)}`);
    cache = new RedisVerificationCache(redis, keys);
    client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
    credits = { key: keys.run(runId), field: 'n:credits', purchases: keys.purchases(runId) };
  });
  afterAll(async () => {
    const found = await redis.keys(`${keys.prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
    await engine.stop();
  });

  const runCredits = async () => Number((await redis.hget(credits.key, credits.field)) ?? 0);
  /** Asks made again under a key already bought: each one must be a replay, never billed. */
  let repeatedAsks = 0;
  /**
   * Asks until the answer's time moved on from `after` (answers carry millisecond times): a replay in the
   * same millisecond as the answer before it is asked again, and counted among the repeated asks.
   */
  const askAfter = async (email: string, after: Verification | undefined): Promise<Verification> => {
    for (;;) {
      if (after) repeatedAsks++;
      const v = await client.verify(email, { idempotencyKey: purchaseKey(runId, email) });
      if (!after || v.checkedAt !== after.checkedAt) return v;
    }
  };

  it('an answer stored, then collected again by a replay and stored: one credit, as the engine billed', async () => {
    const first = await askAfter('kept@collected.test', undefined);
    await cache.keepBought([first], credits);
    const again = await askAfter('kept@collected.test', first);
    expect(engine.replays).toBe(repeatedAsks);
    await cache.keepBought([again], credits);
    expect({ credits: await runCredits(), billed: engine.billed }).toEqual({ credits: 1, billed: 1 });
  });

  it('an answer lost with its worker, then collected by the replay: counted once, by the replay (an address with glob characters)', async () => {
    // An address that `lost*?x@…` would match as a pattern, bought and stored first: not the same purchase.
    await cache.keepBought([await askAfter('lostqqx@collected.test', undefined)], credits);
    const lost = await askAfter('lost*?x@collected.test', undefined); // billed; its worker died before storing it
    const collected = await askAfter('lost*?x@collected.test', lost);
    expect(engine.replays).toBe(repeatedAsks);
    await cache.keepBought([collected], credits);
    expect({ credits: await runCredits(), billed: engine.billed }).toEqual({ credits: 3, billed: 3 });
  });

  it('a purchase resent as it was (a script sent again after a reconnect) still counts once', async () => {
    const v = await askAfter('resent@collected.test', undefined);
    await cache.keepBought([v], credits);
    await cache.keepBought([v], credits);
    expect({ credits: await runCredits(), billed: engine.billed }).toEqual({ credits: 4, billed: 4 });
  });
});
