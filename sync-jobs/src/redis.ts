import { parseRedisUrl } from '@verify-hub/core';
import IORedis, { Cluster, type Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for the pipeline, to one server, a Redis Cluster or a Sentinel-watched master,
 * as REDIS_URL names it (see core's redis-url.ts). BullMQ Workers block on Redis and must never give
 * up on a command, hence `maxRetriesPerRequest: null` on every connection made here.
 *
 * A Cluster client is returned under the `Redis` type: it has the same commands, `duplicate()`,
 * `multi()` and `eval`, and `isCluster` tells the few places that must act differently (no command
 * spans slots there: see keys.ts).
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const target = parseRedisUrl(url);
  const common: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options };
  if (target.kind === 'server') return new IORedis(url, common);
  const auth = { ...(target.username ? { username: target.username } : {}), ...(target.password ? { password: target.password } : {}) };
  const tls = target.tls ? { tls: {} } : {};
  if (target.kind === 'sentinel') {
    return new IORedis({ ...common, ...auth, ...tls, sentinels: target.sentinels, name: target.masterName, ...(target.db ? { db: target.db } : {}), ...(target.tls ? { sentinelTLS: {}, enableTLSForSentinelMode: true } : {}) });
  }
  const cluster = new Cluster(target.nodes, {
    // BullMQ needs the same never-give-up behaviour from the nodes' connections.
    redisOptions: { ...common, ...auth, ...tls },
    enableReadyCheck: true,
    lazyConnect: common.lazyConnect,
    // A failover moves slots: keep commands queued while the cluster settles rather than failing them.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    maxRedirections: 64,
    slotsRefreshTimeout: 2000,
  });
  return cluster as unknown as Redis;
}

/**
 * BullMQ's key prefix. On a cluster it is a hash tag, so every key of every queue under it shares a
 * slot: BullMQ's scripts touch several keys of a queue at once (its documented cluster setup).
 */
export function queuePrefix(prefix: string, cluster: boolean): string {
  return cluster ? `{${prefix}}` : prefix;
}

export type { Redis };
