import request from 'supertest';
import { expectedRisk, until, useHub } from '../setup/hub-harness';
import { FakeActivecampaign, type FakeContact } from '../fakes/activecampaign';

/**
 * ActiveCampaign installed as a platform, driven through `verify-hub serve` (in process) with the real
 * pipeline and workers against the fake account at its documented 5 requests a second: listed,
 * connects with its key form (webhook registered), syncs 250 contacts in one bulk import with fields
 * and one risk tag each, writes nothing the second time, moves a stale risk tag, verifies a contact
 * from a form-encoded webhook delivery, pauses on a revoked token, and disconnects.
 */
describe('ActiveCampaign through verify-hub serve', () => {
  let fake: FakeActivecampaign;
  const prefixes = ['', 'invalid.', 'risky.'];
  let stale: FakeContact;
  const stack = useHub({
    platform: 'activecampaign',
    connectionId: () => 'activecampaign-demo',
    fake: async () => {
      fake = await new FakeActivecampaign().start();
      for (let i = 0; i < 250; i++) fake.store.addContact(`${prefixes[i % 3]}person${i}@example.com`, i % 2 ? ['1'] : []);
      return fake;
    },
    settings: () => ({ ACTIVECAMPAIGN_API_BASE: fake.url, ACTIVECAMPAIGN_IMPORT_POLL_MS: '50' }),
  });
  const { auth, runToEnd } = stack;
  const risk = (c: FakeContact) => fake.store.valueOf(c, 'EV_RISK');

  it('is installed: GET /api/platforms lists it with its card and key form', async () => {
    const res = await request(stack.hub.url).get('/api/platforms').set(auth);
    expect(res.body.platforms.find((p: { id: string }) => p.id === 'activecampaign')).toMatchObject({
      label: 'ActiveCampaign',
      connectable: true,
      connect: { oauth: false, keyFields: [{ name: 'apiUrl', secret: false }, { name: 'apiToken', secret: true }] },
      webhook: true,
    });
  });

  it('connects with the API URL and token, each refusal naming its field, and registers the webhook without the api source', async () => {
    const badUrl = await request(stack.hub.url).post('/api/connections/activecampaign').set(auth).send({ apiUrl: 'https://evil.example.com', apiToken: fake.token });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body).toMatchObject({ field: 'apiUrl' });
    const wrong = await request(stack.hub.url).post('/api/connections/activecampaign').set(auth).send({ apiUrl: fake.accountUrl, apiToken: 'not-the-token' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiToken' });
    expect(wrong.text).not.toContain('not-the-token');
    const connected = await request(stack.hub.url).post('/api/connections/activecampaign').set(auth).send({ apiUrl: `${fake.accountUrl}/api/3/`, apiToken: fake.token });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: 'activecampaign-demo', platform: 'activecampaign' });
    expect(connected.body.webhook).toEqual({ registered: true });
    const hooks = [...fake.webhooks.hooks.values()];
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.url).toBe(connected.body.webhookUrl);
    expect(hooks[0]!.events.sort()).toEqual(['subscribe', 'update']);
    expect(hooks[0]!.sources).not.toContain('api');
  });

  it('refuses a scope it cannot read, at start', async () => {
    const refused = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'activecampaign', connectionId: 'activecampaign-demo', scope: 'segment:1:2' });
    expect(refused.status).toBe(400);
  });

  it('syncs 250 contacts: fields and one risk tag each, in one automation-free bulk import, no list status touched', async () => {
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 250, failed: 0 } });
    for (const contact of fake.store.contacts.values()) {
      expect(risk(contact)).toBe(expectedRisk(contact.email));
      expect(fake.store.valueOf(contact, 'EV_SCORE')).toMatch(/^\d{1,3}$/);
      expect(fake.store.tagsOf(contact.id)).toEqual([`ev-${expectedRisk(contact.email)}`]);
    }
    expect(fake.imports.records.sizes).toEqual([250]);
    expect(fake.imports.records.automationTriggering).toBe(0);
    expect(fake.imports.records.listStatusChanges).toEqual([]);
    expect(fake.contactListChanges).toEqual([]);
    expect(fake.reads.offsetPages).toBe(0);
    expect(Math.max(...fake.reads.limits)).toBe(100);
    expect([...fake.imports.records.writesPerContact.values()].every((n) => n === 1)).toBe(true);
  });

  it('a second sync writes nothing: every value and tag read back is unchanged', async () => {
    const imports = fake.imports.records.sizes.length;
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 0, unchanged: 250 } });
    expect(fake.imports.records.sizes).toHaveLength(imports);
    expect(fake.count('DELETE', '/contactTags/:id')).toBe(0);
  });

  it('a contact whose risk changed loses its old tag: exactly one ev-* tag', async () => {
    stale = [...fake.store.contacts.values()].find((c) => c.email.startsWith('invalid.'))!;
    fake.store.changeEmail(stale, `risky.moved-${stale.id}@example.com`);
    const run = await runToEnd('changed-since:10m');
    expect(run.status).toBe('completed');
    expect(run).toMatchObject({ counters: { written: 1 } });
    expect(fake.store.tagsOf(stale.id)).toEqual(['ev-risky']);
    expect(risk(stale)).toBe('risky');
  });

  it('verifies a contact from a form-encoded webhook delivery; a wrong path secret is refused', async () => {
    const hook = [...fake.webhooks.hooks.values()][0]!;
    const forged = await fetch(hook.url.replace(/[^/]+$/, 'not-the-secret'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'type=subscribe&contact%5Bid%5D=1' });
    expect(forged.status).toBe(401);
    const added = fake.store.addContact('invalid.newcomer@example.com', ['1']);
    const [delivery] = await fake.webhooks.deliver('subscribe', added, 'public');
    expect(delivery!.status).toBe(200);
    await until(async () => risk(added), (value) => value === 'invalid', 30_000);
    expect(fake.store.tagsOf(added.id)).toEqual(['ev-invalid']);
    // The hub's own writes are API writes: the registered webhook never asks for them.
    expect(await fake.webhooks.deliver('update', added, 'api')).toEqual([]);
  });

  it('a lost delivery is caught by the daily changed-since schedule (ActiveCampaign never retries one)', async () => {
    const bad = await request(stack.hub.url).post('/api/schedules').set(auth).send({ cron: '0 3 * * *', platform: 'activecampaign', connectionId: 'activecampaign-demo', scope: 'changed-since:soon' });
    expect(bad.status).toBe(400);
    const saved = await request(stack.hub.url).post('/api/schedules').set(auth).send({ cron: '0 3 * * *', platform: 'activecampaign', connectionId: 'activecampaign-demo', scope: 'changed-since:26h' });
    expect(saved.status).toBe(201);
    const missed = fake.store.addContact('risky.never-delivered@example.com', ['1']);
    const run = await runToEnd('changed-since:26h');
    expect(run.status).toBe('completed');
    expect(risk(missed)).toBe('risky');
    expect(fake.store.tagsOf(missed.id)).toEqual(['ev-risky']);
  });

  it('pauses a run when the token is revoked, saying how to reconnect', async () => {
    const token = fake.token;
    fake.revokeToken();
    const run = await runToEnd();
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/ActiveCampaign refused the API token/);
    expect(run.statusReason).toMatch(/reconnect ActiveCampaign/);
    fake.token = token;
  });

  it('disconnecting removes the webhook the hub registered', async () => {
    const res = await request(stack.hub.url).delete('/api/connections/activecampaign-demo').set(auth);
    expect(res.status).toBe(200);
    expect(fake.webhooks.hooks.size).toBe(0);
    expect(fake.imports.records.automationTriggering).toBe(0);
    expect(fake.imports.records.listStatusChanges).toEqual([]);
    expect(fake.contactListChanges).toEqual([]);
  });
});
