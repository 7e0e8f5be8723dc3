import { Queue } from 'bullmq';
import { createLogger } from '@verify-hub/core';
import { SyncPipeline } from '@verify-hub/sync-jobs';

/** Polls `read` until `done` holds (or throws with the last value). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Removes what a closed `verify-hub serve` (`startServe`) left in Redis under `prefix`: a fresh
 * pipeline over the same prefix drops its schedules and keys, the hub's own queues (ingest, deliveries)
 * are obliterated, and its keys (sessions, sign-in limits, OAuth states) deleted.
 */
export async function purgeServeRedis(prefix: string, redisUrl = process.env.REDIS_URL): Promise<void> {
  const cleanup = new SyncPipeline({ redisUrl, prefix, logger: createLogger({ level: 'silent' }) });
  try {
    for (const schedule of await cleanup.listSchedules()) await cleanup.removeSchedule(schedule.id);
    await cleanup.purge();
    for (const name of [`${prefix}-webhook-ingest`, `${prefix}-hook-deliveries`]) {
      const queue = new Queue(name, { connection: cleanup.redis });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    const leftovers = await cleanup.redis.keys(`${prefix}*`);
    if (leftovers.length) await cleanup.redis.del(...leftovers);
  } finally {
    await cleanup.close();
  }
}
