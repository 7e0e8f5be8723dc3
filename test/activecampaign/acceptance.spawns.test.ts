import { FakeActivecampaign, MAX_CONTACTS_LIMIT, MAX_IMPORT_CONTACTS, type FakeContact } from '../fakes/activecampaign';
import { KILLED_WORKER_TAKEN_BACK_FAST, until, useHub, type HubRun } from '../setup/hub-harness';

const CONTACTS = 25_000;
const KINDS = ['safe', 'risky', 'invalid'] as const;
/** The fake engine's verdict is the address's first word. */
const expectedRisk = (email: string) => (KINDS as readonly string[]).find((k) => email.startsWith(`${k}.`)) ?? 'safe';

/**
 * ActiveCampaign end to end, as deployed: `verify-hub serve --no-workers` and two `verify-hub worker`
 * processes of the built CLI against the fake account and the fake engine. Connect through the hub,
 * setup through the CLI, 25,000 contacts synced while a worker is killed with `kill -9` (every verdict
 * written exactly once, nothing bought twice), an unchanged re-sync writing nothing, a new contact
 * verified within 2 s of its webhook delivery, a revoked token pausing the run with what to do, and
 * disconnect removing the webhook; no list status changed and no automation-running import anywhere.
 *
 * Time is compressed tenfold for the suite: the fake account takes 50 requests a second and 1,000
 * imports a minute, and the hub is told the same (ACTIVECAMPAIGN_REQUESTS_PER_SECOND,
 * ACTIVECAMPAIGN_IMPORTS_PER_MINUTE); at the real 5 a second the calls alone would take 90 s
 * (`npm run bench activecampaign` measures at 5).
 */
