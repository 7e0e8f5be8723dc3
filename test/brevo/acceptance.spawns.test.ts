import { FakeBrevo } from '../fakes/brevo/fake-brevo';
import { KILLED_WORKER_TAKEN_BACK_FAST, acceptanceAddress, acceptanceRisk, expectNoneWrong, until, useHub } from '../setup/hub-harness';

const CONTACTS = 25_000;
const CONNECTION = 'brevo-org-demo';

/**
 * Issue 34's acceptance for Brevo, through the built CLI: `verify-hub brevo connect` and `setup`
 * (attributes, the dedicated list, the marketing webhook registered), `verify-hub serve --no-workers`
 * and two `verify-hub worker` processes, against the fake Brevo and the fake engine. 25,000 contacts
 * are synced, one worker killed with -9 mid-run and restarted: every verdict written exactly once,
 * nothing bought twice (the engine's bill is the run's credits), no consent changed; an unchanged
 * re-sync writes nothing; a contact added to a list is verified in real time within 2 s while the
 * hub's own writes coming back as events are ignored; a revoked key pauses the run with words that say
 * what to do; `verify-hub disconnect` removes the webhook the hub registered.
 */
describe('Brevo acceptance (serve, workers, CLI)', () => {
  let fake: FakeBrevo;
  const stack = useHub({
    platform: 'brevo',
    serve: 'process',
    workers: 0,
    connectionId: () => CONNECTION,
    runTimeoutMs: 400_000,
    startTimeoutMs: 120_000,
    fake: async () => {
      fake = await new FakeBrevo().start();
      for (let i = 0; i < CONTACTS; i++) fake.addContact(acceptanceAddress(i), { FIRSTNAME: `F${i}` });
      return fake;
    },
    settings: () => ({
      BREVO_API_BASE: fake.url,
      BREVO_API_KEY: fake.apiKey,
      // Brevo sends a contact's list addition and update once each: a short coalescing window (5 s unless set) for real time.
      VERIFY_HUB_EVENT_COALESCE_MS: '300',
      ...KILLED_WORKER_TAKEN_BACK_FAST,
    }),
  });
  const { cli, runOf, settled, startRun, startWorker, kill9 } = stack;

  it('connects and sets up with the CLI: attributes, the dedicated list and the marketing webhook; a second setup creates nothing', async () => {
    const connected = await cli(['brevo', 'connect', '--key-name', fake.apiKeyName]);
    expect(connected).toMatchObject({ code: 0 });
    expect(connected.out).toContain(`stored connection ${CONNECTION}`);
    expect(connected.out).not.toContain(fake.apiKey);
    const setup = await cli(['brevo', 'setup', '--connection', CONNECTION]);
    expect(setup.code).toBe(0);
    expect(setup.out).toMatch(/created\s+attribute EV_RISK \(text\)/);
    expect(setup.out).toMatch(/created\s+list "verify-hub write-back \(no automations\)"/);
    expect(setup.out).toContain('webhook: registered in Brevo');
    const hooks = [...fake.webhooks.values()];
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ type: 'marketing', events: ['contactUpdated', 'listAddition', 'contactDeleted'], auth: { type: 'bearer' } });
    expect(hooks[0]!.url.startsWith(`${stack.url}/webhooks/brevo/${CONNECTION}/`)).toBe(true);
    const again = await cli(['brevo', 'setup', '--connection', CONNECTION]);
    expect(again.code).toBe(0);
    expect(again.out).not.toMatch(/created/);
    expect(fake.webhooks.size).toBe(1);
    expect(fake.limits.refused.other).toBe(0);
  }, 120_000);

  it(`syncs ${CONTACTS.toLocaleString('en')} contacts with a worker killed -9 mid-run: every verdict written once, nothing bought twice, no consent changed`, async () => {
    fake.echoBudget = 200; // Brevo tells the hub about its own writes: those events must be ignored
    const workers = await Promise.all([startWorker(), startWorker()]);
    const started = Date.now();
    const id = await startRun();
    await until(() => runOf(id), (run) => (run.counters?.written ?? 0) >= CONTACTS / 4 || run.status !== 'running', 300_000);
    await kill9(workers[0]!);
    await startWorker();
    const run = await settled(id);
    const wallMs = Date.now() - started;
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: CONTACTS, failed: 0 } });
    const writes = [...fake.contacts.values()].map((c) => fake.writesPerContact.get(c.id) ?? 0);
    const unknown = [...fake.contacts.values()].filter((c) => c.email.startsWith('unknown.')).length;
    expect({ lost: writes.filter((n) => n === 0).length, twice: writes.filter((n) => n > 1).length }).toEqual({ lost: 0, twice: 0 });
    const misjudged = [...fake.contacts.values()].filter((c) => c.attributes.EV_RISK !== acceptanceRisk(c.email)).map((c) => ({ email: c.email, risk: c.attributes.EV_RISK }));
    expectNoneWrong(misjudged);
    expect(stack.engine.billed).toBe(run.counters.credits);
    expect(stack.engine.billed).toBe(CONTACTS - unknown);
    expect([...stack.engine.billedPer.values()].every((n) => n === 1)).toBe(true);
    const listId = [...fake.lists.keys()][0];
    expect(fake.consentChanges.filter((c) => c.what !== 'list-added' || c.value !== listId)).toEqual([]);
    expect(fake.imports.every((i) => i.emailBlacklist === undefined && i.listIds.join() === String(listId))).toBe(true);
    await until(async () => fake.deliveries.length, (n) => n >= fake.echoes, 30_000);
    // The echoes were answered and ignored: no event read a contact back.
    expect(fake.deliveries.every((d) => d.status === 200)).toBe(true);
    expect(fake.callCount(/^GET \/contacts\/[^/]*%40|^GET \/contacts\/[^/]*@/)).toBe(0);
    const calls = fake.calls.length;
    console.log(`brevo acceptance: ${CONTACTS} contacts in ${(wallMs / 1000).toFixed(1)} s, ${calls} Brevo calls (${((calls / CONTACTS) * 1000).toFixed(1)} per 1,000), ${fake.imports.length} imports, 429s: ${fake.limits.refused.contacts}`);
  }, 600_000);

  it('an unchanged re-sync writes nothing', async () => {
    const imports = fake.imports.length;
    const puts = fake.callCount(/^PUT /);
    const run = await settled(await startRun());
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: CONTACTS, written: 0, failed: 0 } });
    expect(fake.imports).toHaveLength(imports);
    expect(fake.callCount(/^PUT /)).toBe(puts);
  }, 450_000);

  it('verifies a contact added to a list in real time, within 2 s', async () => {
    const formList = fake.addList('Newsletter');
    const contact = fake.addContact('invalid.newcomer@example.com', {}, [formList]);
    const sent = Date.now();
    expect(await fake.deliver('list_addition', contact.email, { list_id: [formList] })).toEqual([200]);
    await until(async () => contact.attributes.EV_RISK, (risk) => risk === 'invalid', 10_000);
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(fake.writesPerContact.get(contact.id)).toBe(1);
    // A delivery without the token is refused.
    const hook = [...fake.webhooks.values()][0]!;
    const forged = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer not-the-token' }, body: '{"event":"list_addition","email":"x@example.com"}' });
    expect(forged.status).toBe(401);
  }, 60_000);

  it('pauses a run when the key is revoked, with words that say what to do', async () => {
    const key = fake.apiKey;
    fake.revokeKey();
    const run = await settled(await startRun(), 60_000);
    fake.apiKey = key;
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/Brevo refused the API key/);
    expect(run.statusReason).toMatch(/API keys/);
    expect(run.statusReason).toMatch(/reconnect Brevo/);
  }, 90_000);

  it('disconnect removes the webhook the hub registered, and nothing else', async () => {
    fake.webhooks.set(999, { id: 999, url: 'https://elsewhere.example/hook', type: 'marketing', events: ['contactUpdated'], description: 'not ours' });
    const done = await cli(['disconnect', CONNECTION]);
    expect(done.code).toBe(0);
    expect([...fake.webhooks.keys()]).toEqual([999]);
    expect(fake.consentChanges.filter((c) => c.what !== 'list-added')).toEqual([]);
  }, 60_000);
});
