import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { InputError, KEY_NAME_PATTERN, closeRedis, KEY_NAME_RULE, parseEngineKeyRecord, type EngineAccountUsage, type EngineKeyRecord } from '@verify-hub/core';
import { createEngineRedis } from './redis-client';

/**
 * API keys and accounts of the self-hosted engine, kept in Redis (engine/README.md says why: several
 * engine processes share one account's rate limit and quota, a revocation made by the CLI is seen by
 * every server at its next request, and counters are atomic).
 *
 * A key is `<prefix>_<43 characters of base64url>` from 32 random bytes. It is shown once, at creation;
 * Redis holds only its SHA-256 (right for a high-entropy secret: no salt or slow hash needed, since the
 * key cannot be guessed from a dictionary). Lookup is by hash, then the stored and computed hashes are
 * compared with `timingSafeEqual`.
 *
 * Layout under the key prefix (default `vh:engine:`):
 *   key:<sha256 hex>        hash: id, account, name, createdAt, revokedAt, display, hash, lastUsedAt
 *   keys                    hash: id -> sha256 hex (listing and revocation by id)
 *   account:<name>          hash: ratePerSecond, monthlyQuota
 *   usage:<account>:<YYYY-MM>  billable verifications this month (expires after 62 days)
 */
/** A key's record (core's shape, shared with the hub's API keys page). */
export type KeyRecord = EngineKeyRecord;

/**
 * A key's last use is written at most once a minute: `authenticate` already reads the key's hash, so
 * it compares the stored time and writes (one HSET, not awaited by the request) only when it is older.
 * A busy key costs one write a minute instead of one per request.
 */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * An account's standing this month: the figures the engine sends as `X-RateLimit-Limit` (the rate)
 * and `X-Quota-Limit` / `X-Quota-Remaining` / `X-Quota-Reset`, from one function (`KeyStore.accountUsage`)
 * for both the headers and the hub's usage page.
 */
export type AccountUsage = EngineAccountUsage;

export interface AccountLimits {
  ratePerSecond: number;
  monthlyQuota: number;
}

export const DEFAULT_LIMITS: AccountLimits = { ratePerSecond: 10, monthlyQuota: 10_000 };

