import { EngineClient, type ContactResult } from '@verify-hub/core';
import { FakeEngine, type FieldSet } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, drain } from './helpers';

/**
 * Issue 15's acceptance for HubSpot: an engine answering exactly as ENGINE-API.md §2.1 publishes, read
 * by core's EngineClient, written back through the connector: the engine's risks and its flags land in
 * the ev_* properties, and a check the answer does not report clears its property ('').
 */
const fake = new FakeHubSpot();
const engine = new FakeEngine();

beforeAll(async () => {
  await fake.start();
  await engine.start();
});
afterAll(async () => {
  await fake.stop();
  await engine.stop();
});

async function syncPortal(portalId: string, fieldSet: FieldSet) {
  engine.options.fieldSet = fieldSet;
  fake.addPortal({ portalId, token: `pub-${portalId}`, windowLimit: 1000 });
  const hub = connector(fake, portalId, `pub-${portalId}`);
  await hub.ensureSchema();
  const emails = ['fine@published.test', 'disposable.x@published.test', 'risky.y@published.test', 'notchecked.z@published.test'];
  const ids = fake.addContacts(portalId, emails.map((email) => ({ email })));
  const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
  const { contacts } = await drain(hub, 'all');
  const results: ContactResult[] = await Promise.all(contacts.map(async (contact) => ({ contact, verification: await client.verify(contact.email) })));
  const report = await hub.write(results, {});
  expect(report.failed).toEqual([]);
  // An empty value for a property never set is no change (nothing sent): read absent as ''.
  const stored = (i: number) => ({ ev_catch_all: '', ev_spam_trap_risk: '', ...fake.portal(portalId).contacts.get(ids[i]!)!.properties });
  return { stored };
}

it("field set B as published: the engine's risks, and is_disposable true becomes ev_disposable true", async () => {
  const { stored } = await syncPortal('501', 'B');
  expect(stored(0)).toMatchObject({ ev_risk: 'safe', ev_score: '92', ev_disposable: 'false', ev_role_account: 'false', ev_catch_all: 'false', ev_free_provider: 'false', ev_spam_trap_risk: 'none' });
  expect(stored(1)).toMatchObject({ ev_risk: 'risky', ev_disposable: 'true', ev_catch_all: 'false', ev_spam_trap_risk: 'low' });
  expect(stored(2)).toMatchObject({ ev_risk: 'risky', ev_catch_all: 'true', ev_disposable: 'false' });
  expect(stored(3)).toMatchObject({ ev_risk: 'risky', ev_disposable: 'false' });
});

it("field set A only: disposable from 'disposable', and the checks set A does not have (catch-all, spam trap) are cleared, not false", async () => {
  const { stored } = await syncPortal('502', 'A');
  expect(stored(0)).toMatchObject({ ev_risk: 'safe', ev_disposable: 'false', ev_catch_all: '', ev_spam_trap_risk: '' });
  expect(stored(1)).toMatchObject({ ev_risk: 'risky', ev_reason: 'disposable', ev_disposable: 'true', ev_catch_all: '' });
});

it('a flag once true and then not determined is cleared on the next write', async () => {
  engine.options.fieldSet = 'B';
  fake.addPortal({ portalId: '504', token: 'pub-504', windowLimit: 1000 });
  const hub = connector(fake, '504', 'pub-504');
  await hub.ensureSchema();
  const [id] = fake.addContacts('504', [{ email: 'disposable.again@published.test' }]);
  const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
  const write = async () => {
    const { contacts } = await drain(hub, 'all');
    return hub.write(await Promise.all(contacts.map(async (contact) => ({ contact, verification: await client.verify(contact.email) }))), {});
  };
  await write();
  expect(fake.portal('504').contacts.get(id!)!.properties).toMatchObject({ ev_disposable: 'true', ev_catch_all: 'false' });
  engine.script('disposable.again@published.test', { kind: 'result', risk: 'risky', flags: { smtpCheck: 'deliverable' }, fields: { is_disposable: null, is_catch_all: null } });
  expect((await write()).written).toBe(1);
  const after = fake.portal('504').contacts.get(id!)!.properties;
  expect([after.ev_disposable ?? '', after.ev_catch_all ?? '']).toEqual(['', '']);
});

it('values outside the known vocabularies: the verdict is kept, an unknown spam-trap level clears the enumeration', async () => {
  const { stored } = await syncPortal('503', 'B-unseen');
  expect(stored(0)).toMatchObject({ ev_risk: 'safe', ev_score: '92', ev_spam_trap_risk: '' });
  expect(stored(1)).toMatchObject({ ev_risk: 'risky', ev_disposable: 'true' });
});
