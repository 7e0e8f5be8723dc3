import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { KeyStore, LAST_USED_PRECISION_MS, LocalEngine, startEngineServer, type EngineServer } from '@verify-hub/engine';
import { engineKeysFromConfig, keyAdmin } from '../../cli/src/engine-keys-from-config';
import { bearer, createHarness, until, type Harness } from './harness';
import { loadHubConfig } from '../../cli/src/platforms';

/**
 * The dashboard's API keys page over the engine's real key store, against a real engine server on the
 * same Redis: what the page creates works on the engine, what it revokes is refused at the next
 * request, and its usage figures are the ones the engine's headers give.
 */
describe('API keys and usage (hub admin API over the engine key store)', () => {
  let h: Harness;
  let engine: EngineServer;
  let storeRedis: import('ioredis').Redis;
  const prefix = `test:engine-keys:${randomUUID()}:`;

  beforeAll(async () => {
    // The store on a Redis connection of its own (the harness opens its connection inside).
    const { Redis } = await import('ioredis');
    storeRedis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    h = await createHarness({ engineKeys: { admin: keyAdmin(new KeyStore(storeRedis, prefix), 'default') } });
    // Addresses at reserved domains are answered without any network traffic (and billed: they are invalid).
    engine = await startEngineServer({ port: 0, redisUrl: process.env.REDIS_URL, keyPrefix: prefix, verifier: new LocalEngine() });
    // The account's limits as an operator sets them (`verify-hub engine keys create --rate 7 --quota 250`).
    await engine.store.setAccountLimits('default', { ratePerSecond: 7, monthlyQuota: 250 });
  });
  afterAll(async () => {
    await engine?.close();
    const keys = await h.redis.keys(`${prefix}*`);
    if (keys.length) await h.redis.del(...keys);
    await storeRedis?.quit();
    await h.close();
  });

  const api = () => request(h.hub.app);
  const verify = (key: string) => fetch(`${engine.url}/api/v1/verify?email=${encodeURIComponent(`ada.${randomUUID().slice(0, 6)}@example.com`)}`, { headers: { 'X-API-Key': key } });

  it('creates a key shown once, lists it by prefix, notes its last use, and revokes it at once', async () => {
    const created = await api().post('/api/engine/keys').set(bearer).send({ name: 'Website form' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { key, record } = created.body as { key: string; record: { id: string; display: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null } };
    expect(key).toMatch(/^vh_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ name: 'Website form', display: `${key.slice(0, 7)}…`, lastUsedAt: null, revokedAt: null });

    const listed = await api().get('/api/engine/keys').set(bearer);
    expect(listed.body.keys).toEqual([record]);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(3));

    const used = await verify(key);
    expect(used.status).toBe(200);
    const afterUse = (await api().get('/api/engine/keys').set(bearer)).body.keys[0];
    expect(Date.parse(afterUse.lastUsedAt)).toBeGreaterThan(Date.parse(record.createdAt) - 1000);

    const revoked = await api().delete(`/api/engine/keys/${record.id}`).set(bearer);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const refused = await verify(key);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await api().delete(`/api/engine/keys/${randomUUID()}`).set(bearer)).status).toBe(404);
  });

  it("shows the month's usage with the very figures of the engine's X-RateLimit and X-Quota headers", async () => {
    const { key } = (await api().post('/api/engine/keys').set(bearer).send({ name: 'usage check' })).body as { key: string };
    const before = (await api().get('/api/engine/usage').set(bearer)).body;
    const answer = await verify(key);
    expect(answer.status).toBe(200);
    const usage = (await api().get('/api/engine/usage').set(bearer)).body;
    expect(usage).toMatchObject({ account: 'default', ratePerSecond: 7, monthlyQuota: 250 });
    expect(usage.used).toBe(before.used + 1);
    expect(String(usage.ratePerSecond)).toBe(answer.headers.get('x-ratelimit-limit'));
    expect(String(usage.monthlyQuota)).toBe(answer.headers.get('x-quota-limit'));
    expect(String(usage.remaining)).toBe(answer.headers.get('x-quota-remaining'));
    expect(String(Math.ceil(usage.resetsAt / 1000))).toBe(answer.headers.get('x-quota-reset'));
  });

  it('refuses a bad name naming the field, with the key store\'s rule', async () => {
    for (const body of [{}, { name: '' }, { name: '<script>' }, { name: 'x'.repeat(65) }, { name: 'ok', extra: 1 }]) {
      const res = await api().post('/api/engine/keys').set(bearer).send(body);
      expect(res.status).toBe(400);
      expect(res.body.field).toMatch(/^body(\.name)?$/);
    }
    const bad = await api().post('/api/engine/keys').set(bearer).send({ name: '-dash first' });
    expect(bad.body).toEqual({ code: 'INVALID_INPUT', field: 'body.name', error: 'body.name: must be 1-64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit' });
  });

  it('says where keys are managed when the engine is remote, and needs the admin token', async () => {
    expect((await api().get('/api/engine/keys')).status).toBe(401);
    const remote = await createHarness({ engineKeys: { elsewhere: 'The engine at https://api.example.com manages its own API keys.' } });
    try {
      const res = await request(remote.hub.app).get('/api/engine/keys').set(bearer);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 'ENGINE_KEYS_ELSEWHERE', error: 'The engine at https://api.example.com manages its own API keys.' });
    } finally {
      await remote.close();
    }
  });
});

