import type { WriteProgress } from '@verify-hub/core';
import type { Redis } from 'ioredis';

/**
 * A chunk's write progress (core's WriteProgress) in the run's hash `key`, under the page's index: what
 * one attempt of the chunk started on the platform (a bulk job) is what its replay finds, whichever
 * worker runs it. The hash is one of the run's keys: it expires and is purged with them.
 */
export function chunkWriteProgress(redis: Redis, hash: { key: string; ttlMs: number }, pageIndex: number): WriteProgress {
  const { key, ttlMs } = hash;
  const field = (name: string) => `${pageIndex}:${name}`;
  return {
    get: async (name) => (await redis.hget(key, field(name))) ?? undefined,
    // Set to expire here too: a write may outlast the run's last change (a chunk still writing after a cancel).
    set: async (name, value) => {
      await redis.multi().hset(key, field(name), value).pexpire(key, ttlMs).exec();
    },
    delete: async (name) => {
      await redis.hdel(key, field(name));
    },
  };
}
