import { redisClientPlan } from '@verify-hub/core';
import IORedis, { Cluster, type Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for the pipeline: one server, a Redis Cluster or a Sentinel-watched master, as
 * REDIS_URL names it (core's redis-url.ts). BullMQ Workers block on Redis and must never give up on a
 * command, hence `maxRetriesPerRequest: null` on every connection made here.
 *
 * A Cluster client is returned under the `Redis` type: it has the same commands, `duplicate()`,
 * `multi()` and `eval`, and `isCluster` tells the few places that must act differently (there no
 * command may span hash slots: see keys.ts).
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const plan = redisClientPlan(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
  if (plan.kind === 'cluster') return new Cluster(plan.nodes, plan.options) as unknown as Redis;
  return plan.kind === 'server' ? new IORedis(plan.url, plan.options) : new IORedis(plan.options);
}

export { queuePrefix } from '@verify-hub/core';
export type { Redis };
