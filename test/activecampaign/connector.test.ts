import { ActivecampaignConnector, activecampaignEnvironment } from '@verify-hub/connector-activecampaign';
import { AuthError, RateLimitError, TransientError, createLocalLimiter, parseScope, type ConnectionRecord, type Contact, type Verification, type WriteProgress } from '@verify-hub/core';
import { FakeActivecampaign } from '../fakes/activecampaign';
import { until } from '../setup/until';

const verification = (email: string, risk: Verification['risk'], checkedAt = '2026-11-01T10:00:00.000Z'): Verification =>
  ({
    email,
    normalized: email.toLowerCase(),
    score: risk === 'safe' ? 95 : 20,
    risk,
    reason: risk === 'safe' ? 'deliverable' : 'mailbox_not_found',
    checks: { syntax: true, mx: true, smtp: risk === 'safe', disposable: false, roleAccount: null, catchAll: false, freeProvider: false, spamTrapRisk: null },
    checkedAt,
    billable: true,
  }) as unknown as Verification;

/** The connector on its own over the fake account, the way a worker builds it (a local limiter standing for the shared one). */
function connectorFor(fake: FakeActivecampaign, env: Record<string, string> = {}): ActivecampaignConnector {
  const record: ConnectionRecord = {
    id: 'activecampaign-demo',
    platform: 'activecampaign',
    label: 'demo',
    createdAt: new Date().toISOString(),
    credentials: { apiToken: fake.token },
    settings: { apiUrl: fake.accountUrl },
  };
  const environment = activecampaignEnvironment.read({ ACTIVECAMPAIGN_API_BASE: fake.url, ACTIVECAMPAIGN_IMPORT_POLL_MS: '20', ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '1000', ...env } as never);
  return new ActivecampaignConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined }, { apiUrl: fake.accountUrl }, environment);
}

async function pullAll(connector: ActivecampaignConnector, scope: string): Promise<Contact[]> {
  const all: Contact[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.pull(parseScope(scope), cursor);
    all.push(...page.contacts);
    cursor = page.next;
  } while (cursor);
  return all;
}

