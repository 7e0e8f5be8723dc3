import { SecretBox, type Config } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';

/**
 * The stored platform connections (credentials sealed with HUB_SECRET_KEY), under the same Redis
 * prefix as the pipeline, so `verify-hub sync`, `worker` and `serve` find what `connect` stored.
 */
export function openConnectionStore(config: Config) {
  const box = new SecretBox(config.HUB_SECRET_KEY);
  const redis = createRedis(config.REDIS_URL);
  const keys = new Keys(config.VERIFY_HUB_REDIS_PREFIX, { cluster: redis.isCluster });
  return { redis, keys, store: new RedisConnectionStore(redis, keys, box) };
}

/** The hub's own keys (completion hooks, sessions, ...) under the pipeline's prefix: `verify-hub serve` and `secret-key rotate`. */
export function hubKeyPrefix(config: Config): string {
  return `${config.VERIFY_HUB_REDIS_PREFIX}:hub:`;
}
