import type { Redis } from 'ioredis';

/** Every key matching `pattern` and every value stored under it, as text, so a test can search it all (privacy erasure). */
export async function everythingMatching(redis: Redis, pattern: string): Promise<string[]> {
  const texts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      texts.push(key);
      const type = await redis.type(key);
      if (type === 'string') texts.push((await redis.get(key)) ?? '');
      else if (type === 'list') texts.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'hash') texts.push(...Object.entries(await redis.hgetall(key)).flat());
      else if (type === 'set') texts.push(...(await redis.smembers(key)));
      else if (type === 'zset') texts.push(...(await redis.zrange(key, '0', '-1')));
      else if (type === 'stream') texts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return texts;
}
