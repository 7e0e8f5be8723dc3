/**
 * What noting a key's last use costs the engine's authentication. Three ways, same Redis, same run,
 * sequential requests (one at a time, like one client):
 *   baseline   authentication as it was without last use: SHA-256 of the key, HGETALL, timingSafeEqual
 *   per-call   the same plus an HSET of lastUsedAt on every request (the simple alternative)
 *   throttled  KeyStore.authenticate: the read, and a write at most once a minute (what the engine does)
 * The three take turns over several rounds (the first round also warms Redis and the JIT); each
 * keeps its best round. Prints microseconds per authentication and each as a ratio to the baseline.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { Redis } from 'ioredis';
import { KeyStore, hashKey } from '@verify-hub/engine';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 3000);
const ROUNDS = 4;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) await run();
  return Number(process.hrtime.bigint() - start) / 1000 / ITERATIONS;
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `bench:key-auth:${randomUUID()}:`;
  try {
    const store = new KeyStore(redis, prefix);
    const { key } = await store.createKey({ name: 'bench' });
    const withoutLastUse = async (): Promise<string> => {
      const computed = hashKey(key);
      const redisKey = `${prefix}key:${computed.toString('hex')}`;
      const fields = await redis.hgetall(redisKey);
      if (!fields.hash || !timingSafeEqual(Buffer.from(fields.hash, 'hex'), computed)) throw new Error('bench key not found');
      return redisKey;
    };
    const modes: Record<string, () => Promise<unknown>> = {
      baseline: withoutLastUse,
      'per-call': async () => redis.hset(await withoutLastUse(), 'lastUsedAt', new Date().toISOString()),
      throttled: () => store.authenticate(key),
    };
    const best: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(modes)) best[name] = Math.min(best[name] ?? Infinity, await timed(run));
    }
    for (const [name, us] of Object.entries(best)) console.log(`${name.padEnd(10)} ${us.toFixed(1)} µs per authentication`);
    const { baseline, 'per-call': perCall, throttled } = best as { baseline: number; 'per-call': number; throttled: number };
    console.log(`ratios to baseline: per-call ${(perCall / baseline).toFixed(2)}x, throttled ${(throttled / baseline).toFixed(2)}x (best of ${ROUNDS} rounds of ${ITERATIONS} sequential authentications each)`);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}

void main();
