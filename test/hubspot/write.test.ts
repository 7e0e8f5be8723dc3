import type { ContactResult } from '@verify-hub/core';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, drain, hostWrite, verification } from './helpers';

const fake = new FakeHubSpot();
beforeAll(async () => {
  await fake.start();
});
afterAll(() => fake.stop());

async function setUp(portalId: string, count: number, emails = (i: number) => `w${portalId}-${i}@example.com`) {
  fake.addPortal({ portalId, token: `write-${portalId}`, windowLimit: 1000 });
  const hub = connector(fake, portalId, `write-${portalId}`);
  await hub.ensureSchema();
  const ids = fake.addContacts(portalId, Array.from({ length: count }, (_, i) => ({ email: emails(i) })));
  return { hub, ids };
}

const asResults = (contacts: { id: string; email: string; current?: Record<string, unknown> }[], risk: 'safe' | 'invalid' = 'safe'): ContactResult[] =>
  contacts.map((contact) => ({ contact, verification: verification(contact.email, { risk, score: risk === 'safe' ? 91 : 2, reason: risk === 'safe' ? 'deliverable' : 'mailbox_not_found' }) }));

describe('write', () => {
  it('is written by the host in batches of at most 100 and stores values HubSpot accepts (enumeration, number, datetime, booleans)', async () => {
    const { hub, ids } = await setUp('401', 250);
    const { contacts } = await drain(hub, 'all');
    fake.resetCalls();
    const report = await hostWrite(hub, asResults(contacts));
    expect(report).toEqual({ written: 250, unchanged: [], failed: [] });
    const updates = fake.callsTo(/batch\/update$/);
    expect(updates.map((c) => c.inputs)).toEqual([100, 100, 50]);
    expect(updates.every((c) => c.status === 200)).toBe(true);
    expect(fake.portal('401').contacts.get(ids[0]!)!.properties).toMatchObject({
      ev_risk: 'safe', ev_score: '91', ev_reason: 'deliverable', ev_checked_at: '2026-11-20T08:30:00.000Z',
      ev_disposable: 'false', ev_role_account: 'false', ev_catch_all: 'false', ev_free_provider: 'true', ev_spam_trap_risk: 'none',
    });
  });

  it('re-syncing with nothing changed writes nothing, using the ev_* values read back', async () => {
    const { hub } = await setUp('402', 120);
    await hub.write(asResults((await drain(hub, 'all')).contacts), {});
    fake.resetCalls();
    const again = await drain(hub, 'all');
    const report = await hub.write(asResults(again.contacts), {});
    expect(report).toEqual({ written: 0, unchanged: again.contacts.map((c) => c.id), failed: [] });
    expect(fake.callsTo(/batch\/update$/)).toHaveLength(0);
    // A changed verdict is written, and only the properties that changed are sent.
    const changed = asResults(again.contacts.slice(0, 3), 'invalid');
    const third = await hub.write([...changed, ...asResults(again.contacts.slice(3))], {});
    expect(third).toEqual({ written: 3, unchanged: again.contacts.slice(3).map((c) => c.id), failed: [] });
  });

  it('reports 207 per-record failures per contact, retryable when HubSpot was busy, which the host tries once more', async () => {
    const { hub, ids } = await setUp('403', 10);
    const { contacts } = await drain(hub, 'all');
    fake.portal('403').recordFailures.set(ids[1]!, { category: 'RATE_LIMITS', times: 1 }); // succeeds on the host's second attempt
    fake.portal('403').recordFailures.set(ids[2]!, { category: 'INTERNAL_ERROR', times: 99 }); // never succeeds
    fake.portal('403').contacts.delete(ids[3]!); // deleted since the pull
    fake.resetCalls();
    const once = await hub.write(asResults(contacts), {});
    expect(once.written).toBe(7);
    expect(once.failed.filter((f) => f.retryable).map((f) => f.contactId).sort()).toEqual([ids[1], ids[2]].sort());
    fake.portal('403').recordFailures.set(ids[1]!, { category: 'RATE_LIMITS', times: 1 });
    fake.resetCalls();
    const report = await hostWrite(hub, asResults(contacts));
    expect(report.written).toBe(8);
    expect(report.failed).toEqual(expect.arrayContaining([
      { contactId: ids[3], email: contacts[3]!.email, reason: expect.stringMatching(/^OBJECT_NOT_FOUND/), retryable: false },
      { contactId: ids[2], email: contacts[2]!.email, reason: expect.stringMatching(/^INTERNAL_ERROR/), retryable: true },
    ]));
    expect(report.failed).toHaveLength(2);
    expect(fake.portal('403').contacts.get(ids[1]!)!.properties.ev_risk).toBe('safe');
    // The one retry re-sends only the retryable failures (the connector retries nothing itself).
    expect(fake.callsTo(/batch\/update$/).map((c) => c.inputs)).toEqual([10, 2]);
  });

  it('isolates a value HubSpot refuses (400 for the whole batch) and still writes the others', async () => {
    const { hub, ids } = await setUp('404', 40);
    const { contacts } = await drain(hub, 'all');
    fake.portal('404').invalidIds.add(ids[17]!);
    const report = await hub.write(asResults(contacts), {});
    expect(report.written).toBe(39);
    expect(report.failed).toEqual([{ contactId: ids[17], email: contacts[17]!.email, reason: expect.stringMatching(/400 VALIDATION_ERROR/), retryable: false }]);
  });

  it('fails every record with one clear reason, without splitting, when setup has not been run', async () => {
    fake.addPortal({ portalId: '406', token: 'write-406' });
    fake.addContacts('406', Array.from({ length: 30 }, (_, i) => ({ email: `nosetup${i}@example.com` })));
    const hub = connector(fake, '406', 'write-406');
    const { contacts } = await drain(hub, 'all');
    fake.resetCalls();
    const report = await hub.write(asResults(contacts), {});
    expect(report.written).toBe(0);
    expect(report.failed).toHaveLength(30);
    expect(report.failed[0]!.reason).toMatch(/property is missing in HubSpot: run `verify-hub hubspot setup`/);
    expect(fake.callsTo(/batch\/update$/)).toHaveLength(1);
  });

  it('dry run changes nothing and lists the opt-in invalid action as not applied', async () => {
    const { hub } = await setUp('405', 5);
    const { contacts } = await drain(hub, 'all');
    fake.resetCalls();
    const report = await hub.write(asResults(contacts, 'invalid'), { dryRun: true, actions: { invalid: 'unsubscribe' } });
    expect(report.written).toBe(0);
    expect(report.actions).toHaveLength(5);
    expect(report.actions!.every((a) => a.action === 'unsubscribe' && !a.applied)).toBe(true);
    expect(fake.calls).toHaveLength(0);
  });
});
