import { RateLimitError, type ConnectionRecord, type ContactResult } from '@verify-hub/core';
import { BrevoErrors, NOT_CHECKED, oneOffConnector, type BrevoConnector } from '@verify-hub/connector-brevo';
import { FakeBrevo } from '../fakes/brevo/fake-brevo';
import { riskyCatchAll } from '../fakes/verification/risky-catch-all';

/**
 * The Brevo connector against its fake, in process: setup's attributes and list (idempotent, a
 * foreign type reported), pages of 1,000 by offset with Brevo's filters, and the write path: imports
 * that silently drop rows are caught by the read-back, a replayed batch writes nothing, a contact
 * changed since the pull is not written, consent is sent only for the chosen clean action, and
 * Brevo's rate-limit headers and 429s become core's RateLimitError with Brevo's reset.
 */
describe('Brevo connector', () => {
  let fake: FakeBrevo;
  let connector: BrevoConnector;
  const record = (settings: Record<string, unknown> = {}): ConnectionRecord => ({
    id: 'brevo-org-demo',
    platform: 'brevo',
    label: 'Brevo',
    createdAt: new Date().toISOString(),
    credentials: { apiKey: fake.apiKey },
    settings: { account: 'org-demo', importWaitSeconds: 2, ...settings },
  });

  beforeEach(async () => {
    fake = await new FakeBrevo().start();
    fake.importDelayMs = 20;
    connector = oneOffConnector(record(), fake.url);
  });
  afterEach(() => fake.stop());

  const results = async (count: number, risk: 'safe' | 'invalid' = 'safe'): Promise<ContactResult[]> => {
    for (let i = 0; i < count; i++) fake.addContact(`${risk}.${fake.contacts.size}@example.com`);
    const page = await connector.pull({ kind: 'all' });
    return page.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email, risk }) }));
  };

  it('setup creates the EV_* attributes with their types and the dedicated list, once; a foreign type is a problem, never changed', async () => {
    const first = await connector.ensureSchema();
    expect(first.created).toEqual(expect.arrayContaining(['attribute EV_RISK (text)', 'attribute EV_SCORE (float)', 'attribute EV_CHECKED_AT (date)', 'attribute EV_DISPOSABLE (text)']));
    expect(first.created.filter((c) => c.startsWith('list'))).toHaveLength(1);
    expect(first.problems).toEqual([]);
    const second = await connector.ensureSchema();
    expect(second.created).toEqual([]);
    expect(fake.lists.size).toBe(1);
    fake.attributes.set('EV_SCORE', { name: 'EV_SCORE', category: 'normal', type: 'text' });
    const third = await oneOffConnector(record(), fake.url).ensureSchema();
    expect(third.problems).toEqual([expect.stringMatching(/^attribute EV_SCORE exists as text, verify-hub writes float/)]);
    expect(fake.attributes.get('EV_SCORE')!.type).toBe('text');
  });

  it('pulls pages of 1,000 by offset, oldest first, with list and modifiedSince filters; blocklisted and address-less contacts are skipped and counted', async () => {
    const list = fake.addList('Customers');
    for (let i = 0; i < 2_345; i++) fake.addContact(`p${i}@example.com`, {}, i % 2 ? [list] : []);
    fake.contacts.get(3)!.emailBlacklisted = true;
    fake.contacts.get(4)!.email = '';
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = await connector.pull({ kind: 'all' }, cursor);
      pages.push(page);
      cursor = page.next;
    } while (cursor);
    expect(pages.map((p) => p.contacts.length)).toEqual([998, 1000, 345]);
    expect(pages[0]!.skipped).toEqual({ blocklisted: 1, no_email: 1 });
    expect(pages[0]!.contacts[0]!.email).toBe('p0@example.com');
    expect(fake.calls.filter((c) => c === 'GET /contacts')).toHaveLength(3);
    const listed = await connector.pull({ kind: 'list', value: String(list) });
    expect(listed.contacts.every((c) => Number(c.email.slice(1, -12)) % 2 === 1)).toBe(true);
    const since = new Date(Date.now() + 60_000).toISOString();
    fake.contacts.get(10)!.modifiedAt = new Date(Date.now() + 120_000).toISOString();
    expect((await connector.pull({ kind: 'changed-since', value: since })).contacts.map((c) => c.id)).toEqual(['10']);
    fake.segments.set(5, new Set([20, 21, 22]));
    expect((await connector.pull({ kind: 'segment', value: '5' })).contacts.map((c) => c.id)).toEqual(['20', '21', '22']);
    expect(await connector.estimateTotal({ kind: 'segment', value: '5' })).toBe(3);
    expect(() => connector.checkScope({ kind: 'list', value: 'abc' })).toThrow(/scope/);
  });

  it('the fake refuses a page larger than Brevo allows', async () => {
    const res = await fetch(`${fake.url}/contacts?limit=1001`, { headers: { 'api-key': fake.apiKey } });
    expect(res.status).toBe(400);
  });

  it('writes through one import into the dedicated list, reads the batch back, and counts the rows Brevo silently did not apply as failed', async () => {
    await connector.ensureSchema();
    const batch = await results(40);
    fake.dropNextImportRows(3);
    const report = await connector.write(batch, {});
    expect(report.written).toBe(37);
    expect(report.failed).toHaveLength(3);
    expect(report.failed[0]).toMatchObject({ retryable: true, reason: expect.stringMatching(/did not apply the values/) });
    expect(fake.imports).toEqual([{ listIds: [[...fake.lists.keys()][0]], rows: 40, emailBlacklist: undefined, emptyContactsAttributes: false }]);
    const written = [...fake.contacts.values()].filter((c) => c.attributes.EV_RISK);
    expect(written).toHaveLength(37);
    expect(written[0]!.attributes).toMatchObject({ EV_RISK: 'safe', EV_SCORE: 87, EV_REASON: 'catch_all', EV_CHECKED_AT: '2026-11-20', EV_CATCH_ALL: NOT_CHECKED, EV_ROLE_ACCOUNT: 'true', EV_DISPOSABLE: 'false', EV_SPAM_TRAP_RISK: 'low' });
    // A replay of the batch (a retry, a worker killed after the import) writes only the dropped rows.
    const again = await connector.write(batch, {});
    expect({ written: again.written, unchanged: again.unchanged.length }).toEqual({ written: 3, unchanged: 37 });
    expect([...fake.writesPerContact.values()].every((n) => n === 1)).toBe(true);
  });

  it("counts as failed what an import silently drops because an attribute is missing (Brevo ignores unknown attributes), once the import says it finished", async () => {
    const batch = await results(12);
    const report = await connector.write(batch, {});
    expect(report.written).toBe(0);
    expect(report.failed).toHaveLength(12);
    expect(report.failed[0]!.reason).toMatch(/did not apply the values .*after it finished/);
    expect(fake.callCount(/^GET \/processes\//)).toBeGreaterThanOrEqual(1);
    expect(fake.writesPerContact.size).toBe(0);
  });

  it('never writes a contact deleted, blocklisted or re-addressed since the pull, and sends consent only for the chosen clean action', async () => {
    await connector.ensureSchema();
    const batch = await results(14, 'invalid');
    fake.contacts.delete(Number(batch[0]!.contact.id));
    fake.contacts.get(Number(batch[1]!.contact.id))!.emailBlacklisted = true;
    fake.contacts.get(Number(batch[2]!.contact.id))!.email = 'someone.else@example.com';
    const dry = await connector.write(batch, { dryRun: true, actions: { invalid: 'unsubscribe' } });
    expect(dry.failed.map((f) => f.reason)).toEqual([expect.stringMatching(/no longer in Brevo/), expect.stringMatching(/blocklisted/), expect.stringMatching(/another address/)]);
    expect(dry.actions!.every((a) => !a.applied)).toBe(true);
    expect(fake.consentChanges).toEqual([]);
    const plain = await connector.write(batch, {});
    expect(plain.written).toBe(11);
    expect(fake.consentChanges.filter((c) => c.what !== 'list-added')).toEqual([]);
    const chosen = await connector.write(batch, { actions: { invalid: 'unsubscribe' } });
    expect(chosen.actions).toHaveLength(11);
    expect(fake.consentChanges.filter((c) => c.what === 'emailBlacklisted')).toHaveLength(11);
    expect(fake.consentChanges.every((c) => c.value !== false)).toBe(true);
  });

  it('writeMode update and small batches go one PUT a contact, with no list touched', async () => {
    await connector.ensureSchema();
    const small = await results(3);
    await connector.write(small, {});
    expect(fake.callCount(/^PUT \/contacts\//)).toBe(3);
    expect(fake.imports).toHaveLength(0);
    const byUpdate = oneOffConnector(record({ writeMode: 'update' }), fake.url);
    const report = await byUpdate.write(await results(25), {});
    expect(report.written).toBe(25);
    expect(fake.callCount(/^PUT \/contacts\//)).toBe(28);
    expect(fake.imports).toHaveLength(0);
    expect(fake.consentChanges).toEqual([]);
  });

  it("Brevo's 429 becomes a RateLimitError at its x-sib-ratelimit-reset; a used-up budget sends nothing until its reset", async () => {
    fake.limits.set('other', [{ limit: 2, ms: 3_600_000 }]);
    await connector.api.account();
    await connector.api.account(); // the answer says 0 remaining
    const before = fake.calls.length;
    const closed = await connector.api.account().catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(BrevoErrors.RateLimitError);
    expect(fake.calls.length).toBe(before);
    const other = oneOffConnector(record(), fake.url);
    const refused = (await other.api.account().catch((e: unknown) => e)) as RateLimitError;
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused.message).toMatch(/100 calls an hour/);
    expect(refused.resetAt - Date.now()).toBeGreaterThan(3_500_000);
    expect(fake.limits.refused.other).toBe(1);
  });

  it('a revoked key is an AuthError saying what to do; a 503 is transient', async () => {
    fake.failNext(503);
    await expect(connector.api.account()).rejects.toBeInstanceOf(BrevoErrors.TransientError);
    fake.revokeKey();
    const refused = await connector.api.account().catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(BrevoErrors.AuthError);
    expect(refused.message).toMatch(/API keys/);
    expect(refused.message).not.toContain(fake.apiKey);
  });
});
