import IORedis, { type Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for the pipeline. BullMQ Workers block on Redis and must never give up on a
 * command, hence `maxRetriesPerRequest: null` on every connection made here.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
}

export type { Redis };
