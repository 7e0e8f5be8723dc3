import { randomUUID } from 'node:crypto';
import { runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';

const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

/**
 * An exclusive hold on a Redis key that expires unless renewed: the one job writing a single-writer
 * run (a file) holds it, so a run paused and quickly resumed never has two jobs writing its output.
 * Renewed every third of its time to live while held; a holder that dies lets it expire.
 */
export class RunLease {
  private timer?: NodeJS.Timeout;

  private constructor(private readonly redis: Redis, private readonly key: string, private readonly token: string) {}

  /** The lease, or undefined while another holder has it. */
  static async acquire(redis: Redis, key: string, ttlMs = 30_000): Promise<RunLease | undefined> {
    const token = randomUUID();
    if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
    const lease = new RunLease(redis, key, token);
    lease.timer = setInterval(() => void runScript(redis, RENEW, 1, key, token, String(ttlMs)).catch(() => undefined), Math.max(10, Math.floor(ttlMs / 3)));
    lease.timer.unref();
    return lease;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await runScript(this.redis, RELEASE, 1, this.key, this.token).catch(() => undefined);
  }
}
