import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { CredentialThrottle, type CredentialAttempt } from '@verify-hub/core';
import { sendThrottleRefusal } from '../../webhooks-in/src/auth';
import { TS_CHILD_ARGS } from '../setup/ts-child';

/**
 * An address whose checks under way stay at its limit past `busyAfterMs` is refused as busy: its own
 * kind, answered "busy, try again" (503 BUSY with Retry-After on the hub), never as a lock-out, and
 * nothing is counted against the address.
 */
describe('the credential throttle when an address is busy', () => {
  let redis: Redis;
  const prefix = `test:throttle-busy:${randomUUID()}:`;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('refuses the check beyond the limit as busy after the wait, without a lock-out, and lets the next one in once a check ends', async () => {
    const throttle = new CredentialThrottle(redis, prefix, { perAddress: 2, busyAfterMs: 200 });
    const underWay = await Promise.all([throttle.attempt('203.0.113.7', 'admin-token', 'test'), throttle.attempt('203.0.113.7', 'admin-token', 'test')]);
    expect(underWay.every((a) => a.allowed)).toBe(true);
    const started = Date.now();
    const busy = await throttle.attempt('203.0.113.7', 'admin-token', 'test');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(busy).toEqual({ allowed: false, retryAfterSeconds: 1, refused: 'busy' });
    // Another address is not held back, and the busy one is not locked out: once a check ends, the next goes in.
    expect((await throttle.attempt('198.51.100.9', 'admin-token', 'test')).allowed).toBe(true);
    await (underWay[0] as CredentialAttempt).succeeded();
    const next = await throttle.attempt('203.0.113.7', 'admin-token', 'test');
    expect(next.allowed).toBe(true);
    for (const admitted of [underWay[1], next]) await (admitted as CredentialAttempt).succeeded();
  });

  it('counts the checks really under way: a slow check stays counted while its process lives; a stalled process\'s are abandoned, and their late reports free no extra place', async () => {
    // A process that dies or stalls mid-check stops renewing its checks; they stop counting after
    // abandonedAfterMs. A live one renews them however long they take: on a starved hub, checks that
    // stopped counting after 30 s while still being compared let 19 of 200 guesses be compared. The
    // older count (one fixed window for every check of an address) restarted at zero when that time ran
    // out, and the late reports drove it below zero (122 of 200 compared).
    const abandonedAfterMs = 2_000;
    const throttle = new CredentialThrottle(redis, prefix, { perAddress: 3, busyAfterMs: 0, abandonedAfterMs });
    const address = '192.0.2.44';
    const attempt = () => throttle.attempt(address, 'admin-token', 'test');
    const holder = spawn(process.execPath, [...TS_CHILD_ARGS, join(__dirname, 'fixtures', 'throttle-checks-process.ts'), process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix, address, String(abandonedAfterMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: holder.stdout! });
    const said = (line: string) => new Promise<void>((resolve) => lines.on('line', (l) => l === line && resolve()));
    try {
      const held = said('held');
      await Promise.race([held, once(holder, 'exit').then(() => Promise.reject(new Error('the holding process ended')))]);
      // Alive and holding: still counted well past abandonedAfterMs.
      await new Promise((resolve) => setTimeout(resolve, 2 * abandonedAfterMs));
      expect(await attempt()).toMatchObject({ allowed: false, refused: 'busy' });
      // Stalled: its three are abandoned, and the next check goes in (a busy refusal counts nothing).
      holder.kill('SIGSTOP');
      let fourth = await attempt();
      while (!fourth.allowed) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        fourth = await attempt();
      }
      // It goes on and reports the three, too late to be counted: the fourth is still under way, so two more places, not five.
      holder.kill('SIGCONT');
      const reported = said('reported');
      holder.stdin!.write('report\n');
      await reported;
      const next = [await attempt(), await attempt(), await attempt()];
      expect(next.map((a) => a.allowed)).toEqual([true, true, false]);
      expect(next[2]).toMatchObject({ refused: 'busy' });
      for (const admitted of [fourth, next[0], next[1]]) await (admitted as CredentialAttempt).succeeded();
    } finally {
      holder.kill('SIGCONT');
      holder.kill('SIGKILL');
      lines.close();
    }
  }, 60_000);

  it('is answered by the hub as busy (503 BUSY, Retry-After, "try again"), a lock-out as 429 TOO_MANY_ATTEMPTS', async () => {
    const app = express();
    app.get('/busy', (_req, res) => sendThrottleRefusal(res, { allowed: false, retryAfterSeconds: 1, refused: 'busy' }));
    app.get('/locked', (_req, res) => sendThrottleRefusal(res, { allowed: false, retryAfterSeconds: 900, refused: 'locked-out', lockedOut: 'address' }));
    const busy = await request(app).get('/busy');
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body.code).toBe('BUSY');
    expect(busy.body.error).toMatch(/^busy: .*try again in 1 s$/);
    expect(busy.body.error).not.toMatch(/failed|locked/);
    const locked = await request(app).get('/locked');
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.body.code).toBe('TOO_MANY_ATTEMPTS');
  });
});
