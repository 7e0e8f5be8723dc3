import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/** The per-MX-host connection limit is shared through Redis by every engine process. */
describe('per-MX-host limits shared through Redis', () => {
  let world: MailWorld;
  let redis: Redis;
  const prefix = `test:engine-mx:${randomUUID()}:`;

  beforeAll(async () => {
    world = await startMailWorld();
    for (let i = 0; i < 8; i++) world.smtp.script(`shared${i}@acme-mail.com`, 'accept');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await world.stop();
  });

  it('two engines (two processes) together open at most maxConnectionsPerHost sessions to one host', async () => {
    world.smtp.connections.clear();
    // The helpers' 400-500 ms SMTP timeouts are for tests of timeouts: on a loaded machine a late greeting
    // sent an address to the second MX, a ninth session. This test counts sessions, so it waits longer.
    const options = { maxConnectionsPerHost: 2, catchAllProbe: false, totalTimeoutMs: 15_000, smtpConnectTimeoutMs: 5_000, smtpCommandTimeoutMs: 5_000, sharedLimits: { redis, prefix } };
    const [a, b] = [engineFor(world, options), engineFor(world, options)];
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).verify(`shared${i}@acme-mail.com`)));
    expect(results.map((r) => r.risk)).toEqual(Array(8).fill('safe'));
    expect(world.smtp.connections.size).toBe(8);
    expect(world.smtp.maxConcurrentConversations()).toBeLessThanOrEqual(2);
    expect(await redis.zcard(`${prefix}mx-slots:mx1.acme-mail.com`)).toBe(0); // every lease given back
  });

  it('a lease left by a killed process expires instead of blocking the host', async () => {
    const key = `${prefix}mx-slots:mx1.acme-mail.com`;
    const [seconds] = await redis.time();
    const expiry = Number(seconds) * 1000 + 1500;
    await redis.zadd(key, expiry, 'dead-1', expiry, 'dead-2');
    const engine = engineFor(world, { maxConnectionsPerHost: 2, catchAllProbe: false, totalTimeoutMs: 15_000, sharedLimits: { redis, prefix } });
    expect((await engine.verify('shared0@acme-mail.com')).risk).toBe('safe');
    // It could only run once the dead leases had lapsed (on Redis's clock, the one the leases use).
    const [after, micros] = await redis.time();
    expect(Number(after) * 1000 + Math.floor(Number(micros) / 1000)).toBeGreaterThanOrEqual(expiry);
  });

  it('a per-host rate limit spaces new sessions', async () => {
    world.smtp.connections.clear();
    const engine = engineFor(world, { maxConnectionsPerHost: 8, maxSessionsPerSecondPerHost: 3, catchAllProbe: false, totalTimeoutMs: 15_000, sharedLimits: { redis, prefix: `${prefix}rate:` } });
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => engine.verify(`shared${i}@acme-mail.com`)));
    expect(results.map((r) => r.risk)).toEqual(Array(6).fill('safe'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900); // 3 in the first second, 3 in the next
  });
});
