import { redisClientPlan } from '@verify-hub/core';
import IORedis, { Cluster, type Redis, type RedisOptions } from 'ioredis';

/** The engine server's Redis: one server, a Redis Cluster or Sentinel, as REDIS_URL names it (core's redis-url.ts). */
export function createEngineRedis(url: string, options: RedisOptions): Redis {
  const plan = redisClientPlan(url, { ...options });
  if (plan.kind === 'cluster') return new Cluster(plan.nodes, plan.options) as unknown as Redis;
  return plan.kind === 'server' ? new IORedis(plan.url, plan.options) : new IORedis(plan.options);
}
