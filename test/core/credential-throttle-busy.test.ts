import express from 'express';
import request from 'supertest';
import { CredentialThrottle, type CredentialAttempt } from '@verify-hub/core';
import { throttleRedis } from './throttle-redis';
import { sendThrottleRefusal } from '../../webhooks-in/src/auth';

/**
 * An address whose checks under way stay at its limit past `busyAfterMs` is refused as busy: its own
 * kind, answered "busy, try again" (503 BUSY with Retry-After on the hub), never as a lock-out, and
 * nothing is counted against the address.
 */
describe('the credential throttle when an address is busy', () => {
  const shared = throttleRedis('throttle-busy');
  const { prefix } = shared;

  it('refuses the check beyond the limit as busy after the wait, without a lock-out, and lets the next one in once a check ends', async () => {
    const throttle = new CredentialThrottle(shared.redis, prefix, { perAddress: 2, busyAfterMs: 200 });
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
