import { InputError, parseScope } from '@verify-hub/core';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, drain } from './helpers';

const fake = new FakeHubSpot();
beforeAll(async () => {
  await fake.start();
});
afterAll(() => fake.stop());

describe('pull all', () => {
  it('pages 25,000 contacts 100 at a time, every one exactly once, and counts those without email', async () => {
    // HubSpot's 100-per-10-s window, shrunk a hundredfold in both the fake and the connector's limiter.
    fake.addPortal({ portalId: '301', token: 'pull-all', windowLimit: 100, windowMs: 100 });
    const ids = fake.addContacts('301', Array.from({ length: 25_000 }, (_, i) => (i % 500 === 7 ? {} : { email: `person${i}@example.com` })));
    const hub = connector(fake, '301', 'pull-all');
    const { contacts, skipped, pages } = await drain(hub, 'all');
    expect(pages).toBe(250);
    expect(skipped).toEqual({ no_email: 50 });
    expect(contacts).toHaveLength(24_950);
    expect(new Set(contacts.map((c) => c.id)).size).toBe(24_950);
    const withEmail = new Set(ids.filter((_, i) => i % 500 !== 7));
    expect(contacts.every((c) => withEmail.has(c.id))).toBe(true);
    const listCalls = fake.callsTo(/^\/crm\/v3\/objects\/contacts$/, 'GET').filter((c) => c.status === 200);
    expect(listCalls).toHaveLength(250);
    expect(contacts[0]!.current).toHaveProperty('ev_risk', null);
  }, 60_000);
});

describe('pull changed-since', () => {
  it('gets past the 10,000-result cap without losing or repeating a contact, with ties at the boundary', async () => {
    fake.addPortal({ portalId: '302', token: 'pull-since', windowLimit: 1000, searchPerSecond: 1000 });
    const base = Date.parse('2026-06-01T00:00:00Z');
    // 12,600 changed contacts: 9,900 spread out, then 450 sharing one timestamp across the 10,000th
    // result (more than a search page), then 2,250 more; plus 300 changed before the start.
    const plan: { email?: string; modifiedAt: number }[] = [];
    for (let i = 0; i < 300; i++) plan.push({ email: `old${i}@example.com`, modifiedAt: base - 1000 - i });
    for (let i = 0; i < 9_900; i++) plan.push({ email: `a${i}@example.com`, modifiedAt: base + i * 10 });
    const tie = base + 9_900 * 10;
    for (let i = 0; i < 450; i++) plan.push({ email: `tie${i}@example.com`, modifiedAt: tie });
    for (let i = 0; i < 2_250; i++) plan.push({ email: i % 100 === 0 ? undefined : `b${i}@example.com`, modifiedAt: tie + 1 + Math.floor(i / 3) });
    // The start time itself is included (changed since = at or after).
    plan.push({ email: 'exactly-at-start@example.com', modifiedAt: base });
    const ids = fake.addContacts('302', plan);
    const hub = connector(fake, '302', 'pull-since');

    const { contacts, skipped } = await drain(hub, `changed-since:${new Date(base).toISOString()}`);
    const expected = new Set(ids.filter((_, i) => plan[i]!.modifiedAt >= base && plan[i]!.email));
    const got = contacts.map((c) => c.id);
    expect(new Set(got).size).toBe(got.length); // none repeated
    expect(got.length).toBe(expected.size); // none lost
    expect(got.every((id) => expected.has(id))).toBe(true);
    expect(skipped).toEqual({ no_email: 23 });
    // The walk went past the cap: no search asked for more than 10,000 results, and none failed.
    const searches = fake.callsTo(/\/search$/);
    expect(searches.every((c) => c.status === 200)).toBe(true);
    expect(searches.every((c) => (c.inputs ?? 0) <= 200)).toBe(true);
    expect(searches.length).toBeGreaterThanOrEqual(Math.ceil(12_601 / 200));
  }, 60_000);

  it('walks more than 10,000 contacts that share one timestamp (a bulk import)', async () => {
    fake.addPortal({ portalId: '303', token: 'pull-bulk', windowLimit: 1000, searchPerSecond: 1000 });
    const at = Date.parse('2026-07-01T12:00:00Z');
    const ids = fake.addContacts('303', Array.from({ length: 10_400 }, (_, i) => ({ email: `bulk${i}@example.com`, modifiedAt: at })));
    const { contacts } = await drain(connector(fake, '303', 'pull-bulk'), 'changed-since:2026-07-01T00:00:00Z');
    expect(contacts).toHaveLength(10_400);
    expect(new Set(contacts.map((c) => c.id))).toEqual(new Set(ids));
  }, 60_000);

  it('rejects a scope time that is not ISO 8601 and a cursor it did not make', async () => {
    fake.addPortal({ portalId: '304', token: 'pull-bad' });
    const hub = connector(fake, '304', 'pull-bad');
    await expect(hub.pull(parseScope('changed-since:yesterday'))).rejects.toThrow(/scope: changed-since:<time> needs an ISO 8601 time/);
    await expect(hub.pull(parseScope('changed-since:2026-01-01T00:00:00Z'), '{"phase":"sideways"}')).rejects.toBeInstanceOf(InputError);
    await expect(hub.pull(parseScope('segment:1'))).rejects.toThrow(/HubSpot scopes are all, list:<id> and changed-since/);
    await expect(hub.pull(parseScope('list:abc'))).rejects.toThrow(/list:<id> needs a numeric HubSpot list id/);
  });
});

describe('pull list:<id> and by ids', () => {
  it('pages a list\'s memberships and reads its contacts in batches, counting deleted and email-less ones', async () => {
    fake.addPortal({ portalId: '305', token: 'pull-list' });
    const ids = fake.addContacts('305', Array.from({ length: 260 }, (_, i) => (i % 50 === 0 ? {} : { email: `l${i}@example.com` })));
    const members = [...ids.slice(0, 230), '999999']; // one member deleted since
    fake.setList('305', '42', members);
    const hub = connector(fake, '305', 'pull-list');
    const { contacts, skipped, pages } = await drain(hub, 'list:42');
    expect(pages).toBe(3);
    expect(skipped).toEqual({ no_email: 5, not_found: 1 });
    expect(contacts.map((c) => c.id)).toEqual(ids.slice(0, 230).filter((_, i) => i % 50 !== 0));
    expect(fake.callsTo(/batch\/read$/).every((c) => (c.inputs ?? 0) <= 100)).toBe(true);
    await expect(hub.pull(parseScope('list:77'))).rejects.toThrow(/404 OBJECT_NOT_FOUND/);
  });

  it('reads single contacts for webhook events, leaving out ids HubSpot does not have', async () => {
    const hub = connector(fake, '305', 'pull-list');
    const [first, second] = fake.addContacts('305', [{ email: 'hook1@example.com' }, { email: 'hook2@example.com' }]);
    const got = await hub.pullByIds([first!, '123456789', second!, first!]);
    expect(got.map((c) => [c.id, c.email])).toEqual([[first, 'hook1@example.com'], [second, 'hook2@example.com']]);
  });
});
