import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';
import { KILLED_WORKER_TAKEN_BACK_FAST, until, useHub } from '../setup/hub-harness';

const PERSONS = 25_000;

/** The parts of the hub's answers this suite reads (a connection, a disconnect). */
interface HubAnswer {
  connection: { id: string };
  platformDeleted: string[];
}

/**
 * Issue 33's acceptance for Pipedrive, against its fake, through `verify-hub serve --no-workers` and
 * `verify-hub worker` processes: connect (fields and webhooks set up), a sync of 25,000 persons with a
 * worker killed (-9) and restarted mid-run writing every verdict exactly once and buying each address
 * once (engine bill == credits), an unchanged re-sync writing nothing, a person added in Pipedrive
 * verified within 2 s of its webhook, a revoked token pausing the run with words to reconnect, and
 * disconnect removing the webhooks the hub registered. No `marketing_status` is ever sent.
 */
describe('Pipedrive acceptance (serve and worker processes)', () => {
  let fake: FakePipedrive;
  const connectionId = () => `pipedrive-${fake.companyId}`;
  const stack = useHub({
    platform: 'pipedrive',
    serve: 'process',
    workers: 2,
    workerArgs: ['--concurrency', '3'],
    connectionId,
    startTimeoutMs: 120_000,
    fake: async () => {
      // A 2-second allowance above any plan's (480 for OAuth Enterprise), so 25,000 PATCHes fit in a
      // test: the connector paces itself to whatever `x-ratelimit-limit` the company answers.
      fake = await new FakePipedrive({ burstLimit: 4_000, deliverOwnChanges: false }).start();
      fake.seed(PERSONS, (i) => (i % 50 === 0 ? [`user${i}@acme${i % 30}.example.com`, `home${i}@mail${i % 7}.example.org`] : [`${i % 9 === 4 ? 'invalid' : 'user'}${i}@acme${i % 30}.example.com`]));
      return fake;
    },
    settings: () => ({ LOG_LEVEL: 'warn', PIPEDRIVE_API_BASE: fake.url, VERIFY_HUB_EVENT_COALESCE_MS: '100', ...KILLED_WORKER_TAKEN_BACK_FAST }),
  });
  const { settled, startRun, startWorker, kill9 } = stack;
  const api = stack.api<HubAnswer>;
  const riskOf = (personId: number) => {
    const field = fake.field('EV risk')!;
    return field.options!.find((o) => o.id === fake.persons.get(personId)!.custom_fields[field.field_code])?.label;
  };

  it('connects with the API token: the person fields made, webhooks v2 registered with basic auth', async () => {
    const connected = await api('POST', '/api/connections/pipedrive', { apiToken: fake.apiToken });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId() });
    expect(fake.fields.filter((f) => f.is_custom_field).map((f) => f.field_name)).toEqual(['EV risk', 'EV score', 'EV reason', 'EV checked at']);
    expect(fake.webhooks.map((h) => `${h.event_action}.${h.event_object}@${h.version}`)).toEqual(['create.person@2.0', 'change.person@2.0']);
    expect(fake.webhooks.every((h) => h.subscription_url === `${stack.url}/webhooks/pipedrive` && h.http_auth_user === connectionId())).toBe(true);
  });

  it('syncs 25,000 persons with a worker killed -9 mid-run: every verdict written exactly once, nothing bought twice', async () => {
    const id = await startRun();
    await until(async () => fake.writesPerPerson.size, (n) => n >= PERSONS / 5, 300_000);
    await kill9(stack.workers[0]!);
    await startWorker();
    const done = await settled(id, 450_000);
    expect(done).toMatchObject({ status: 'completed', counters: { failed: 0 } });
    // A chunk the killed worker had half written is read again before its replay: what it wrote counts as unchanged.
    const secondaries = [...fake.persons.values()].filter((p) => p.emails.length > 1).length;
    expect(done.counters.written + done.counters.unchanged).toBe(PERSONS + secondaries);
    expect(done.counters.written).toBeGreaterThan(PERSONS / 2);
    expect(fake.writesPerPerson.size).toBe(PERSONS);
    expect([...fake.writesPerPerson.values()].filter((n) => n !== 1)).toEqual([]);
    for (const personId of [1, 5, 51, PERSONS]) expect(riskOf(personId)).toBe(fake.persons.get(personId)!.emails[0]!.value.startsWith('invalid') ? 'invalid' : 'safe');
    // Each address bought once (a secondary address is verified too), and the run's credits are the bill.
    expect([...stack.engine.billedPer.values()].filter((n) => n > 1)).toEqual([]);
    expect(done.counters.credits).toBe(stack.engine.billed);
    expect(fake.marketingStatusWrites).toEqual([]);
    // 500 a page: 50 page reads for 25,000 persons, and the page the pager was reading at the kill read
    // again (re-reads by ids of the killed worker's chunks, and reads refused with 429, are not page reads).
    // A page job taken back from a live worker whose event loop was starved past its 8 s hold reads its
    // page again too: a fresh clone with a core kept busy read 54. Far more would mean pages read twice.
    expect(fake.pageReads()).toBeGreaterThanOrEqual(PERSONS / 500);
    expect(fake.pageReads()).toBeLessThanOrEqual(PERSONS / 500 + 6);
    expect(fake.limits.refused.daily).toBe(0);
  }, 600_000);

  it('an unchanged re-sync writes nothing', async () => {
    const patches = fake.callsTo('PATCH', '/api/v2/persons/');
    const done = await settled(await startRun(), 400_000);
    expect(done).toMatchObject({ status: 'completed', counters: { written: 0, failed: 0 } });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(patches);
  }, 450_000);

  it('a person added in Pipedrive is verified and written within 2 s of its webhook', async () => {
    const added = fake.addPerson(['invalid.newcomer@example.com']);
    const sent = Date.now();
    await until(async () => riskOf(added.id), (risk) => risk === 'invalid', 10_000);
    const took = Date.now() - sent;
    expect(took).toBeLessThan(2_000);
    expect(fake.deliveries.filter((d) => d.personId === added.id).map((d) => d.status)).toEqual([200]);
  }, 30_000);

  it('a revoked token pauses the run with words that say to reconnect', async () => {
    fake.revokeToken();
    const done = await settled(await startRun(), 60_000);
    expect(done.status).toBe('paused');
    expect(done.statusReason).toMatch(/Pipedrive refused the credentials.*reconnect Pipedrive/);
  }, 90_000);

  it('reconnected, then disconnected: the webhooks the hub registered are removed', async () => {
    const again = await api('POST', '/api/connections/pipedrive', { apiToken: fake.apiToken });
    expect(again.status).toBe(201);
    expect(fake.webhooks).toHaveLength(2);
    const removed = await api('DELETE', `/api/connections/${connectionId()}`);
    expect(removed.status).toBe(200);
    expect(removed.body.platformDeleted).toEqual(['2 Pipedrive webhooks']);
    expect(fake.webhooks).toEqual([]);
    expect(fake.marketingStatusWrites).toEqual([]);
  }, 60_000);
});
