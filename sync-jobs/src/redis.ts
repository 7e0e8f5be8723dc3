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
 * The connection for the per-address commands. On one server (or a Sentinel-watched master) a second
 * connection that auto-pipelines: the commands issued in one turn of the event loop leave in one socket
 * write. On a Cluster, `redis` itself: ioredis handles a MOVED or a closed connection once per
 * auto-pipeline, not per command, so a failover mid-batch rejected commands a plain cluster client
 * retries (redis/ioredis#2075; a failover mid-run then failed 5,700 of 6,000 contacts), and an
 * unpipelined copy would only add a socket to every node.
 */
export function hotPathConnection(redis: Redis): Redis {
  return redis.isCluster ? redis : redis.duplicate({ enableAutoPipelining: true });
}

export { queuePrefix } from '@verify-hub/core';
export type { Redis };
