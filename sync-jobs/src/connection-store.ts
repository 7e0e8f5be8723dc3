import { InputError, SecretBox, type ConnectionRecord, type ConnectionStore, runScript } from '@verify-hub/core';
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
   * Seals every connection's credentials again under `next` (`verify-hub secret-key rotate`). Each is
   * replaced only if unchanged since it was read (a token refreshed meanwhile is read again), so nothing
   * is lost; one already sealed under `next` (an interrupted run) is left as it is.
   */
  async reseal(next: SecretBox): Promise<{ resealed: number; already: number }> {
    const counts = { resealed: 0, already: 0 };
    for (const id of await this.redis.smembers(this.keys.connectionIndex())) {
      for (;;) {
        const sealed = await this.redis.hget(this.keys.connection(id), 'credentials');
        if (sealed === null) break; // deleted meanwhile
        const again = this.box.resealFor(next, sealed);
        if (again === undefined) {
          counts.already++;
          break;
        }
        if (await replaceHashFieldIfUnchanged(this.redis, this.keys.connection(id), 'credentials', sealed, again)) {
          counts.resealed++;
          break;
        }
      }
    }
    return counts;
  }

  /**
   * Replaces only the credentials (an OAuth refresh), keeping the rest of the record as it is now; a
   * connection deleted meanwhile stays deleted (no half record is left behind).
   */
  async saveCredentials(id: string, credentials: ConnectionRecord['credentials']): Promise<void> {
    await runScript(
      this.redis,
      `if redis.call('HEXISTS', KEYS[1], 'id') == 1 then redis.call('HSET', KEYS[1], 'credentials', ARGV[1]) end return 1`,
      1,
      this.keys.connection(id),
      this.box.seal(JSON.stringify(credentials)),
    );
  }
}

/** Sets a hash field to `value` only while it still holds `expected` (one atomic step): true if set. */
export async function replaceHashFieldIfUnchanged(redis: Redis, key: string, field: string, expected: string, value: string): Promise<boolean> {
  const script = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0`;
  return (await runScript(redis, script, 1, key, field, expected, value)) === 1;
}
