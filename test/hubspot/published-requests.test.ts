import { parseScope } from '@verify-hub/core';
import { fetchAccountDetails } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { CRM_OPERATIONS } from '../fakes/hubspot/published-schemas';
import { connector, drain, hostWrite, verification } from './helpers';

/**
 * Every CRM call of the HubSpot connector, through FakeHubSpot, which refuses a request that breaks the
 * published operation (hand-written copies of Contacts, Properties and Lists v3 in
 * test/fakes/hubspot/published-schemas.ts): setup, each way of pulling, a list, reads by id, the
 * write-back, the bounce source and the account details.
 */
describe("HubSpot's CRM calls against the published operations", () => {
  const fake = new FakeHubSpot();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  it('every call conforms, and every published operation the fake serves was called', async () => {
    fake.addPortal({ portalId: '771', token: 'published-771', windowLimit: 1000 });
    const hub = connector(fake, '771', 'published-771');
    await fetchAccountDetails('published-771', fake.url);
    await hub.ensureSchema();
    const ids = fake.addContacts('771', Array.from({ length: 150 }, (_, i) => ({ email: `p${i}@example.com`, modifiedAt: Date.parse('2026-05-01T00:00:00Z') + i })));
    fake.setList('771', '9', ids.slice(0, 30));
    const all = await drain(hub, 'all');
    await drain(hub, 'changed-since:2026-05-01T00:00:00Z');
    await drain(hub, 'list:9');
    await hub.describeScope(parseScope('list:9'));
    await hub.pullByIds(ids.slice(0, 5));
    const report = await hostWrite(hub, all.contacts.map((contact) => ({ contact, verification: verification(contact.email) })));
    expect(report).toMatchObject({ written: 150, failed: [] });
    await hub.bounces.read(undefined, new Date(Date.parse('2026-05-01T00:00:00Z')));
    expect(fake.unpublished).toEqual([]);
    expect([...fake.publishedChecked].sort()).toEqual(CRM_OPERATIONS.map((o) => o.name).sort());
  });

  it('refuses what the published operation does not define: a body member, a query parameter, a value of the wrong type', async () => {
    fake.addPortal({ portalId: '772', token: 'published-772' });
    const [id] = fake.addContacts('772', [{ email: 'x@example.com' }]);
    const send = (path: string, body?: unknown) =>
      fetch(`${fake.url}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: 'Bearer published-772', 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const refused = [
      await send('/crm/v3/objects/contacts/batch/update', { inputs: [{ id, properties: { ev_risk: 'safe' }, archived: false }] }),
      await send('/crm/v3/objects/contacts/batch/update', { inputs: [{ id, properties: { ev_score: 91 } }] }),
      await send('/crm/v3/objects/contacts/batch/read', { inputs: [{ id }], properties: ['email'] }),
      await send('/crm/v3/objects/contacts?limit=10&sort=email'),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(fake.unpublished.map((u) => u.problem)).toEqual([
      expect.stringMatching(/^inputs\.0: Unrecognized key/),
      expect.stringMatching(/^inputs\.0\.properties\.ev_score: /),
      expect.stringMatching(/^propertiesWithHistory: /),
      'query: sort is not a published parameter',
    ]);
  });
});
