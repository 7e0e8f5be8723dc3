import type { Redis } from 'ioredis';

/**
 * Remembers webhook deliveries by their event's `dedupeKey` (Redis SET NX with a TTL), so a platform's
 * retry or a replayed delivery is acknowledged without queueing the work twice. This is the one place
 * deliveries are deduplicated; the pipeline only coalesces queued work per contact.
 */
export class DeliveryDedupe {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(dedupeKey: string): string {
    return `${this.prefix}webhook:seen:${dedupeKey}`;
  }

  /** For each key, whether it is new (claimed now). One round trip for the whole batch. */
  async claim(dedupeKeys: string[]): Promise<boolean[]> {
    if (dedupeKeys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of dedupeKeys) pipeline.set(this.key(key), '1', 'EX', this.ttlSeconds, 'NX');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, reply]) => {
      if (error) throw error;
      return reply === 'OK';
    });
  }

  /** Forgets claimed keys whose work could not be queued, so the platform's retry is accepted. */
  async release(dedupeKeys: string[]): Promise<void> {
    if (dedupeKeys.length) await this.redis.del(...dedupeKeys.map((k) => this.key(k)));
  }
}
