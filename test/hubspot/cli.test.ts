import { Command } from 'commander';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';
import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import { registerPlatformCommands } from '../../cli/src/platform-commands';

/** The platform module's commands, as `verify-hub` adds them. */
const register = (program: Command) => registerPlatformCommands(program, hubspotPlatform);
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';

const fake = new FakeHubSpot();
const saved = { ...process.env };
let lines: string[] = [];
let log: jest.SpyInstance;

beforeAll(async () => {
  await fake.start();
  fake.addPortal({ portalId: '701', token: 'cli-token' });
});
beforeEach(() => {
  lines = [];
  log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  process.exitCode = undefined;
});
afterEach(() => {
  log.mockRestore();
  process.env = { ...saved };
  process.exitCode = undefined;
});
afterAll(() => fake.stop());

async function run(...args: string[]) {
  const program = new Command('verify-hub').exitOverride();
  register(program);
  await program.parseAsync(['node', 'verify-hub', ...args]);
}

describe('verify-hub hubspot setup', () => {
  it('creates the properties with HUBSPOT_ACCESS_TOKEN and prints what it created, then that nothing was needed', async () => {
    process.env.HUBSPOT_ACCESS_TOKEN = 'cli-token';
    process.env.HUBSPOT_API_BASE = fake.url;
    await run('hubspot', 'setup');
    expect(lines[0]).toBe('HubSpot portal 701');
    expect(lines[1]).toBe('created: group:email_verification, ev_risk, ev_score, ev_reason, ev_checked_at, ev_disposable, ev_role_account, ev_catch_all, ev_free_provider, ev_spam_trap_risk');
    expect(process.exitCode).toBeUndefined();
    lines = [];
    await run('hubspot', 'setup');
    expect(lines[1]).toBe('created: nothing (everything was already there)');
    expect(lines.join('\n')).not.toContain('cli-token');
  });

  it('names the missing variable', async () => {
    delete process.env.HUBSPOT_ACCESS_TOKEN;
    await expect(run('hubspot', 'setup')).rejects.toThrow(/HUBSPOT_ACCESS_TOKEN: is required/);
  });

  it('prints the OAuth install URL', async () => {
    process.env.HUBSPOT_CLIENT_ID = 'abc-123';
    await run('hubspot', 'install-url', '--redirect-uri', 'https://hub.example.com/cb');
    expect(new URL(lines[0]!).searchParams.get('client_id')).toBe('abc-123');
  });
});

describe('verify-hub hubspot connect', () => {
  it('stores the private app token, sealed, as the portal\'s connection, and setup --connection uses it', async () => {
    const secretKey = 'a-test-secret-key-of-at-least-32-characters';
    process.env.HUBSPOT_ACCESS_TOKEN = 'cli-token';
    process.env.HUBSPOT_API_BASE = fake.url;
    process.env.HUB_SECRET_KEY = secretKey;
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const store = new RedisConnectionStore(redis, new Keys(), new SecretBox(secretKey));
    try {
      await run('hubspot', 'connect', '--tier', 'private-pro');
      expect(lines[0]).toMatch(/^stored connection hubspot-701 /);
      const record = await store.get('hubspot-701');
      expect(record).toMatchObject({ platform: 'hubspot', credentials: { accessToken: 'cli-token' }, settings: { portalId: '701', rateTier: 'private-pro', apiBase: fake.url } });
      const raw = JSON.stringify(await redis.hgetall(new Keys().connection('hubspot-701')));
      expect(raw).not.toContain('cli-token');
      delete process.env.HUBSPOT_ACCESS_TOKEN;
      lines = [];
      await run('hubspot', 'setup', '--connection', 'hubspot-701');
      expect(lines[0]).toMatch(/^created: /);
      await expect(run('hubspot', 'connect', '--tier', 'gold')).rejects.toThrow(/--tier/);
    } finally {
      await store.delete('hubspot-701');
      redis.disconnect();
    }
  });
});
