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

/**
 * A second connection to what `redis` connects to, with ioredis's auto-pipelining: the commands issued
 * in one turn of the event loop leave in one socket write. A Cluster's `duplicate()` takes its startup
 * nodes first and its options second, so the options are passed where each kind reads them.
 */
export function autoPipelinedCopy(redis: Redis): Redis {
  const options = { enableAutoPipelining: true };
  return redis.isCluster ? ((redis as unknown as Cluster).duplicate([], options) as unknown as Redis) : redis.duplicate(options);
}

export { queuePrefix } from '@verify-hub/core';
export type { Redis };