describe('ActiveCampaign connector against the fake account', () => {
  let fake: FakeActivecampaign;
  beforeEach(async () => {
    // Fast enough for a unit suite; the 5-a-second case below builds its own.
    fake = await new FakeActivecampaign({ requestsPerSecond: 1000, importsPerMinute: 10_000 }).start();
  });
  afterEach(() => fake.stop());

  it('pages by id_greater at 100 a call, 500 contacts a pull, never by offset; a list scope reads that list', async () => {
    for (let i = 0; i < 620; i++) fake.store.addContact(`p${i}@example.com`, i % 2 ? ['7'] : []);
    const connector = connectorFor(fake);
    expect((await connector.pull(parseScope('all'))).contacts).toHaveLength(500);
    fake.reads.limits.length = 0;
    const all = await pullAll(connector, 'all');
    expect(all.map((c) => c.email)).toEqual([...fake.store.contacts.values()].map((c) => c.email));
    expect(fake.reads.limits).toEqual([100, 100, 100, 100, 100, 100, 100]); // the last page holds 20: shorter than asked, the end
    expect(fake.reads.offsetPages).toBe(0);
    const listed = await pullAll(connector, 'list:7');
    expect(listed).toHaveLength(310);
    // The run's progress denominator: ActiveCampaign's own count of the scope.
    expect(await connector.estimateTotal(parseScope('all'))).toBe(620);
    expect(await connector.estimateTotal(parseScope('list:7'))).toBe(310);
    expect(listed.every((c) => fake.store.contacts.get(c.id)!.lists.has('7'))).toBe(true);
  });

  it('changed-since reads only contacts changed after the time; a span is fixed by the first page', async () => {
    let clock = Date.parse('2026-11-01T00:00:00Z');
    fake.store.now = () => clock;
    for (let i = 0; i < 300; i++) fake.store.addContact(`old${i}@example.com`);
    clock = Date.parse('2026-11-02T00:00:00Z');
    const changed = [...fake.store.contacts.values()].filter((_, i) => i % 50 === 0);
    for (const c of changed) fake.store.touch(c);
    const connector = connectorFor(fake);
    const after = await pullAll(connector, 'changed-since:2026-11-01T12:00:00Z');
    expect(after.map((c) => c.id)).toEqual(changed.map((c) => c.id));
    // A span counts back from the run's first page, and its cursor carries that time to the next pages.
    clock = Date.now();
    for (const c of fake.store.contacts.values()) fake.store.touch(c);
    for (let i = 0; i < 300; i++) fake.store.addContact(`new${i}@example.com`);
    const first = await connector.pull(parseScope('changed-since:1h'));
    expect(first.contacts).toHaveLength(500);
    const since = Number(/@(\d+)$/.exec(first.next!)![1]);
    expect(Math.abs(since - (Date.now() - 3_600_000))).toBeLessThan(5000);
    const second = await connector.pull(parseScope('changed-since:1h'), first.next);
    expect(second.contacts).toHaveLength(100);
    expect(() => connector.checkScope(parseScope('changed-since:yesterday'))).toThrow(/scope/);
  });

  it('sets up idempotently: fields related to every list (or the list named), tags, and a field of another type reported, never changed', async () => {
    fake.store.addField({ title: 'EV Score', perstag: 'EV_SCORE', type: 'date' });
    const connector = connectorFor(fake);
    const first = await connector.ensureSchema();
    expect(first.created).toHaveLength(8 + 8 + 4); // 8 fields, each shown on every list, 4 tags
    expect(first.problems).toEqual([expect.stringMatching(/^field "EV Score" exists with type date/)]);
    expect([...fake.store.fieldRels.values()].every((rel) => rel.relid === '0')).toBe(true);
    const again = await connector.ensureSchema();
    expect(again.created).toEqual([]);
    expect(again.existing).toHaveLength(8 + 4);
    expect(fake.store.fields.size).toBe(9);
    expect(fake.store.tags.size).toBe(4);
  });

  it('writes fields and one risk tag in one automation-free import; only changes; the old tag is removed; a dry run sends nothing', async () => {
    for (let i = 0; i < 20; i++) fake.store.addContact(`w${i}@example.com`);
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const pulled = await pullAll(connector, 'all');
    const dry = await connector.write(pulled.map((contact) => ({ contact, verification: verification(contact.email, 'safe') })), { dryRun: true });
    expect(dry.written).toBe(20);
    expect(fake.imports.records.sizes).toEqual([]);
    const report = await connector.write(pulled.map((contact) => ({ contact, verification: verification(contact.email, 'safe') })), {});
    expect(report).toEqual({ written: 20, unchanged: [], failed: [] });
    expect(fake.imports.records.sizes).toEqual([20]);
    const again = await pullAll(connector, 'all');
    const same = await connector.write(again.map((contact) => ({ contact, verification: verification(contact.email, 'safe') })), {});
    expect(same).toMatchObject({ written: 0, failed: [] });
    expect(same.unchanged).toHaveLength(20);
    // One contact's risk changes: its fields and tag change, the ev-safe tag goes.
    const moved = await connector.write([{ contact: again[3]!, verification: verification(again[3]!.email, 'invalid') }], {});
    expect(moved.written).toBe(1);
    expect(fake.store.tagsOf(again[3]!.id)).toEqual(['ev-invalid']);
    expect(fake.store.valueOf(fake.store.contacts.get(again[3]!.id)!, 'EV_RISK')).toBe('invalid');
    expect(fake.store.valueOf(fake.store.contacts.get(again[3]!.id)!, 'EV_ROLE_ACCOUNT') ?? '').toBe(''); // not checked: empty, never false
    expect(fake.imports.records.sizes).toEqual([20, 1]);
    expect(fake.imports.records.automationTriggering).toBe(0);
    expect(fake.imports.records.listStatusChanges).toEqual([]);
  });

  it('a replayed write, its contacts refreshed by the host (current and tags, not payload), imports nothing again', async () => {
    for (let i = 0; i < 30; i++) fake.store.addContact(`replay${i}@example.com`);
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const pulled = await pullAll(connector, 'all');
    const results = pulled.map((contact) => ({ contact, verification: verification(contact.email, 'safe') }));
    expect((await connector.write(results, {})).written).toBe(30);
    // What the host's replay does (chunk-processor's rereadContacts): fresh current, tags and status; the payload stays.
    const now = new Map((await connector.pullByIds(pulled.map((c) => c.id))).map((c) => [c.id, c]));
    const replayed = results.map((r) => ({ ...r, contact: { ...r.contact, current: now.get(r.contact.id)!.current, tags: now.get(r.contact.id)!.tags } }));
    const again = await connector.write(replayed, {});
    expect(again).toMatchObject({ written: 0, failed: [] });
    expect(again.unchanged).toHaveLength(30);
    expect(fake.imports.records.sizes).toEqual([30]);
    expect([...fake.imports.records.writesPerContact.values()].every((n) => n === 1)).toBe(true);
  });

  it("reports each address the import refused, and a contact whose address moved (the import made a new one), and writes the rest", async () => {
    for (let i = 0; i < 10; i++) fake.store.addContact(`f${i}@example.com`);
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const pulled = await pullAll(connector, 'all');
    fake.imports.refusedAddresses.add('f2@example.com');
    fake.store.changeEmail(fake.store.contacts.get(pulled[5]!.id)!, 'elsewhere@example.com');
    const report = await connector.write(pulled.map((contact) => ({ contact, verification: verification(contact.email, 'risky') })), {});
    expect(report.written).toBe(8);
    expect(report.failed.map((f) => [f.email, f.retryable])).toEqual([
      ['f2@example.com', false],
      ['f5@example.com', false],
    ]);
    expect(report.failed[0]!.reason).toMatch(/did not import this contact \(import [0-9a-f-]{36}\)/);
    expect(report.failed[1]!.reason).toMatch(/no longer had this address/);
  });

  it("an import ending failed is transient (the host tries the batch once more); a status of false is waited out", async () => {
    fake.store.addContact('t@example.com');
    fake.imports.delayMs = 200;
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const [contact] = await pullAll(connector, 'all');
    fake.imports.endings.push('failed');
    await expect(connector.write([{ contact: contact!, verification: verification('t@example.com', 'safe') }], {})).rejects.toBeInstanceOf(TransientError);
    const report = await connector.write([{ contact: contact!, verification: verification('t@example.com', 'safe') }], {});
    expect(report.written).toBe(1);
  });

  /** What the host keeps for a chunk's write (core's WriteProgress), here in memory. */
  const progressIn = (held: Map<string, string>): WriteProgress => ({
    get: async (key) => held.get(key),
    set: async (key, value) => void held.set(key, value),
    delete: async (key) => void held.delete(key),
  });

  it('a write replayed while its import still waits resumes that import (the host kept its batch id): one import', async () => {
    for (let i = 0; i < 5; i++) fake.store.addContact(`resume${i}@example.com`);
    fake.imports.delayMs = 400;
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const pulled = await pullAll(connector, 'all');
    const results = pulled.map((contact) => ({ contact, verification: verification(contact.email, 'safe') }));
    const held = new Map<string, string>();
    const lost = connector.write(results, { progress: progressIn(held) });
    await until(() => held.size === 1, 5_000, 'the import batch id kept');
    // The replay reads the contacts again: the import is not applied yet, so it plans the very same import.
    const reread = new Map((await connector.pullByIds(pulled.map((c) => c.id))).map((c) => [c.id, c]));
    const again = pulled.map((c) => ({ contact: reread.get(c.id)!, verification: verification(c.email, 'safe') }));
    const replayed = await connector.write(again, { progress: progressIn(held) });
    expect(replayed).toEqual({ written: 5, unchanged: [], failed: [] });
    await lost;
    expect(fake.imports.records.sizes).toEqual([5]);
    expect([...fake.imports.records.writesPerContact.values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('an import that ended failed, or that ActiveCampaign no longer knows, is not resumed: the next attempt imports anew', async () => {
    fake.store.addContact('anew@example.com');
    const connector = connectorFor(fake);
    await connector.ensureSchema();
    const [contact] = await pullAll(connector, 'all');
    const write = (progress: WriteProgress) => connector.write([{ contact: contact!, verification: verification('anew@example.com', 'safe') }], { progress });
    const held = new Map<string, string>();
    fake.imports.endings.push('failed');
    await expect(write(progressIn(held))).rejects.toBeInstanceOf(TransientError);
    expect(held.size).toBe(0); // forgotten: the host's retry sends it again
    expect((await write(progressIn(held))).written).toBe(1);
    // A batch id ActiveCampaign does not know (long gone): forgotten, and the import sent anew.
    const forgotten: string[] = [];
    const stale: WriteProgress = { get: async () => 'no-such-batch', set: async () => undefined, delete: async (key) => void forgotten.push(key) };
    fake.store.addContact('anew2@example.com');
    const [, other] = await pullAll(connector, 'all');
    expect((await connector.write([{ contact: other!, verification: verification('anew2@example.com', 'safe') }], { progress: stale })).written).toBe(1);
    expect(forgotten).toHaveLength(1);
    expect(fake.imports.records.sizes).toEqual([1, 1, 1]);
  });

  it('a refused token is an AuthError; a 429 is a RateLimitError until its Retry-After', async () => {
    fake.store.addContact('a@example.com');
    const connector = connectorFor(fake);
    fake.failNext('/contacts', 429);
    const before = Date.now();
    const limited = await connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).resetAt).toBeGreaterThanOrEqual(before + 1000);
    fake.revokeToken();
    const refused = await connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthError);
    expect(String((refused as Error).message)).not.toContain(fake.token);
  });
});

describe('ActiveCampaign connector at the documented 5 requests a second', () => {
  /** What the host does with a RateLimitError: waits until its reset, then tries again. */
  async function asTheHostWould<T>(fn: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await fn();
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        await new Promise((r) => setTimeout(r, error.waitMs()));
      }
    }
  }

  it('keeps its calls within the account limit: an account that enforces it (almost) never answers 429', async () => {
    const fake = await new FakeActivecampaign({ requestsPerSecond: 5 }).start();
    try {
      for (let i = 0; i < 1200; i++) fake.store.addContact(`r${i}@example.com`);
      const connector = connectorFor(fake, { ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '5' });
      const started = Date.now();
      await asTheHostWould(() => connector.ensureSchema()); // as every run does first: 24 calls, paced too
      const all: Contact[] = [];
      let cursor: string | undefined;
      do {
        const page = await asTheHostWould(() => connector.pull(parseScope('all'), cursor));
        all.push(...page.contacts);
        cursor = page.next;
      } while (cursor);
      expect(all).toHaveLength(1200);
      const answered = fake.calls.filter((c) => c.status !== 429).length;
      // 24 set-up calls (2 look-ups, 9 fields, 9 relations, 4 tags) and 13 pages (two pulls of 5, then
      // 100 + 100 and an empty one); a set-up tried again after a 429 looks the fields and tags up again.
      expect(answered).toBeGreaterThanOrEqual(24 + 13);
      expect(answered).toBeLessThanOrEqual(24 + 13 + 2 * fake.rateLimited);
      // 37 calls at 5 per 1.1 s: seven full windows at least. A 429 can only come from a call that
      // reached the fake late (a loaded machine): a rare one, waited out as the host does.
      expect(Date.now() - started).toBeGreaterThanOrEqual(7 * 1100);
      expect(fake.rateLimited).toBeLessThanOrEqual(2);
    } finally {
      await fake.stop();
    }
  }, 60_000);
});
