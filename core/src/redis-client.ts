import { parseRedisUrl } from './redis-url';

/** Connection options as ioredis takes them (core names no Redis client: it stays free of one). */
export type RedisClientOptions = Record<string, unknown>;

export type RedisClientPlan =
  | { kind: 'server'; url: string; options: RedisClientOptions }
  | { kind: 'sentinel'; options: RedisClientOptions }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; options: RedisClientOptions };

/**
 * How long ioredis waits, on disconnect, for its connection to close before destroying it (its default is
 * 2 s). It arms that wait even for a connection already gone (Redis down, the client reconnecting), where
 * nothing clears it: a hub closed while Redis was down stayed alive 2 s more (and jest killed a worker
 * whose last suite did that: it waits 500 ms). After QUIT nothing is left to flush.
 */
export const DISCONNECT_TIMEOUT_MS = 200;

/**
 * How to build an ioredis client for REDIS_URL in any of its forms (see redis-url.ts), so the hub's
 * pipeline and the engine server build theirs alike: `new Redis(url, options)`, `new Redis(options)`
 * or `new Cluster(nodes, options)`. `options` apply to every data connection (on a cluster, to each node's).
 */
export function redisClientPlan(url: string, given: RedisClientOptions = {}): RedisClientPlan {
  const options: RedisClientOptions = { disconnectTimeout: DISCONNECT_TIMEOUT_MS, ...given };
  const target = parseRedisUrl(url);
  if (target.kind === 'server') return { kind: 'server', url, options };
  const auth = { ...(target.username ? { username: target.username } : {}), ...(target.password ? { password: target.password } : {}) };
  const tls = target.tls ? { tls: {} } : {};
  if (target.kind === 'sentinel') {
    const sentinelTls = target.tls ? { sentinelTLS: {}, enableTLSForSentinelMode: true } : {};
    // After a failover: the sentinels' switch-master notice moves the client at once, and a write that still
    // reached the demoted master (READONLY) reconnects through the sentinels and is sent again.
    const followFailover = { failoverDetector: true, reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 2 : false) };
    return { kind: 'sentinel', options: { ...followFailover, ...options, ...auth, ...tls, ...sentinelTls, sentinels: target.sentinels, name: target.masterName, ...(target.db ? { db: target.db } : {}) } };
  }
  // These belong to the cluster client, not to its node connections.
  const { lazyConnect, enableReadyCheck, enableOfflineQueue, ...nodeOptions } = options;
  return {
    kind: 'cluster',
    nodes: target.nodes,
    options: {
      redisOptions: { ...nodeOptions, ...auth, ...tls },
      ...(lazyConnect !== undefined ? { lazyConnect } : {}),
      ...(enableReadyCheck !== undefined ? { enableReadyCheck } : {}),
      ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
      // A failover moves slots: commands wait for the cluster to settle rather than failing.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      maxRedirections: 64,
    },
  };
}

/**
 * BullMQ's key prefix. On a cluster it is a hash tag, so every key of every queue under it shares a
 * slot: BullMQ's scripts touch several keys of a queue at once (its documented cluster setup).
 */
export function queuePrefix(prefix: string, cluster: boolean): string {
  return cluster ? `{${prefix}}` : prefix;
}

/**
 * Closes an ioredis client for good: QUIT (what was sent is answered first), then disconnect. QUIT
 * alone leaves the sentinel subscriptions of a Sentinel client's failover detector connected
 * (ioredis#1362, unfixed in ioredis 6.0.0): once the sentinel goes away they reconnect forever and keep
 * the process from exiting. The disconnect closes them, and any connection QUIT could not end.
 */
export async function closeRedis(client: { quit(): Promise<unknown>; disconnect(): void }): Promise<void> {
  await client.quit().catch(() => undefined);
  client.disconnect();
}
