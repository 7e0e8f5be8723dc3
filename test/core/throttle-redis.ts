import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * For a describe block of credential-throttle tests: a Redis connection (opened in beforeAll) and a key
 * prefix of the block's own, whose keys are deleted in afterAll.
 */
export function throttleRedis(name: string): { readonly redis: Redis; readonly prefix: string } {
  const prefix = `test:${name}:${randomUUID()}:`;
  let redis: Redis | undefined;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis!.keys(`${prefix}*`);
    if (keys.length) await redis!.del(...keys);
    await redis!.quit();
  });
  return {
    prefix,
    get redis() {
      return redis!;
    },
  };
}
