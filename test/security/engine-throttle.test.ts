import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startEngineServer, type EngineServer } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from '../engine/helpers';
import { validatingProxy, type ValidatingProxy } from '../engine/openapi-contract';
import { captureLogs } from './hub';

/**
 * The local engine's API-key check under the same throttle as the hub's (core's CredentialThrottle): 10
 * unknown keys a minute from one address lock it out for 15 minutes, the right key included. A revoked
 * key is not a guess (a client not told yet) and a missing one compares nothing: neither is counted.
 * Every answer goes through the OpenAPI-validating proxy, the 429 of a lock-out included.
 */
describe('engine API keys under the credential throttle', () => {
  let world: MailWorld;
  let redis: Redis;
  const servers: { server: EngineServer; proxy: ValidatingProxy; prefix: string }[] = [];

  beforeAll(async () => {
    world = await startMailWorld();
    world.smtp.script('someone@acme-mail.com', 'accept');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterEach(() => {
    for (const { proxy } of servers) expect(proxy.invalid()).toEqual([]);
  });
  afterAll(async () => {
    for (const { server, proxy, prefix } of servers) {
      await proxy.close();
      await server.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    await redis.quit();
    await world.stop();
  });

  async function engine() {
    const prefix = `test:security-engine:${randomUUID()}:`;
    const logs = captureLogs();
    const server = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: engineFor(world), logger: logs.logger });
    const proxy = await validatingProxy(server.url);
    servers.push({ server, proxy, prefix });
    const verify = (key?: string) => fetch(`${proxy.url}/api/v1/verify?email=someone%40acme-mail.com`, { headers: key === undefined ? {} : { 'X-API-Key': key } });
    const { key } = await server.store.createKey({ name: 'the right key', account: 'acct' });
    return { server, verify, key, logs: logs.lines };
  }

  it('replays the attack on the engine: 200 wrong keys at once, then the right key from the same address, is refused and nothing is billed', async () => {
    const { server, verify, key, logs } = await engine();
    const guesses = Array.from({ length: 200 }, () => `vh_${randomBytes(32).toString('base64url')}`);
    const answers = await Promise.all(guesses.map((g) => verify(g)));
    expect(answers.filter((a) => a.status === 401).length).toBe(10);
    expect(answers.filter((a) => a.status === 429).length).toBe(190);
    const right = await verify(key);
    expect(right.status).toBe(429);
    expect(await right.json()).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(880);
    expect(Number(right.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now() + 880_000);
    expect(await server.store.usage('acct')).toBe(0);
    const logText = logs.join('');
    expect(logText).toContain('"credential":"engine-api-key"');
    for (const guess of guesses) expect(logText).not.toContain(guess.slice(3));
    expect(logText).not.toContain(key.slice(3));
  });

  it('never locks out a client that sends the right key many times at once (25 parallel verifications, twice)', async () => {
    // A hub or client verifies with the right key concurrently; before the fix each check counted against the
    // address while under way, and 11 at once locked the address out for 15 minutes (the Python client's
    // test of 25 parallel requests met TOO_MANY_ATTEMPTS).
    const { server, verify, key } = await engine();
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => verify(key)));
      const bodies = await Promise.all(answers.map((a) => a.json() as Promise<{ code?: string }>));
      expect(bodies.filter((b) => b.code === 'TOO_MANY_ATTEMPTS')).toEqual([]);
      expect(answers.filter((a) => a.status === 401)).toEqual([]);
    }
    // A wrong key afterwards is still refused normally: the right ones left no failure behind.
    expect((await verify(`vh_${randomBytes(32).toString('base64url')}`)).status).toBe(401);
    expect(await server.store.usage('acct')).toBeGreaterThan(0);
  });

  it('ends the throttled check when the key store fails: failures answer 500 and neither lock the address out nor keep it busy', async () => {
    // Each failed lookup was admitted as a key check under way; one left under way would hold one of the
    // address's 10 places for 30 s, and one counted as a guess would move it towards the lock-out.
    const { server, verify, key, logs } = await engine();
    const check = jest.spyOn(server.store, 'check').mockRejectedValue(new Error('key store down'));
    const failed = [];
    for (let i = 0; i < 12; i++) failed.push(await verify(key)); // one at a time: no wait for a place in any case
    expect(failed.map((a) => a.status)).toEqual(Array(12).fill(500));
    expect(await failed[0]!.json()).toMatchObject({ code: 'ENGINE_ERROR' });
    expect(check).toHaveBeenCalledTimes(12);
    check.mockRestore();
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify(key)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await server.store.usage('acct')).toBe(10);
    expect(logs.join('')).not.toContain(key.slice(3));
  });

  it('does not count revoked or missing keys: a client with a stale key cannot lock its own address out', async () => {
    const { server, verify, key } = await engine();
    const stale = await server.store.createKey({ name: 'stale', account: 'acct' });
    await server.store.revokeKey(stale.record.id);
    for (let i = 0; i < 15; i++) expect((await verify(stale.key)).status).toBe(401);
    for (let i = 0; i < 15; i++) expect((await verify()).status).toBe(401);
    const right = await verify(key);
    expect(right.status).toBe(200);
    expect(await server.store.usage('acct')).toBe(1);
  });
});