describe('which engine keys the hub manages (serve wiring)', () => {
  const prefix = `test:engine-keys-wiring:${randomUUID()}:`;
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    const keys = await h.redis.keys(`${prefix}*`);
    if (keys.length) await h.redis.del(...keys);
    await h.close();
  });
  const config = (env: Record<string, string>) => loadHubConfig({ ENGINE_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent', ...env });

  it("the local engine's keys; a self-hosted engine's when its key is in this Redis; else where they are managed", async () => {
    const local = await engineKeysFromConfig(config({}), h.redis);
    expect('admin' in local).toBe(true);
    const store = new KeyStore(h.redis, prefix);
    const { key } = await store.createKey({ name: 'hub', account: 'acme' });
    const shared = await engineKeysFromConfig(config({ ENGINE_URL: 'http://127.0.0.1:8081', ENGINE_API_KEY: key }), h.redis);
    expect('admin' in shared && (await shared.admin.usage()).account).toBe('acme');
    const remote = await engineKeysFromConfig(config({ ENGINE_URL: 'https://api.example.com/v1', ENGINE_API_KEY: `vh_${'x'.repeat(43)}` }), h.redis);
    expect(remote).toEqual({ elsewhere: expect.stringContaining('The engine at https://api.example.com manages its own API keys') });
    expect(JSON.stringify(remote)).not.toContain('x'.repeat(43));
  });

  it('writes a key\'s last use at most once per LAST_USED_PRECISION_MS', async () => {
    const store = new KeyStore(h.redis, prefix);
    const { key, record } = await store.createKey({ name: 'busy' });
    const lastUsed = async () => (await store.listKeys()).find((r) => r.id === record.id)!.lastUsedAt;
    const t0 = Date.now();
    await store.authenticate(key, t0);
    await until(async () => (await lastUsed()) === new Date(t0).toISOString());
    await store.authenticate(key, t0 + LAST_USED_PRECISION_MS - 1);
    await store.authenticate(key, t0 + 1000);
    // A later write would have landed by the time this one (queued after them on the connection) answers.
    await h.redis.ping();
    expect(await lastUsed()).toBe(new Date(t0).toISOString());
    await store.authenticate(key, t0 + LAST_USED_PRECISION_MS);
    await until(async () => (await lastUsed()) === new Date(t0 + LAST_USED_PRECISION_MS).toISOString());
  });
});
