import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';
import { HookStore } from '@verify-hub/webhooks-in';
import { cli } from './run-cli';

/**
 * `verify-hub secret-key rotate` against a real Redis: the steps SECURITY.md gives for rotating
 * HUB_SECRET_KEY, run as written (connections and hook secrets sealed under the old key, the command,
 * then the new key alone opens everything).
 */
const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('base64');
const prefix = `test-rotate-${randomUUID().slice(0, 8)}`;
// Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
let redis: ReturnType<typeof createRedis>;
beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
const keys = new Keys(prefix, { cluster: false });
const hubPrefix = `${prefix}:hub:`;
const saved: Record<string, string | undefined> = {};
let dir: string;

function setEnv(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!(name in saved)) saved[name] = process.env[name];
    process.env[name] = value;
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rotate-'));
  writeFileSync(join(dir, 'new-key'), `${newKey}\n`);
  setEnv({ HUB_SECRET_KEY: oldKey, VERIFY_HUB_REDIS_PREFIX: prefix });
});
afterAll(async () => {
  const found = await redis.keys(`${prefix}*`);
  if (found.length > 0) await redis.del(...found);
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('seals every stored connection and hook secret under the new key; running it again changes nothing', async () => {
  const oldStore = new RedisConnectionStore(redis, keys, new SecretBox(oldKey));
  const credentials = { accessToken: `tok-${randomUUID()}`, refreshToken: 'r', expiresAt: 1 };
  await oldStore.save({ id: 'hubspot-1', platform: 'hubspot', label: 'Portal 1', createdAt: new Date().toISOString(), credentials });
  await oldStore.save({ id: 'mailchimp-us1-a', platform: 'mailchimp', label: 'List', createdAt: new Date().toISOString(), credentials: { apiKey: 'k-us1' }, settings: { listId: 'a' } });
  const sealedHook = await new HookStore(redis, hubPrefix, new SecretBox(oldKey)).add({ url: 'https://hooks.example.com/a' });
  // A hook registered while no key was set keeps its secret in the clear: rotation seals it.
  const clearHook = await new HookStore(redis, hubPrefix).add({ url: 'https://hooks.example.com/b' });

  const first = await cli('secret-key', 'rotate', '--new-key-file', join(dir, 'new-key'), '--json');
  expect(first.err).toBe('');
  expect(first.code).toBe(0);
  expect(JSON.parse(first.out)).toEqual({ connections: { resealed: 2, already: 0 }, hooks: { resealed: 2, already: 0 } });

  const newStore = new RedisConnectionStore(redis, keys, new SecretBox(newKey));
  expect((await newStore.get('hubspot-1'))?.credentials).toEqual(credentials);
  expect(await newStore.get('mailchimp-us1-a')).toMatchObject({ credentials: { apiKey: 'k-us1' }, settings: { listId: 'a' } });
  await expect(oldStore.get('hubspot-1')).rejects.toThrow(/cannot be opened with HUB_SECRET_KEY/);
  const newHooks = new HookStore(redis, hubPrefix, new SecretBox(newKey));
  expect((await newHooks.withSecret(sealedHook.id))?.secret).toBe(sealedHook.secret);
  expect((await newHooks.withSecret(clearHook.id))?.secret).toBe(clearHook.secret);
  expect(JSON.stringify(await redis.hgetall(`${hubPrefix}hooks`))).not.toContain(clearHook.secret);

  // Interrupted and run again (still with the old key configured): what the new key opens is left alone.
  const again = await cli('secret-key', 'rotate', '--new-key-file', join(dir, 'new-key'));
  expect(again.code).toBe(0);
  expect(again.out).toContain('connections: 0 sealed under the new key, 2 already were');
  expect(again.out).toContain('Now set HUB_SECRET_KEY to the new key');
  expect((await newStore.get('hubspot-1'))?.credentials).toEqual(credentials);
});

test('refuses a missing, short or unchanged new key, naming the option, and never prints a key', async () => {
  writeFileSync(join(dir, 'short'), 'too-short\n');
  writeFileSync(join(dir, 'same'), oldKey);
  for (const [file, message] of [
    [join(dir, 'absent'), /--new-key-file: cannot read/],
    [join(dir, 'short'), /--new-key-file: must hold the new key/],
    [join(dir, 'same'), /--new-key-file: holds the current HUB_SECRET_KEY/],
  ] as const) {
    const result = await cli('secret-key', 'rotate', '--new-key-file', file);
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(message);
    expect(result.out + result.err).not.toContain(oldKey);
  }
});
