import { Command } from 'commander';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';
import { salesforcePlatform } from '@verify-hub/connector-salesforce';
import { registerPlatformCommands } from '../../cli/src/platform-commands';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import { fakeVariables } from './helpers';

const fake = new FakeSalesforce();
const saved = { ...process.env };
const secretKey = 'a-test-secret-key-of-at-least-32-characters';
let lines: string[] = [];
let log: jest.SpyInstance;

beforeAll(async () => {
  await fake.start();
});
beforeEach(() => {
  lines = [];
  log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  process.exitCode = undefined;
  Object.assign(process.env, fakeVariables(fake), { HUB_SECRET_KEY: secretKey, SALESFORCE_USERNAME: fake.jwtUser });
});
afterEach(() => {
  log.mockRestore();
  process.env = { ...saved };
  process.exitCode = undefined;
});
afterAll(() => fake.stop());

async function run(...args: string[]) {
  const program = new Command('verify-hub').exitOverride();
  registerPlatformCommands(program, salesforcePlatform);
  await program.parseAsync(['node', 'verify-hub', ...args]);
}

describe('verify-hub salesforce connect and setup', () => {
  it('connect signs in with the JWT bearer flow and stores the org, sealed; setup prints what it created, then nothing; an expired session is renewed with a new assertion', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const store = new RedisConnectionStore(redis, new Keys(), new SecretBox(secretKey));
    const id = `salesforce-${fake.orgId}`;
    try {
      await run('salesforce', 'connect', '--api-headroom', '500', '--bulk-query-threshold', '20000');
      expect(lines[0]).toMatch(new RegExp(`^stored connection ${id} `));
      const record = await store.get(id);
      expect(record).toMatchObject({ platform: 'salesforce', settings: { orgId: fake.orgId, userId: fake.userId, instanceUrl: fake.url, loginUrl: fake.url, apiVersion: '62.0', auth: 'jwt', username: fake.jwtUser, apiHeadroom: 500, bulkQueryThreshold: 20_000 } });
      const raw = JSON.stringify(await redis.hgetall(new Keys().connection(id)));
      expect(raw).not.toContain(String(record!.credentials.accessToken));
      lines = [];
      fake.expireSessions();
      await run('salesforce', 'setup', '--connection', id);
      expect(lines[0]).toMatch(/^created: field Contact\.EV_Risk__c, .*permission set Verify_Hub_Fields \(read and edit on 18 fields\).*assigned to the API user/);
      expect(process.exitCode).toBeUndefined();
      // Real time: the edition read, Contact and Lead selected for Change Data Capture.
      expect(lines.slice(-2)).toEqual(['real time: this org is Enterprise Edition: verify-hub follows Change Data Capture on the standard ChangeEvents channel', 'selected for Change Data Capture: ContactChangeEvent, LeadChangeEvent']);
      lines = [];
      await run('salesforce', 'setup', '--connection', id);
      expect(lines[0]).toBe('created: nothing (everything was already there)');
      expect(lines.at(-1)).toBe('already selected for Change Data Capture: ContactChangeEvent, LeadChangeEvent');
      expect(fake.changeEvents.createCalls).toEqual(['ContactChangeEvent', 'LeadChangeEvent']);
      // The renewed session was saved for every worker.
      expect((await store.get(id))!.credentials.accessToken).not.toBe(record!.credentials.accessToken);
      expect(lines.join('\n')).not.toMatch(/00D!/);
    } finally {
      await store.delete(id);
      redis.disconnect();
    }
  });

  it('setup creates the fields when the selection is refused (exit 1, the permission named), and tells a Professional org it is pulled every 15 minutes', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const store = new RedisConnectionStore(redis, new Keys(), new SecretBox(secretKey));
    const id = `salesforce-${fake.orgId}`;
    fake.customFields.clear();
    fake.changeEvents.members.clear();
    fake.changeEvents.permissions.customizeApplication = false;
    try {
      await run('salesforce', 'connect');
      lines = [];
      await run('salesforce', 'setup', '--connection', id);
      expect(lines[0]).toMatch(/^created: field Contact\.EV_Risk__c, /);
      expect(fake.customFields.size).toBe(18);
      expect(lines.filter((l) => l.startsWith('problem: '))).toEqual([
        expect.stringMatching(/^problem: Salesforce refused to select ContactChangeEvent \(INSUFFICIENT_ACCESS\): the API user needs the "Customize Application" permission/),
        expect.stringMatching(/^problem: Salesforce refused to select LeadChangeEvent \(INSUFFICIENT_ACCESS\): the API user needs the "Customize Application" permission/),
      ]);
      expect(process.exitCode).toBe(1);

      process.exitCode = undefined;
      fake.organizationType = 'Professional Edition';
      lines = [];
      await run('salesforce', 'setup', '--connection', id);
      expect(lines.at(-1)).toMatch(/^real time: this org is Professional Edition, which has no Change Data Capture .* pulled every 15 minutes instead/);
      expect(process.exitCode).toBeUndefined();
    } finally {
      fake.organizationType = 'Enterprise Edition';
      fake.changeEvents.permissions.customizeApplication = true;
      await store.delete(id);
      redis.disconnect();
    }
  });

  it('connect names what is missing, and a user Salesforce refuses', async () => {
    delete process.env.SALESFORCE_USERNAME;
    await expect(run('salesforce', 'connect')).rejects.toThrow(/SALESFORCE_USERNAME: is required/);
    await expect(run('salesforce', 'connect', '--username', 'nobody@example.com')).rejects.toThrow(/username: Salesforce refused the JWT sign-in/);
    const calls = fake.calls.length;
    await expect(run('salesforce', 'connect', '--username', fake.jwtUser, '--api-headroom', 'lots')).rejects.toThrow(/--api-headroom: must be a whole number/);
    expect(fake.calls.length).toBe(calls);
  });
});
