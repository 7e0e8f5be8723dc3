import { createLogger, type ConnectionRecord, type ConnectionStore, type PlatformContext } from '@verify-hub/core';
import { pipedrivePlatform } from '@verify-hub/connector-pipedrive';
import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';

/**
 * `verify-hub pipedrive connect` and `setup` (the module's CLI commands, run with a context as the
 * CLI gives them): the token stored as the company's connection, the fields made once and their keys
 * kept, the webhooks registered with HUB_PUBLIC_URL and replaced (not added to) on a second setup.
 */
describe('verify-hub pipedrive connect / setup', () => {
  let fake: FakePipedrive;
  const saved = new Map<string, ConnectionRecord>();
  const store: ConnectionStore = { get: async (id) => saved.get(id), save: async (r) => void saved.set(r.id, r), list: async () => [...saved.values()], delete: async (id) => saved.delete(id) };
  let printed: string[] = [];
  const command = (name: string) => pipedrivePlatform.commands!.find((c) => c.name === name)!;
  const context = (extra: Record<string, string> = {}) => async (): Promise<PlatformContext> => ({
    config: { PIPEDRIVE_API_BASE: fake.url, PIPEDRIVE_API_TOKEN: fake.apiToken, HUB_PUBLIC_URL: 'https://hub.example.com', ...extra } as never,
    connections: store,
    openConnector: async () => {
      throw new Error('not used');
    },
    logger: createLogger({ level: 'silent' }),
  });

  beforeAll(async () => {
    fake = await new FakePipedrive({ burstLimit: 1000 }).start();
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    printed = [];
    jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  });
  afterEach(() => jest.restoreAllMocks());

  it('connect stores the token as pipedrive-<companyId>, makes the fields and registers the webhooks', async () => {
    expect(await command('connect').run!([], { filter: '12' }, context())).toBeUndefined();
    const record = saved.get(`pipedrive-${fake.companyId}`)!;
    expect(record.credentials.apiToken).toBe(fake.apiToken);
    expect(record.settings).toMatchObject({ companyDomain: 'acme', apiDomain: 'https://acme.pipedrive.com', filterId: 12, fieldKeys: { risk: fake.field('EV risk')!.field_code }, webhookIds: [100, 101] });
    expect(printed.join('\n')).toMatch(/created: person field "EV risk" \(enum\).*webhooks v2/s);
    expect(printed.join('\n')).not.toContain(fake.apiToken);
    expect(fake.webhooks.map((h) => h.subscription_url)).toEqual(['https://hub.example.com/webhooks/pipedrive', 'https://hub.example.com/webhooks/pipedrive']);
  });

  it('setup run again makes nothing new and leaves one webhook of each', async () => {
    expect(await command('setup').run!([], {}, context())).toBeUndefined();
    expect(printed.join('\n')).toContain('already there: EV risk, EV score, EV reason, EV checked at');
    expect(fake.fields.filter((f) => f.is_custom_field)).toHaveLength(4);
    expect(fake.webhooks.map((h) => h.event_action)).toEqual(['create', 'change']);
    expect(saved.get(`pipedrive-${fake.companyId}`)!.settings!.webhookIds).toEqual(fake.webhooks.map((h) => h.id));
  });

  it('connect without PIPEDRIVE_API_TOKEN names the variable', async () => {
    await expect(command('connect').run!([], {}, context({ PIPEDRIVE_API_TOKEN: '' }))).rejects.toThrow(/PIPEDRIVE_API_TOKEN/);
  });
});
