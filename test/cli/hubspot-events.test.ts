import { randomBytes, randomUUID } from 'node:crypto';
import { openConnectionStore } from '../../cli/src/stored-connections';
import { cli } from './run-cli';
import { loadHubConfig } from '../../cli/src/platforms';

/** `verify-hub hubspot events <webhooks|journal> --connection`: switches where a stored connection's events come from. */
const env = { HUB_SECRET_KEY: randomBytes(32).toString('base64'), VERIFY_HUB_REDIS_PREFIX: `test-events-${randomUUID().slice(0, 8)}`, HUBSPOT_CLIENT_ID: 'client-id', HUBSPOT_CLIENT_SECRET: 'client-secret-value' };
const saved: Record<string, string | undefined> = {};

beforeAll(() => {
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  const { redis, store } = openConnectionStore(loadHubConfig(process.env));
  await store.delete('hubspot-931');
  redis.disconnect();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('sets journal or webhooks on a stored HubSpot connection, naming a bad source or connection', async () => {
  const { redis, store } = openConnectionStore(loadHubConfig(process.env));
  try {
    await store.save({ id: 'hubspot-931', platform: 'hubspot', label: 'Portal 931', createdAt: new Date().toISOString(), credentials: { accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() + 60_000 }, settings: { portalId: '931', rateTier: 'oauth' } });
    const journal = await cli('hubspot', 'events', 'journal', '--connection', 'hubspot-931');
    expect(journal).toMatchObject({ code: 0, out: expect.stringContaining("webhooks journal") });
    expect((await store.get('hubspot-931'))?.settings).toEqual({ portalId: '931', rateTier: 'oauth', events: 'journal' });
    expect((await cli('hubspot', 'events', 'webhooks', '--connection', 'hubspot-931')).code).toBe(0);
    expect((await store.get('hubspot-931'))?.settings?.events).toBe('webhooks');
    const badSource = await cli('hubspot', 'events', 'polling', '--connection', 'hubspot-931');
    expect(badSource.code).not.toBe(0);
    expect(badSource.err).toMatch(/source: must be one of webhooks, journal/);
    const unknown = await cli('hubspot', 'events', 'journal', '--connection', 'hubspot-999');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/--connection: no stored HubSpot connection "hubspot-999"/);
    expect(`${journal.out}${journal.err}${unknown.err}`).not.toContain('client-secret-value');
  } finally {
    redis.disconnect();
  }
});
