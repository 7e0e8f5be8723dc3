import { InputError, SecretBox, type ConnectionRecord, type ConnectionStore } from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';

/**
 * Platform connections in Redis. Credentials are sealed with `SecretBox` (HUB_SECRET_KEY) before they
 * are stored and opened only in memory; everything else is kept as plain JSON.
 */
export class RedisConnectionStore implements ConnectionStore {
  constructor(private readonly redis: Redis, private readonly keys: Keys, private readonly box: SecretBox) {}

  async get(id: string): Promise<ConnectionRecord | undefined> {
    const h = await this.redis.hgetall(this.keys.connection(id));
    if (!h.id) return undefined;
    return {
      id: h.id,
      platform: h.platform!,
      label: h.label ?? h.id,
      createdAt: h.createdAt!,
      credentials: JSON.parse(this.box.open(h.credentials!)) as ConnectionRecord['credentials'],
      settings: h.settings ? (JSON.parse(h.settings) as Record<string, unknown>) : undefined,
    };
  }

  async save(record: ConnectionRecord): Promise<void> {
    if (!record.id || !/^[A-Za-z0-9._-]+$/.test(record.id)) throw new InputError('connection.id', 'must be letters, digits, dot, dash or underscore');
    if (!record.platform) throw new InputError('connection.platform', 'is required');
    const fields: Record<string, string> = {
      id: record.id,
      platform: record.platform,
      label: record.label,
      createdAt: record.createdAt,
      credentials: this.box.seal(JSON.stringify(record.credentials ?? {})),
    };
    if (record.settings) fields.settings = JSON.stringify(record.settings);
    await this.redis.multi().del(this.keys.connection(record.id)).hset(this.keys.connection(record.id), fields).sadd(this.keys.connectionIndex(), record.id).exec();
  }

  async list(platform?: string): Promise<ConnectionRecord[]> {
    const ids = (await this.redis.smembers(this.keys.connectionIndex())).sort();
    const records: ConnectionRecord[] = [];
    for (const id of ids) {
      const r = await this.get(id);
      if (r && (!platform || r.platform === platform)) records.push(r);
    }
    return records;
  }

  async delete(id: string): Promise<boolean> {
    const [[, removed]] = (await this.redis.multi().del(this.keys.connection(id)).srem(this.keys.connectionIndex(), id).exec()) as [[Error | null, number], unknown];
    return removed === 1;
  }

  /**
   * Replaces only the credentials (an OAuth refresh), keeping the rest of the record as it is now; a
   * connection deleted meanwhile stays deleted (no half record is left behind).
   */
  async saveCredentials(id: string, credentials: ConnectionRecord['credentials']): Promise<void> {
    await this.redis.eval(
      `if redis.call('HEXISTS', KEYS[1], 'id') == 1 then redis.call('HSET', KEYS[1], 'credentials', ARGV[1]) end return 1`,
      1,
      this.keys.connection(id),
      this.box.seal(JSON.stringify(credentials)),
    );
  }
}
