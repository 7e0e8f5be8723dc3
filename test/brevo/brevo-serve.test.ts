import request from 'supertest';
import { ATTRIBUTE_NAMES, NOT_CHECKED, WRITE_BATCH_SIZE } from '@verify-hub/connector-brevo';
import { expectNoneWrong, expectedRisk, useHub } from '../setup/hub-harness';
import { FakeBrevo } from '../fakes/brevo/fake-brevo';

/**
 * Brevo through `verify-hub serve` (the real pipeline and workers) against its fake: listed, connects
 * with its key form (the dedicated list made), syncs 2,500 contacts through imports read back, writes
 * nothing the second time, takes a token-checked webhook, and pauses on a revoked key.
 */
describe('Brevo through verify-hub serve', () => {
  let fake: FakeBrevo;
  const prefixes = ['', 'invalid.', 'risky.'];
  const connectionId = () => 'brevo-org-demo';
  const stack = useHub({
    platform: 'brevo',
    connectionId,
    fake: async () => {
      fake = await new FakeBrevo().start();
      for (let i = 0; i < 2500; i++) fake.addContact(`${prefixes[i % 3]}person${i}@example.com`, { FIRSTNAME: `P${i}` });
      return fake;
    },
    settings: () => ({ BREVO_API_BASE: fake.url }),
  });
  const { auth, runToEnd } = stack;

  it('is installed: GET /api/platforms lists it with its card and key form', async () => {
    const res = await request(stack.hub.url).get('/api/platforms').set(auth);
    expect(res.status).toBe(200);
    expect(res.body.platforms.find((p: { id: string }) => p.id === 'brevo')).toMatchObject({
      id: 'brevo',
      label: 'Brevo',
      connectable: true,
      connect: { oauth: false, keyFields: [{ name: 'apiKey', secret: true }, { name: 'apiKeyName', secret: false }] },
      webhook: true,
    });
  });

  it('connects with its key form (a wrong key refused naming the field, never echoed) and finds or makes the dedicated list', async () => {
    const wrong = await request(stack.hub.url).post('/api/connections/brevo').set(auth).send({ apiKey: 'xkeysib-not-the-key', apiKeyName: 'verify-hub' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    expect(wrong.text).not.toContain('xkeysib-not-the-key');
    const connected = await request(stack.hub.url).post('/api/connections/brevo').set(auth).send({ apiKey: fake.apiKey, apiKeyName: fake.apiKeyName });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId(), platform: 'brevo' });
    expect([...fake.lists.values()].map((l) => l.name)).toEqual(['verify-hub write-back (no automations)']);
    expect(connected.text).not.toContain(fake.apiKey);
  });

  it('refuses a scope it cannot read, at start, naming it', async () => {
    const refused = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'brevo', connectionId: connectionId(), scope: 'list:abc' });
    expect(refused.status).toBe(400);
  });

  it('syncs 2,500 contacts: attributes made, every contact written once through imports into the dedicated list, a refused import and a 429 waited out', async () => {
    fake.failNext(503, /^POST \/contacts\/import$/);
    fake.failNext(429, /^GET \/contacts$/);
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 2500, written: 2500, failed: 0 } });
    expect([...fake.attributes.keys()].sort()).toEqual([...ATTRIBUTE_NAMES].sort());
    const wrong = [...fake.contacts.values()].flatMap(({ email, attributes: a }) => {
      const bad = {
        EV_RISK: a.EV_RISK !== expectedRisk(email),
        EV_SCORE: typeof a.EV_SCORE !== 'number',
        EV_CHECKED_AT: !/^\d{4}-\d{2}-\d{2}$/.test(String(a.EV_CHECKED_AT)),
        EV_DISPOSABLE: !([true, false, 'true', 'false', NOT_CHECKED] as unknown[]).includes(a.EV_DISPOSABLE),
        FIRSTNAME: !/^P\d+$/.test(String(a.FIRSTNAME)),
      };
      const fields = Object.keys(bad).filter((field) => bad[field as keyof typeof bad]);
      return fields.length ? [{ email, fields, attributes: a }] : [];
    });
    expectNoneWrong(wrong);
    expect(fake.contacts.size).toBe(2500);
    expect([...fake.writesPerContact.values()].every((n) => n === 1)).toBe(true);
    expect(fake.writesPerContact.size).toBe(2500);
    const listId = [...fake.lists.keys()][0]!;
    expect(fake.imports.every((i) => i.listIds.length === 1 && i.listIds[0] === listId && i.emailBlacklist === undefined && i.rows <= WRITE_BATCH_SIZE)).toBe(true);
    expect(fake.consentChanges.filter((c) => c.what !== 'list-added' || c.value !== listId)).toEqual([]);
    expect(fake.callCount(/^POST \/contacts\/batch$/)).toBe(0);
    expect(fake.calls.filter((c) => c === 'POST /contacts/import')).toHaveLength(fake.imports.length + 1);
  });

  it('a second sync writes nothing: every value read back is unchanged', async () => {
    const imports = fake.imports.length;
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 2500, written: 0, unchanged: 2500 } });
    expect(fake.imports).toHaveLength(imports);
    expect(fake.callCount(/^PUT /)).toBe(0);
  });

  it('pauses a run when the key is revoked, saying what to do', async () => {
    fake.revokeKey();
    const run = await runToEnd();
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/Brevo refused the API key/);
    expect(run.statusReason).toMatch(/reconnect Brevo/);
  });
});
