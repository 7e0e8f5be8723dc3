import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/**
 * When each address was first refused with a temporary "user unknown" (a 4xx naming the recipient), so a
 * re-check hours later can tell a lasting refusal (then `invalid`) from a passing one. In-process by
 * default; in Redis when the engine shares its limits there, so every replica of `verify-hub engine`
 * remembers the same refusals. Addresses are stored hashed.
 */
export interface RefusalMemory {
  /** Records `now` unless a refusal is on record, and returns the first refusal's time (ms since the epoch). */
  firstRefusal(address: string, now: number): Promise<number>;
  /** The mailbox answered otherwise: its earlier refusal no longer counts. */
  forget(address: string): Promise<void>;
}

export class LocalRefusalMemory implements RefusalMemory {
  private readonly firsts = new Map<string, number>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 100_000) {}

  async firstRefusal(address: string, now: number): Promise<number> {
    const first = this.firsts.get(address);
    if (first !== undefined && now - first < this.ttlMs) return first;
    this.firsts.delete(address);
    this.firsts.set(address, now);
    if (this.firsts.size > this.maxEntries) this.firsts.delete(this.firsts.keys().next().value as string);
    return now;
  }

  async forget(address: string): Promise<void> {
    this.firsts.delete(address);
  }
}

export class RedisRefusalMemory implements RefusalMemory {
  constructor(private readonly redis: Redis | Cluster, private readonly prefix: string, private readonly ttlMs: number) {}

  async firstRefusal(address: string, now: number): Promise<number> {
    const key = this.key(address);
    const [[, , ], [, first]] = (await this.redis.multi().set(key, String(now), 'PX', this.ttlMs, 'NX').get(key).exec()) as [[Error | null, unknown], [Error | null, string | null]];
    const value = Number(first);
    return Number.isFinite(value) && first !== null ? value : now;
  }

  async forget(address: string): Promise<void> {
    await this.redis.del(this.key(address));
  }

  private key(address: string): string {
    return `${this.prefix}refused:${createHash('sha256').update(address).digest('hex')}`;
  }
}
