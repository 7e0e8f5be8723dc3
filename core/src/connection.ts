import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { CallLimiter, Connector, Scope } from './connector';
import { ConfigError, InputError } from './errors';
import type { Logger } from './logger';

/**
 * A platform connection (one HubSpot portal, one Mailchimp account). Credentials are held decrypted
 * only in memory; stores keep them sealed with `SecretBox`.
 */
export interface ConnectionRecord {
  /** Stable id, for example `hubspot-<portalId>` or `mailchimp-<dc>-<accountId>`. */
  id: string;
  platform: string;
  label: string;
  createdAt: string;
  /** Platform-specific: `{ accessToken, refreshToken, expiresAt }`, `{ apiKey }`, ... */
  credentials: Record<string, string | number | undefined>;
  /** Platform-specific settings: property names, rate-limit tier, list ids, ... */
  settings?: Record<string, unknown>;
}

export interface ConnectionStore {
  get(id: string): Promise<ConnectionRecord | undefined>;
  save(record: ConnectionRecord): Promise<void>;
  list(platform?: string): Promise<ConnectionRecord[]>;
  delete(id: string): Promise<boolean>;
  /**
   * Replaces only the credentials of a stored connection (a token refresh), leaving its settings as
   * they are now and doing nothing when it was deleted meanwhile. Stores without it get a merge.
   */
  saveCredentials?(id: string, credentials: ConnectionRecord['credentials']): Promise<void>;
}

/** A limiter shared by every worker on every machine, named by `key` (for example `hubspot:<portal>:10s`). */
export interface LimiterSpec {
  key: string;
  /** At most this many calls under way at once (Mailchimp: 10 connections). */
  maxConcurrent?: number;
  /** At most `count` calls starting in any `intervalMs` window (HubSpot: 100 per 10 s). */
  perInterval?: { count: number; intervalMs: number };
}
export type LimiterFactory = (spec: LimiterSpec) => CallLimiter;

/** What the sync pipeline hands a connector factory. */
export interface ConnectorDeps {
  limiter: LimiterFactory;
  /** Persists refreshed credentials (OAuth refresh) so every worker uses the new token. */
  saveCredentials(credentials: ConnectionRecord['credentials']): Promise<void>;
  /**
   * The run's (or the command's) logger: a connector makes its child (`platformLogger`) and logs each
   * platform call at debug and each failure at warn. Absent, the connector logs nothing.
   */
  logger?: Logger;
  /**
   * The connection's `settings`, validated by the host against its module's `settings` schema (defaults
   * applied); absent when the factory is called directly, outside a registry.
   */
  settings?: unknown;
  /** The module's environment variables (`PlatformModule.environment`), read typed from the process's configuration. */
  environment?: Record<string, unknown>;
}

/**
 * Builds a platform's connector for one connection. `checkScope`, when the platform has one, judges a
 * scope without a connection (a run is refused at start when its scope can never be read).
 */
export type ConnectorFactory = ((connection: ConnectionRecord, deps: ConnectorDeps) => Connector) & { checkScope?(scope: Scope): void };

/**
 * In-process limiter, for standalone use and tests (the sync pipeline's is Redis-backed and shared).
 * Enforces both `maxConcurrent` and the sliding `perInterval` window.
 */
export function createLocalLimiter(spec: Omit<LimiterSpec, 'key'> & { key?: string }): CallLimiter {
  const starts: number[] = [];
  let running = 0;
  const waiting: (() => void)[] = [];
  const canStart = (now: number) => {
    if (spec.maxConcurrent !== undefined && running >= spec.maxConcurrent) return 0;
    if (spec.perInterval) {
      while (starts.length && now - starts[0]! >= spec.perInterval.intervalMs) starts.shift();
      if (starts.length >= spec.perInterval.count) return starts[0]! + spec.perInterval.intervalMs - now;
    }
    return -1;
  };
  const acquire = async (): Promise<void> => {
    for (;;) {
      const wait = canStart(Date.now());
      if (wait < 0) break;
      if (wait === 0) await new Promise<void>((r) => waiting.push(r));
      else await new Promise((r) => setTimeout(r, wait));
    }
    running++;
    starts.push(Date.now());
  };
  return {
    async schedule<T>(fn: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await fn();
      } finally {
        running--;
        waiting.shift()?.();
      }
    },
  };
}

/**
 * Seals secrets at rest with AES-256-GCM under a key derived from `HUB_SECRET_KEY`. The sealed form
 * is `v1.<iv>.<tag>.<ciphertext>` (base64url); tampering or a wrong key fails to open.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(secretKey: string | undefined) {
    if (!secretKey || secretKey.length < 32) throw new ConfigError('HUB_SECRET_KEY', 'must be set to at least 32 characters to store platform credentials');
    this.key = createHash('sha256').update(secretKey, 'utf8').digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new InputError('credentials', 'not a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new InputError('credentials', 'cannot be opened with HUB_SECRET_KEY (wrong key or tampered)');
    }
  }

  /**
   * `sealed` sealed again under `next` (a HUB_SECRET_KEY rotation): `undefined` when `next` already
   * opens it (rotated by an earlier, interrupted run); an InputError when neither key opens it.
   */
  resealFor(next: SecretBox, sealed: string): string | undefined {
    try {
      return next.seal(this.open(sealed));
    } catch (error) {
      try {
        next.open(sealed);
        return undefined;
      } catch {
        throw error;
      }
    }
  }
}
