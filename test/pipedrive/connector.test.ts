import { QuotaError, RateLimitError, parseScope, type ContactResult } from '@verify-hub/core';
import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';
import { riskyCatchAll } from '../fakes/verification/risky-catch-all';
import { connectorFor, tokenRecord } from './helpers';

/**
 * The connector against the fake, without the host: paging at Pipedrive's 500, scopes, a person's
 * several addresses, the person fields found by key or by name, one PATCH per changed person (never
 * marketing_status), a batch that fails half way written once in all, and the limits' kinds.
 */
describe('Pipedrive connector', () => {
  let fake: FakePipedrive;
  beforeEach(async () => {
    fake = await new FakePipedrive({ burstLimit: 1000 }).start();
  });
  afterEach(() => fake.stop());

  async function allPages(scope = 'all') {
    const { connector } = connectorFor(fake);
    await connector.ensureSchema();
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = await connector.pull(parseScope(scope), cursor);
      pages.push(page);
      cursor = page.next;
    } while (cursor);
    return pages;
  }

  it('reads persons 500 a page with a cursor; a limit above 500 is refused with 400', async () => {
    fake.seed(1201, (i) => [`p${i}@example.com`]);
    const pages = await allPages();
    expect(pages.map((p) => p.contacts.length)).toEqual([500, 500, 201]);
    expect(new Set(pages.flatMap((p) => p.contacts.map((c) => c.id))).size).toBe(1201);
    const { connector } = connectorFor(fake);
    await expect(connector.api.persons({ limit: 501 })).rejects.toMatchObject({ status: 400 });
  });

  it('reads a saved filter and persons changed since a time; other scopes are refused naming scope', async () => {
    fake.seed(10, (i) => [`p${i}@example.com`]);
    fake.filters.set(7, (p) => p.id % 2 === 0);
    const since = new Date(Date.now() + 1000).toISOString();
    const filtered = await allPages('filter:7');
    expect(filtered.flatMap((p) => p.contacts.map((c) => Number(c.id)))).toEqual([2, 4, 6, 8, 10]);
    for (const id of [3, 4]) fake.persons.get(id)!.update_time = new Date(Date.now() + 5000).toISOString();
    expect((await allPages(`changed-since:${since}`)).flatMap((p) => p.contacts.map((c) => c.id))).toEqual(['3', '4']);
    expect((await allPages(`filter:7:changed-since:${since}`)).flatMap((p) => p.contacts.map((c) => c.id))).toEqual(['4']);
    const { connector } = connectorFor(fake);
    expect(() => connector.checkScope(parseScope('list:1'))).toThrow(/scope/);
    expect(() => connector.checkScope(parseScope('changed-since:yesterday'))).toThrow(/scope/);
  });

  it("verifies each of a person's addresses, primary first; only the primary's verdict is written", async () => {
    const person = fake.addPerson(['second@example.com', 'main@example.com']);
    person.emails[0]!.primary = false;
    person.emails[1]!.primary = true;
    const [page] = await allPages();
    expect(page!.contacts.map((c) => [c.id, c.email])).toEqual([[String(person.id), 'main@example.com'], [`${person.id}:address:1`, 'second@example.com']]);
    const { connector } = connectorFor(fake);
    const results: ContactResult[] = page!.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) }));
    const report = await connector.write(results, {});
    expect(report).toMatchObject({ written: 1, unchanged: [`${person.id}:address:1`], failed: [] });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(1);
  });

  it('setup makes the four fields once, keeps working when one is renamed, and finds a kept key that is gone by name', async () => {
    const { connector } = connectorFor(fake);
    const first = await connector.ensureSchema();
    expect(first.created).toHaveLength(4);
    expect(fake.fields.filter((f) => f.is_custom_field).map((f) => [f.field_name, f.field_type, f.field_code.length])).toEqual([
      ['EV risk', 'enum', 40],
      ['EV score', 'double', 40],
      ['EV reason', 'text', 40],
      ['EV checked at', 'date', 40],
    ]);
    expect(fake.field('EV risk')!.options!.map((o) => o.label)).toEqual(['safe', 'risky', 'invalid', 'unknown']);
    const { keys } = await connector.resolveFields(false);
    fake.field('EV score')!.field_name = 'Email score';
    const renamed = connectorFor(fake, tokenRecord(fake, { fieldKeys: keys }));
    const again = await renamed.connector.ensureSchema();
    expect(again.created).toEqual([]);
    expect(again.existing.join()).toContain('renamed "Email score"');
    // A kept key that no longer exists (the field made again by hand): found by its name.
    const stale = { ...keys!, reason: 'f'.repeat(40) };
    const found = connectorFor(fake, tokenRecord(fake, { fieldKeys: stale }));
    expect((await found.connector.resolveFields(false)).keys!.reason).toBe(fake.field('EV reason')!.field_code);
  });

  it('writes one PATCH per changed person with only our fields, never marketing_status; unchanged persons cost nothing', async () => {
    fake.seed(30, (i) => [`p${i}@example.com`]);
    const [page] = await allPages();
    const { connector } = connectorFor(fake);
    const results = page!.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) }));
    expect(await connector.write(results, {})).toMatchObject({ written: 30, failed: [] });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(30);
    const risk = fake.field('EV risk')!;
    const person = fake.persons.get(1)!;
    expect(person.custom_fields[risk.field_code]).toBe(risk.options!.find((o) => o.label === 'risky')!.id);
    expect(person.custom_fields[fake.field('EV score')!.field_code]).toBe(87);
    expect(person.custom_fields[fake.field('EV checked at')!.field_code]).toBe('2026-11-20');
    expect(person.marketing_status).toBe('subscribed');
    expect(fake.marketingStatusWrites).toEqual([]);
    const [reread] = await allPages();
    const again = reread!.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) }));
    expect(await connector.write(again, {})).toMatchObject({ written: 0, unchanged: expect.arrayContaining(['1', '30']) });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(30);
  });

  it('a batch refused half way (503) is thrown whole; tried again it sends only the persons not yet written', async () => {
    fake.seed(10, (i) => [`p${i}@example.com`]);
    const [page] = await allPages();
    const { connector } = connectorFor(fake);
    const results = page!.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) }));
    await connector.fieldKeys();
    const before = fake.callsTo('PATCH', '/api/v2/persons/');
    // A 0 lets a call through: the 3rd PATCH is refused, while others are under way.
    fake.failNext(0, 0, 503);
    await expect(connector.write(results, {})).rejects.toMatchObject({ name: expect.stringMatching(/Transient/) });
    const written = fake.writesPerPerson.size;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(10);
    expect(await connector.write(results, {})).toMatchObject({ written: 10, failed: [] });
    expect([...fake.writesPerPerson.values()]).toEqual(Array(10).fill(1));
    // Ten persons, one refused PATCH: nothing sent twice.
    expect(fake.callsTo('PATCH', '/api/v2/persons/') - before).toBe(11);
  });

  it("a spent 2-second window is a RateLimitError until Pipedrive's reset; a spent day is a QuotaError until 00:00 UTC, the next call not even sent", async () => {
    fake.limits.burstLimit = 2;
    fake.limits.windowMs = 4_000;
    const { connector } = connectorFor(fake, tokenRecord(fake, { burstLimit: 1000 }));
    // Two connectors on one token (two workers): the second finds the window spent by the first.
    const other = connectorFor(fake, tokenRecord(fake, { burstLimit: 1000 })).connector;
    await connector.api.persons({});
    await connector.api.persons({});
    const refused = await other.api.persons({}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).not.toBeInstanceOf(QuotaError);
    const wait = (refused as RateLimitError).waitMs(Date.now());
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(4_000);
    expect(fake.limits.refused.burst).toBe(1);
    // The connector that saw `remaining: 0` waits the window out instead of meeting the 429.
    await connector.api.persons({});
    expect(fake.limits.refused.burst).toBe(1);

    fake.limits.burstLimit = 1000;
    fake.limits.windowMs = 2_000;
    fake.limits.dailyBudget = fake.limits.dailyUsed;
    const spent = await connector.api.persons({}).catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(QuotaError);
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect((spent as QuotaError).resetAt).toBe(midnight.getTime());
    const calls = fake.calls.length;
    await expect(connector.api.persons({})).rejects.toBeInstanceOf(QuotaError);
    expect(fake.calls.length).toBe(calls);
  });

  it('a 429 whose reset is hours away (a spent budget said without the daily header) is a QuotaError, not a wait', async () => {
    fake.limits.burstLimit = 1;
    fake.limits.windowMs = 3_600_000;
    const first = connectorFor(fake, tokenRecord(fake, { burstLimit: 1000 })).connector;
    const second = connectorFor(fake, tokenRecord(fake, { burstLimit: 1000 })).connector;
    await first.api.persons({});
    const refused = await second.api.persons({}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuotaError);
    expect((refused as QuotaError).resetAt).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('a person gone before its write is a failure of that person, not of the batch', async () => {
    fake.seed(3, (i) => [`p${i}@example.com`]);
    const [page] = await allPages();
    fake.persons.delete(2);
    const { connector } = connectorFor(fake);
    const report = await connector.write(page!.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) })), {});
    expect(report.written).toBe(2);
    expect(report.failed).toEqual([expect.objectContaining({ contactId: '2', retryable: false })]);
    expect(report.failed[0]!.reason).toMatch(/404/);
  });
});
