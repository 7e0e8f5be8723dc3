import { randomUUID } from 'node:crypto';
import { FakeEngine } from '../fakes/engine';
import { FakeActivecampaign, MAX_CONTACTS_LIMIT, MAX_IMPORT_CONTACTS, type FakeContact } from '../fakes/activecampaign';
import { until } from '../webhooks-in/serve-stack';
import { runCli, startSpawnedHub, type SpawnedHub } from './spawned-hub';

const CONTACTS = 25_000;
const ADMIN = `admin-${randomUUID()}`;
const KINDS = ['safe', 'risky', 'invalid'] as const;
/** The fake engine's verdict is the address's first word. */
const expectedRisk = (email: string) => (KINDS as readonly string[]).find((k) => email.startsWith(`${k}.`)) ?? 'safe';

interface Run {
  id: string;
  status: string;
  statusReason?: string;
  counters: Record<string, number>;
  progress?: { done: number };
}

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
  let engine: FakeEngine;
  let hub: SpawnedHub;
  let env: Record<string, string>;
  let firstRun: Run;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const run = async (id: string) => (await api('GET', `/api/runs/${id}`)).body as unknown as Run;
  const settled = (id: string, timeoutMs = 120_000) => until(() => run(id), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), timeoutMs);
  const startRun = async (scope = 'all') => {
    const started = await api('POST', '/api/runs', { platform: 'activecampaign', connectionId: 'activecampaign-demo', scope });
    expect(started.status).toBe(201);
    return String(started.body.id);
  };
  const risk = (c: FakeContact) => fake.store.valueOf(c, 'EV_RISK');
  const noConsentTouched = () => {
    expect(fake.imports.records.automationTriggering).toBe(0);
    expect(fake.imports.records.listStatusChanges).toEqual([]);
    expect(fake.contactListChanges).toEqual([]);
  };

  beforeAll(async () => {
    fake = await new FakeActivecampaign({ requestsPerSecond: 50, importsPerMinute: 1000 }).start();
    for (let i = 0; i < CONTACTS; i++) fake.store.addContact(`${KINDS[i % 3]}.${i}@ac${i % 50}.example.com`, i % 4 ? ['1'] : ['1', '2']);
    engine = new FakeEngine();
    await engine.start();
    env = {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      ENGINE_URL: engine.url,
      ENGINE_API_KEY: engine.apiKey,
      HUB_ADMIN_TOKEN: ADMIN,
      HUB_SECRET_KEY: 'k'.repeat(40),
      VERIFY_HUB_REDIS_PREFIX: `test-ac-accept-${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: 'error',
      VERIFY_HUB_EVENT_COALESCE_MS: '100',
      // The killed worker's chunks are taken back after about 11 s, not BullMQ's 60.
      VERIFY_HUB_JOB_LOCK_MS: '8000',
      VERIFY_HUB_STALLED_INTERVAL_MS: '3000',
      ACTIVECAMPAIGN_API_BASE: fake.url,
      ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '50',
      ACTIVECAMPAIGN_IMPORTS_PER_MINUTE: '1000',
      ACTIVECAMPAIGN_IMPORT_POLL_MS: '100',
    };
    hub = await startSpawnedHub(env, 2);
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    await fake?.stop();
    await engine?.stop();
  }, 60_000);

  it('connects through the hub (webhook without the api source) and sets up through the CLI, idempotently', async () => {
    const refused = await runCli(['activecampaign', 'connect', '--url', fake.accountUrl], { ...env, ACTIVECAMPAIGN_API_TOKEN: 'not-the-token' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/apiToken: ActiveCampaign refused this API token/);
    expect(refused.stdout + refused.stderr).not.toContain('not-the-token');
    const connected = await api('POST', '/api/connections/activecampaign', { apiUrl: fake.accountUrl, apiToken: fake.token });
    expect(connected.status).toBe(201);
    expect(connected.body.webhook).toEqual({ registered: true });
    const setupEnv = { ...env, ACTIVECAMPAIGN_API_TOKEN: fake.token, HUB_PUBLIC_URL: hub.url };
    const first = await runCli(['activecampaign', 'setup', '--url', fake.accountUrl, '--list', '1'], setupEnv);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('created   field "EV Risk"');
    expect(first.stdout).toContain('created   tag ev-unknown');
    expect(first.stdout).toContain('webhook   registered');
    expect(fake.store.fields.size).toBe(9);
    expect([...fake.store.fieldRels.values()].every((rel) => rel.relid === '1')).toBe(true);
    const again = await runCli(['activecampaign', 'setup', '--url', fake.accountUrl, '--list', '1'], setupEnv);
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
    await until(() => run(id), (r) => (r.progress?.done ?? 0) >= CONTACTS / 4 || r.status !== 'running', 120_000);
    await hub.killHard(hub.workers[0]!);
    hub.addWorker();
    firstRun = await settled(id, 240_000);
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
    expect(engine.billed).toBe(firstRun.counters.credits);
    expect([...engine.billedPer.values()].filter((n) => n > 1)).toEqual([]);
    noConsentTouched();
  }, 300_000);

  it('an unchanged re-sync writes nothing', async () => {
    const imports = fake.imports.records.sizes.length;
    const again = await settled(await startRun());
    expect(again).toMatchObject({ status: 'completed', counters: { pulled: CONTACTS, written: 0, unchanged: CONTACTS } });
    expect(fake.imports.records.sizes).toHaveLength(imports);
    expect(fake.count('DELETE', '/contactTags/:id')).toBe(0);
  }, 180_000);

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