/** What can be a key at all: generated keys, and operator-provided ones (ENGINE_API_KEY) of 24+ printable characters. */
const KEY_PATTERN = /^[\x21-\x7e]{24,256}$/;

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export class KeyStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    prefix = 'vh:engine:',
    private readonly defaults: AccountLimits = DEFAULT_LIMITS,
  ) {
    // A key's record, the id index and its account are written in one MULTI: on a Redis Cluster one hash tag keeps them in one slot.
    this.prefix = redis.isCluster ? `{${prefix}}` : prefix;
  }

  /** Creates a key; the returned `key` is the only time the secret exists outside its holder. */
  async createKey(input: { name: string; account?: string; keyPrefix?: string }): Promise<{ key: string; record: KeyRecord }> {
    const name = input.name?.trim();
    if (!name || !KEY_NAME_PATTERN.test(name)) throw new InputError('name', KEY_NAME_RULE);
    const account = (input.account ?? 'default').trim();
    if (!KEY_NAME_PATTERN.test(account)) throw new InputError('account', KEY_NAME_RULE);
    const keyPrefix = input.keyPrefix ?? 'vh';
    if (!/^[a-z][a-z0-9]{0,15}$/.test(keyPrefix)) throw new InputError('keyPrefix', 'must be 1-16 lower-case letters or digits, starting with a letter');
    const key = `${keyPrefix}_${randomBytes(32).toString('base64url')}`;
    const hash = hashKey(key).toString('hex');
    const record: KeyRecord = { id: randomUUID(), account, name, createdAt: new Date().toISOString(), revokedAt: null, display: `${key.slice(0, keyPrefix.length + 5)}…`, lastUsedAt: null };
    await this.storeKey(hash, record);
    return { key, record };
  }

  /**
   * Registers a key chosen by the operator (ENGINE_API_KEY in a compose file shared by hub and engine), so
   * the deployment works without a `keys create` step. Idempotent; a key that was revoked stays revoked.
   * It is stored like any other key: as its SHA-256 only.
   */
  async ensureKey(key: string, input: { name: string; account?: string }): Promise<{ record: KeyRecord; created: boolean }> {
    if (!KEY_PATTERN.test(key) || key.length < 24) throw new InputError('ENGINE_API_KEY', 'must be 24 to 256 printable characters without spaces');
    const hash = hashKey(key).toString('hex');
    const existing = await this.recordByHash(hash);
    if (existing) return { record: existing, created: false };
    const account = input.account ?? 'default';
    const record: KeyRecord = { id: randomUUID(), account, name: input.name, createdAt: new Date().toISOString(), revokedAt: null, display: `${key.slice(0, 4)}…`, lastUsedAt: null };
    await this.storeKey(hash, record);
    return { record, created: true };
  }

  /** One transaction: the key's record under its hash, the id index, and the account's default limits if new. */
  private async storeKey(hash: string, record: KeyRecord): Promise<void> {
    await this.redis
      .multi()
      .hset(`${this.prefix}key:${hash}`, { ...record, revokedAt: '', lastUsedAt: '', hash })
      .hset(`${this.prefix}keys`, record.id, hash)
      .hsetnx(`${this.prefix}account:${record.account}`, 'ratePerSecond', String(this.defaults.ratePerSecond))
      .hsetnx(`${this.prefix}account:${record.account}`, 'monthlyQuota', String(this.defaults.monthlyQuota))
      .exec();
  }

  async listKeys(): Promise<KeyRecord[]> {
    const hashes = await this.redis.hgetall(`${this.prefix}keys`);
    const records = await Promise.all(Object.values(hashes).map((h) => this.recordByHash(h)));
    return records.filter((r): r is KeyRecord => r !== null).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Revokes at once: the next request with this key is refused by every server sharing the Redis. */
  async revokeKey(id: string): Promise<KeyRecord | null> {
    const hash = await this.redis.hget(`${this.prefix}keys`, id);
    if (!hash) return null;
    const key = `${this.prefix}key:${hash}`;
    if (!(await this.redis.hget(key, 'revokedAt'))) await this.redis.hset(key, 'revokedAt', new Date().toISOString());
    return this.recordByHash(hash);
  }

  /** The record of `key`, revoked or not, without noting a use (a host checking which account its key is in). */
  async findKey(key: string): Promise<KeyRecord | null> {
    return KEY_PATTERN.test(key) ? this.recordByHash(hashKey(key).toString('hex')) : null;
  }

  /** The key's record when it is well-formed, known and not revoked; else null. Notes its last use (at most once a minute). */
  async authenticate(presented: string | undefined, now = Date.now()): Promise<KeyRecord | null> {
    const checked = await this.check(presented, now);
    return checked.kind === 'valid' ? checked.record : null;
  }

  /**
   * `authenticate`, telling a revoked key (a client not told yet) from one that does not exist (a
   * typo or a guess: what the credential throttle counts).
   */
  async check(presented: string | undefined, now = Date.now()): Promise<{ kind: 'valid'; record: KeyRecord } | { kind: 'revoked' | 'unknown' }> {
    if (!presented || !KEY_PATTERN.test(presented)) return { kind: 'unknown' };
    const computed = hashKey(presented);
    const hex = computed.toString('hex');
    const fields = await this.redis.hgetall(`${this.prefix}key:${hex}`);
    if (!fields.id || !fields.hash) return { kind: 'unknown' };
    if (!timingSafeEqual(Buffer.from(fields.hash, 'hex'), computed)) return { kind: 'unknown' };
    if (fields.revokedAt) return { kind: 'revoked' };
    const lastUsed = fields.lastUsedAt ? Date.parse(fields.lastUsedAt) : NaN;
    if (!(now - lastUsed < LAST_USED_PRECISION_MS)) {
      fields.lastUsedAt = new Date(now).toISOString();
      // Not awaited: a lost write only makes "last used" a minute older, never refuses a request.
      this.redis.hset(`${this.prefix}key:${hex}`, 'lastUsedAt', fields.lastUsedAt).catch(() => undefined);
    }
    const record = parseEngineKeyRecord(fields);
    return record ? { kind: 'valid', record } : { kind: 'unknown' };
  }

  /** This month's figures for `account`: what the `X-RateLimit-*` and `X-Quota-*` headers say. */
  async accountUsage(account: string, now = new Date()): Promise<AccountUsage> {
    const [limits, used] = await Promise.all([this.accountLimits(account), this.usage(account, now)]);
    return { account, ...limits, used, remaining: Math.max(0, limits.monthlyQuota - used), resetsAt: quotaResetAt(now).getTime() };
  }

  async accountLimits(account: string): Promise<AccountLimits> {
    const fields = await this.redis.hgetall(`${this.prefix}account:${account}`);
    const rate = Number(fields.ratePerSecond);
    const quota = Number(fields.monthlyQuota);
    return {
      ratePerSecond: Number.isFinite(rate) && rate > 0 ? rate : this.defaults.ratePerSecond,
      monthlyQuota: Number.isFinite(quota) && quota >= 0 ? quota : this.defaults.monthlyQuota,
    };
  }

  async setAccountLimits(account: string, limits: Partial<AccountLimits>): Promise<AccountLimits> {
    if (limits.ratePerSecond !== undefined && !(Number.isInteger(limits.ratePerSecond) && limits.ratePerSecond > 0)) throw new InputError('ratePerSecond', 'must be a positive integer');
    if (limits.monthlyQuota !== undefined && !(Number.isInteger(limits.monthlyQuota) && limits.monthlyQuota >= 0)) throw new InputError('monthlyQuota', 'must be a whole number, 0 or more');
    const fields: Record<string, string> = {};
    if (limits.ratePerSecond !== undefined) fields.ratePerSecond = String(limits.ratePerSecond);
    if (limits.monthlyQuota !== undefined) fields.monthlyQuota = String(limits.monthlyQuota);
    if (Object.keys(fields).length > 0) await this.redis.hset(`${this.prefix}account:${account}`, fields);
    return this.accountLimits(account);
  }

  /**
   * Takes one credit of this month's quota, atomically. Returns how many are used, or null (and takes
   * nothing) when the quota is spent. Verifications that end `unknown` give theirs back (`refund`).
   */
  async reserveCredit(account: string, quota: number, now = new Date()): Promise<number | null> {
    const key = this.usageKey(account, now);
    const used = await this.redis.incr(key);
    if (used === 1) await this.redis.expire(key, 62 * 24 * 3600);
    if (used > quota) {
      await this.redis.decr(key);
      return null;
    }
    return used;
  }

  async refundCredit(account: string, now = new Date()): Promise<void> {
    await this.redis.decr(this.usageKey(account, now));
  }

  async usage(account: string, now = new Date()): Promise<number> {
    return Number((await this.redis.get(this.usageKey(account, now))) ?? 0);
  }

  private usageKey(account: string, now: Date): string {
    return `${this.prefix}usage:${account}:${now.toISOString().slice(0, 7)}`;
  }

  private async recordByHash(hash: string): Promise<KeyRecord | null> {
    const fields = await this.redis.hgetall(`${this.prefix}key:${hash}`);
    return parseEngineKeyRecord(fields);
  }
}

/** When this month's quota resets: the first instant of next month, UTC. */
export function quotaResetAt(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Opens a KeyStore on its own Redis connection (for the CLI); throws when Redis does not answer. */
export async function openKeyStore(redisUrl: string, prefix = 'vh:engine:'): Promise<{ store: KeyStore; close(): Promise<void> }> {
  const redis = createEngineRedis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return { store: new KeyStore(redis, prefix), close: () => closeRedis(redis) };
}
