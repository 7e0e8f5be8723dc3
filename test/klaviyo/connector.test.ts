import { DEFAULT_VERIFICATION_FIELD_NAMES as EV, RateLimitError, AuthError, createLocalLimiter, type ContactResult, type LimiterFactory } from '@verify-hub/core';
import { NOT_CHECKED, klaviyoProperties } from '@verify-hub/connector-klaviyo';
import { riskyCatchAll } from '../fakes/verification/risky-catch-all';
import type { FakeKlaviyo } from '../fakes/klaviyo';
import { connectorFor, keyRecord, startFake } from './helpers';

/**
 * The Klaviyo connector against the fake, in process: paging at 100 a call, changed-since on all
 * profiles and (filtered as read) on list members, write-back through bulk import jobs with per-profile
 * errors read, only changed values, Retry-After as a RateLimitError, the suppression clean action on
 * the user's choice only, and never a consent or list change.
 */
describe('Klaviyo connector', () => {
  let fake: FakeKlaviyo;
  beforeEach(async () => {
    fake = await startFake({ pollsToComplete: 2 });
  });
  afterEach(async () => {
    await fake.stop();
  });

  const pullAll = async (connector: ReturnType<typeof connectorFor>['connector'], scope: { kind: string; value?: string }) => {
    const contacts = [];
    const skipped: Record<string, number> = {};
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await connector.pull(scope, cursor);
      contacts.push(...page.contacts);
      for (const [k, n] of Object.entries(page.skipped ?? {})) skipped[k] = (skipped[k] ?? 0) + n;
      cursor = page.next;
      pages++;
    } while (cursor);
    return { contacts, skipped, pages };
  };

  it('pulls every profile 100 a call, ten calls a chunk, with the hub properties it holds', async () => {
    for (let i = 0; i < 2345; i++) fake.addProfile(`p${i}@example.com`, i === 3 ? { properties: { [EV.risk]: 'safe', other: 'x' } } : {});
    const { connector } = connectorFor(fake);
    const { contacts, pages } = await pullAll(connector, { kind: 'all' });
    expect(contacts).toHaveLength(2345);
    expect(new Set(contacts.map((c) => c.id)).size).toBe(2345);
    expect(pages).toBe(3);
    expect(fake.callsOf('get_profiles')).toHaveLength(24);
    expect(contacts[3]!.current).toEqual({ [EV.risk]: 'safe' });
  });

  it('changed-since asks Klaviyo for profiles updated after the time; a list, which cannot be asked, is filtered as read', async () => {
    const list = fake.addList('Newsletter');
    const old = Array.from({ length: 150 }, (_, i) => fake.addProfile(`old${i}@example.com`, { lists: [list] }));
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    fake.store.setProperties(old[7]!, { first_purchase: 'yes' });
    fake.addProfile('new@example.com', { lists: [list] });
    fake.addProfile('elsewhere@example.com');
    const { connector } = connectorFor(fake);
    const all = await pullAll(connector, { kind: 'changed-since', value: since });
    expect(all.contacts.map((c) => c.email).sort()).toEqual(['elsewhere@example.com', 'new@example.com', 'old7@example.com']);
    const members = await pullAll(connector, { kind: 'list', value: `${list}:since:${since}` });
    expect(members.contacts.map((c) => c.email).sort()).toEqual(['new@example.com', 'old7@example.com']);
    expect(members.skipped).toEqual({ unchanged_since: 149 });
    // The list endpoint was never sent an updated filter (Klaviyo refuses one there).
    expect(fake.callsOf('get_profiles_for_list').every((c) => c.status === 200)).toBe(true);
  });

  it('writes changed properties through one bulk import job, polls it, reads per-profile import errors, and writes nothing the second time', async () => {
    const profiles = Array.from({ length: 300 }, (_, i) => fake.addProfile(`w${i}@example.com`));
    fake.refuseEmails.set('w5@example.com', 'Invalid value for property ev_reason');
    const { connector } = connectorFor(fake);
    const page = await connector.pull({ kind: 'all' });
    const results: ContactResult[] = page.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) }));
    const report = await connector.write(results, {});
    expect(fake.callsOf('bulk_import_profiles')).toHaveLength(1);
    expect(fake.callsOf('get_bulk_import_profiles_job').length).toBeGreaterThanOrEqual(2);
    expect(report.written).toBe(299);
    expect(report.failed).toEqual([{ contactId: profiles[5]!.id, email: 'w5@example.com', reason: expect.stringContaining('Invalid value for property ev_reason'), retryable: false }]);
    const stored = fake.store.profiles.get(profiles[0]!.id)!.properties;
    expect(stored).toEqual(klaviyoProperties(riskyCatchAll()));
    // "not checked" is its own value, never false (null would clear the property in Klaviyo).
    expect(stored[EV.catchAll]).toBe(NOT_CHECKED);
    expect(stored[EV.roleAccount]).toBe(true);
    expect(stored[EV.freeProvider]).toBe(false);

    fake.refuseEmails.clear();
    const again = await connector.pull({ kind: 'all' });
    const second = await connector.write(again.contacts.map((contact) => ({ contact, verification: riskyCatchAll({ email: contact.email, normalized: contact.email }) })), {});
    expect(second.unchanged).toHaveLength(299);
    expect(second.written).toBe(1); // the refused one, tried again, now taken
    expect(second.failed).toEqual([]);
    expect(fake.consentAttempts).toEqual([]);
    expect(fake.listRelationshipAttempts).toEqual([]);
  });

  it('a 429 becomes a RateLimitError at Retry-After; nothing is retried by the connector', async () => {
    fake.addProfile('a@example.com');
    fake.failNext('get_profiles', 429, 1, 7);
    const { connector } = connectorFor(fake);
    const before = Date.now();
    const error = await connector.pull({ kind: 'all' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).resetAt).toBeGreaterThanOrEqual(before + 7000);
    expect(fake.callsOf('get_profiles')).toHaveLength(1);
  });

  it("paces calls to Klaviyo's own burst limit: of 12 jobs made at once, the 11th is sent a second after the first", async () => {
    const profiles = Array.from({ length: 12 }, (_, i) => fake.addProfile(`b${i}@example.com`));
    // When each job creation leaves: the limiter lets it go. Its arrival at the fake, in this same
    // process, is not its departure: a loaded machine delayed the first arrivals and brought them 852 ms
    // apart, although they left more than a second apart.
    const departures: number[] = [];
    const limiter: LimiterFactory = (spec) => {
      const inner = createLocalLimiter(spec);
      if (!spec.key.endsWith(':importJobCreate:1s')) return inner;
      return { schedule: (fn) => inner.schedule(() => (departures.push(Date.now()), fn())) };
    };
    const { connector } = connectorFor(fake, undefined, {}, limiter);
    // As the host does: a 429 that still comes (arrival is not departure, under load) is waited out. A
    // fresh clone with a core kept busy had the retried write's job poll refused too: up to 5 tries.
    const write = async (p: (typeof profiles)[number]) => {
      const batch = [{ contact: { id: p.id, email: p.email, current: {} }, verification: riskyCatchAll({ email: p.email }) }];
      for (let attempt = 1; ; attempt++) {
        try {
          return await connector.write(batch, {});
        } catch (error) {
          if (!(error instanceof RateLimitError) || attempt === 5) throw error;
          await new Promise((r) => setTimeout(r, error.waitMs()));
        }
      }
    };
    const reports = await Promise.all(profiles.map(write));
    expect(reports.reduce((n, r) => n + r.written, 0)).toBe(12);
    expect(fake.callsOf('bulk_import_profiles').length).toBeGreaterThanOrEqual(12);
    departures.sort((a, b) => a - b);
    expect(departures.length).toBeGreaterThanOrEqual(12);
    // Klaviyo's window is a second; the limiter's is 100 ms longer (rate-limits.ts).
    expect(departures[10]! - departures[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('a revoked key is an AuthError, a missing scope one too, each saying what to do', async () => {
    const { connector } = connectorFor(fake);
    fake.revokeKey();
    await expect(connector.pull({ kind: 'all' })).rejects.toThrow(AuthError);
    const readOnly = fake.createKey(['profiles:read', 'accounts:read']);
    const limited = connectorFor(fake, keyRecord(fake, readOnly)).connector;
    const p = fake.addProfile('x@example.com');
    await expect(limited.write([{ contact: { id: p.id, email: p.email, current: {} }, verification: riskyCatchAll() }], {})).rejects.toThrow(/lacks a scope/);
  });

  it('suppresses invalid addresses only when the user chose the clean action, in jobs of 100, never changing a subscription', async () => {
    const profiles = Array.from({ length: 130 }, (_, i) => fake.addProfile(`s${i}@example.com`));
    const { connector } = connectorFor(fake);
    const results = profiles.map((p) => ({ contact: { id: p.id, email: p.email, current: {} }, verification: riskyCatchAll({ email: p.email, risk: 'invalid', reason: 'mailbox_not_found' }) }));
    await connector.write(results.slice(0, 10), {});
    expect(fake.store.suppressJobs.size).toBe(0);
    const report = await connector.write(results, { actions: { invalid: 'unsubscribe' } });
    expect(fake.callsOf('bulk_suppress_profiles')).toHaveLength(2);
    expect(report.actions?.filter((a) => a.applied)).toHaveLength(130);
    expect(profiles.every((p) => fake.store.profiles.get(p.id)!.suppressed)).toBe(true);
    expect(fake.consentAttempts).toEqual([]);
  });
});
