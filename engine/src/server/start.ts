import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { closeRedis, CredentialThrottle, type CredentialThrottleLimits, type Logger, type Verifier } from '@verify-hub/core';
import { LocalEngine } from '../local-engine';
import type { LocalEngineOptions } from '../options';
import { createEngineApp } from './app';
import { DEFAULT_LIMITS, KeyStore, type AccountLimits } from './key-store';
import { EngineMetrics } from './metrics';
import { AccountRateLimiter } from './rate-limit';
import { IdempotencyStore } from './idempotency';
import { createEngineRedis } from './redis-client';

export interface EngineServerOptions {
  /** Default 8081 (`ENGINE_PORT`); 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1; set 0.0.0.0 to serve other machines. */
  host?: string;
  /** Where keys, accounts, usage and rate windows live. Either a URL (a connection is opened and closed) or a client (left open). */
  redisUrl?: string;
  redis?: Redis;
  /** Prefix of every Redis key (default `vh:engine:`). */
  keyPrefix?: string;
  /** A key accepted in addition to those created with `keys create` (ENGINE_API_KEY), registered at start-up. */
  bootstrapKey?: string;
  /** Limits of accounts created without explicit ones. */
  defaultLimits?: AccountLimits;
  /** The verifier behind the API: a LocalEngine built from `engine` options unless given. */
  verifier?: Verifier;
  engine?: LocalEngineOptions;
  /** Wrong keys allowed before a lock-out (default core's CREDENTIAL_THROTTLE_DEFAULTS: 10 a minute per address, 15 minutes). */
  throttle?: Partial<CredentialThrottleLimits>;
  logger?: Logger;
}

export interface EngineServer {
  url: string;
  store: KeyStore;
  metrics: EngineMetrics;
  verifier: Verifier;
  close(): Promise<void>;
}

/** Starts the engine API server. `close()` stops it and closes the Redis connection it opened. */
export async function startEngineServer(options: EngineServerOptions = {}): Promise<EngineServer> {
  const ownsRedis = !options.redis;
  const redis = options.redis ?? createEngineRedis(options.redisUrl ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2, lazyConnect: true });
  if (ownsRedis) await redis.connect();
  const prefix = options.keyPrefix ?? 'vh:engine:';
  const store = new KeyStore(redis, prefix, options.defaultLimits ?? DEFAULT_LIMITS);
  if (options.bootstrapKey) {
    // A refused key must end `verify-hub engine`: the connection opened here would otherwise keep it running.
    const ensured = await store.ensureKey(options.bootstrapKey, { name: 'ENGINE_API_KEY' }).catch((error: unknown) => {
      if (ownsRedis) redis.disconnect();
      throw error;
    });
    const { record, created } = ensured;
    if (record.revokedAt) options.logger?.warn({ keyId: record.id }, 'the key in ENGINE_API_KEY was revoked: it stays refused');
    else if (created) options.logger?.info({ keyId: record.id, account: record.account }, 'registered the key in ENGINE_API_KEY');
  }
  const metrics = new EngineMetrics();
  // Replicas of the engine behind one Redis share each mail host's connection limit.
  const verifier = options.verifier ?? new LocalEngine({ sharedLimits: { redis, prefix }, ...options.engine });
  const app = createEngineApp({
    verifier,
    store,
    rateLimiter: new AccountRateLimiter(redis, prefix),
    throttle: new CredentialThrottle(redis, prefix, options.throttle, options.logger),
    idempotency: new IdempotencyStore(redis, prefix),
    metrics,
    redis,
    dnsUnavailable: verifier instanceof LocalEngine ? () => verifier.dnsUnavailable : undefined,
    logger: options.logger,
  });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(options.port ?? 8081, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    store,
    metrics,
    verifier,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownsRedis) await closeRedis(redis);
    },
  };
}