describe('ActiveCampaign acceptance: spawned serve and workers', () => {
  let fake: FakeActivecampaign;
  let firstRun: HubRun;
  const stack = useHub({
    platform: 'activecampaign',
    serve: 'process',
    workers: 2,
    connectionId: () => 'activecampaign-demo',
    runTimeoutMs: 400_000,
    startTimeoutMs: 120_000,
    fake: async () => {
      fake = await new FakeActivecampaign({ requestsPerSecond: 50, importsPerMinute: 1000 }).start();
      for (let i = 0; i < CONTACTS; i++) fake.store.addContact(`${KINDS[i % 3]}.${i}@ac${i % 50}.example.com`, i % 4 ? ['1'] : ['1', '2']);
      return fake;
    },
    settings: () => ({
      LOG_LEVEL: 'error',
      VERIFY_HUB_EVENT_COALESCE_MS: '100',
      ...KILLED_WORKER_TAKEN_BACK_FAST,
      ACTIVECAMPAIGN_API_BASE: fake.url,
      ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '50',
      ACTIVECAMPAIGN_IMPORTS_PER_MINUTE: '1000',
      ACTIVECAMPAIGN_IMPORT_POLL_MS: '100',
    }),
  });
  const { api, cli, runOf: run, settled, startRun, startWorker, kill9 } = stack;
  const risk = (c: FakeContact) => fake.store.valueOf(c, 'EV_RISK');
  const noConsentTouched = () => {
    expect(fake.imports.records.automationTriggering).toBe(0);
    expect(fake.imports.records.listStatusChanges).toEqual([]);
    expect(fake.contactListChanges).toEqual([]);
  };

  it('connects through the hub (webhook without the api source) and sets up through the CLI, idempotently', async () => {
    const refused = await cli(['activecampaign', 'connect', '--url', fake.accountUrl], { ACTIVECAMPAIGN_API_TOKEN: 'not-the-token' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/apiToken: ActiveCampaign refused this API token/);
    expect(refused.stdout + refused.stderr).not.toContain('not-the-token');
    const connected = await api('POST', '/api/connections/activecampaign', { apiUrl: fake.accountUrl, apiToken: fake.token });
    expect(connected.status).toBe(201);
    expect(connected.body.webhook).toEqual({ registered: true });
    const setupEnv = { ACTIVECAMPAIGN_API_TOKEN: fake.token };
    const first = await cli(['activecampaign', 'setup', '--url', fake.accountUrl, '--list', '1'], setupEnv);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('created   field "EV Risk"');
    expect(first.stdout).toContain('created   tag ev-unknown');
    expect(first.stdout).toContain('webhook   registered');
    expect(fake.store.fields.size).toBe(9);
    expect([...fake.store.fieldRels.values()].every((rel) => rel.relid === '1')).toBe(true);
    const again = await cli(['activecampaign', 'setup', '--url', fake.accountUrl, '--list', '1'], setupEnv);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('created');
    expect(fake.store.fields.size).toBe(9);
    expect(fake.store.tags.size).toBe(4);
    const hooks = [...fake.webhooks.hooks.values()];
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.sources).not.toContain('api');
  }, 120_000);

  it(`syncs ${CONTACTS.toLocaleString('en-US')} contacts with a worker killed -9 mid-run: every verdict written exactly once, nothing bought twice`, async () => {
    const id = await startRun();
    await until(() => run(id), (r) => (r.progress?.done ?? 0) >= CONTACTS / 4 || r.status !== 'running', 300_000);
    await kill9(stack.workers[0]!);
    await startWorker();
    firstRun = await settled(id, 450_000);
    expect(firstRun).toMatchObject({ status: 'completed', counters: { pulled: CONTACTS, failed: 0 } });
    // A chunk the killed worker had written is replayed: its contacts, read again, already hold their
    // values and count as unchanged. Each contact is in exactly one of the two; the fake counts the writes.
    expect(firstRun.counters.written + firstRun.counters.unchanged).toBe(CONTACTS);
    const contacts = [...fake.store.contacts.values()];
    expect(contacts.filter((c) => risk(c) !== expectedRisk(c.email))).toEqual([]);
    expect(contacts.filter((c) => fake.store.tagsOf(c.id).join() !== `ev-${expectedRisk(c.email)}`)).toEqual([]);
    const writes = fake.imports.records.writesPerContact;
    expect(writes.size).toBe(CONTACTS);
    expect([...writes.values()].filter((n) => n !== 1)).toEqual([]);
    expect(Math.max(...fake.imports.records.sizes)).toBeLessThanOrEqual(MAX_IMPORT_CONTACTS);
    expect(Math.max(...fake.reads.limits)).toBeLessThanOrEqual(MAX_CONTACTS_LIMIT);
    expect(fake.reads.offsetPages).toBe(0);
    // The run's own set-up kept the list the fields were related to by `setup --list 1`.
    expect([...fake.store.fieldRels.values()].every((rel) => rel.relid === '1')).toBe(true);
    expect(stack.engine.billed).toBe(firstRun.counters.credits);
    expect([...stack.engine.billedPer.values()].filter((n) => n > 1)).toEqual([]);
    noConsentTouched();
  }, 600_000);

  it('an unchanged re-sync writes nothing', async () => {
    const imports = fake.imports.records.sizes.length;
    const again = await settled(await startRun());
    expect(again).toMatchObject({ status: 'completed', counters: { pulled: CONTACTS, written: 0, unchanged: CONTACTS } });
    expect(fake.imports.records.sizes).toHaveLength(imports);
    expect(fake.count('DELETE', '/contactTags/:id')).toBe(0);
  }, 450_000);

  it('a new contact is verified within 2 s of its webhook delivery; the hub\'s own API writes are never delivered', async () => {
    const added = fake.store.addContact('invalid.realtime@ac1.example.com', ['1']);
    const sent = Date.now();
    const [delivery] = await fake.webhooks.deliver('subscribe', added, 'public');
    expect(delivery!.status).toBe(200);
    await until(async () => risk(added), (value) => value === 'invalid', 10_000);
    expect(Date.now() - sent).toBeLessThan(2000);
    expect(fake.store.tagsOf(added.id)).toEqual(['ev-invalid']);
    expect(await fake.webhooks.deliver('update', added, 'api')).toEqual([]);
  }, 30_000);

  it('a revoked token pauses the run with words that say what to do', async () => {
    const token = fake.token;
    fake.revokeToken();
    try {
      const paused = await settled(await startRun());
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(/ActiveCampaign refused the API token/);
      expect(paused.statusReason).toMatch(/reconnect ActiveCampaign/);
    } finally {
      fake.token = token;
    }
  }, 60_000);

  it('disconnect removes the webhook the hub registered; no list status or automation touched anywhere', async () => {
    const res = await api('DELETE', '/api/connections/activecampaign-demo');
    expect(res.status).toBe(200);
    expect(fake.webhooks.hooks.size).toBe(0);
    noConsentTouched();
  }, 60_000);
});
