import { parseScope, type Contact, type Page } from '@verify-hub/core';
import { FakeMailchimp, md5Hash, type FakeMember, type MemberStatus } from '../fakes/mailchimp';
import { connector, EV_TAGS, pullAll, riskOf, sharedLocalLimiters, verification, hostWrite } from './helpers';

/**
 * The acceptance run: an audience of 30,000 members synced through the real SDK against the fake,
 * then synced again with nothing changed.
 */
const KEY = `${'1'.repeat(32)}-us1`;
const LIST = 'aud30k';
const TOTAL = 30_000;

function statusOf(i: number): MemberStatus {
  if (i % 20 === 3) return 'cleaned';
  if (i % 20 === 7) return 'unsubscribed';
  if (i % 50 === 11) return 'pending';
  return 'subscribed';
}

let fake: FakeMailchimp;
let before: Map<string, FakeMember>;
const deps = sharedLocalLimiters();

beforeAll(async () => {
  fake = await new FakeMailchimp({ latencyMs: 1 }).start();
  fake.addAccount(KEY);
  fake.addList(KEY, LIST);
  fake.addMembers(
    LIST,
    Array.from({ length: TOTAL }, (_, i) => ({
      email: `Member${i}@Example.com`,
      status: statusOf(i),
      // Some members carry the user's own tags, some a stale risk tag from an earlier tool run.
      tags: i % 10 === 0 ? ['vip'] : i % 10 === 1 ? ['ev-unknown', 'newsletter'] : [],
      lastChangedMs: Date.parse('2026-01-01T00:00:00Z') + i * 1000,
    })),
  );
  before = new Map(fake.members(LIST).map((m) => [m.id, structuredClone(m)]));
});

afterAll(() => fake.close());

async function syncAll(scope = 'all'): Promise<{ pages: Page[]; written: number; unchanged: number; failed: number }> {
  const c = connector(fake, { apiKey: KEY }, { listId: LIST }, deps);
  const pages = await pullAll(c, parseScope(scope));
  let written = 0;
  let unchanged = 0;
  let failed = 0;
  // Chunks are written concurrently, as several workers would.
  await Promise.all(
    pages.map(async (page) => {
      const report = await hostWrite(c, page.contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) })));
      written += report.written;
      unchanged += report.unchanged.length;
      failed += report.failed.length;
    }),
  );
  return { pages, written, unchanged, failed };
}

test('ensureSchema creates EVRISK (text), EVSCORE (number), EVDATE (text) once', async () => {
  const c = connector(fake, { apiKey: KEY }, { listId: LIST }, deps);
  const [first, racing] = await Promise.all([c.ensureSchema(), c.ensureSchema()]);
  expect([...first.created, ...racing.created].length + [...first.existing, ...racing.existing].length).toBe(6);
  expect(first.problems).toEqual([]);
  const again = await c.ensureSchema();
  expect(again.created).toEqual([]);
  expect(again.existing).toHaveLength(3);
  expect(fake.mergeFields(LIST).map((f) => [f.tag, f.type]).sort()).toEqual([['EVDATE', 'text'], ['EVRISK', 'text'], ['EVSCORE', 'number']]);
});

test('first sync of 30,000 members: one active risk tag each, merge fields set, cleaned and unsubscribed untouched', async () => {
  fake.resetStats();
  const { pages, written, failed } = await syncAll();
  const skipped = { cleaned: 0, unsubscribed: 0 };
  for (const p of pages) for (const [k, n] of Object.entries(p.skipped ?? {})) skipped[k as keyof typeof skipped] += n;
  const expectedSkipped = { cleaned: TOTAL / 20, unsubscribed: TOTAL / 20 };
  expect(skipped).toEqual(expectedSkipped);
  const pulled = pages.reduce((n, p) => n + p.contacts.length, 0);
  expect(pulled).toBe(TOTAL - TOTAL / 10);
  expect(pages).toHaveLength(TOTAL / 1000);
  expect(failed).toBe(0);
  expect(written).toBe(pulled);

  // Collected, then asserted once: 30,000 jest assertions would take longer than the sync.
  const wrong: string[] = [];
  for (const m of fake.members(LIST)) {
    const was = before.get(m.id)!;
    if (was.status === 'cleaned' || was.status === 'unsubscribed') {
      if (JSON.stringify(m) !== JSON.stringify(was)) wrong.push(`${m.email_address}: ${was.status} member was touched`);
      continue;
    }
    const risk = riskOf(m.email_address);
    const ours = m.tags.filter((t) => EV_TAGS.includes(t));
    if (ours.length !== 1 || ours[0] !== `ev-${risk}`) wrong.push(`${m.email_address}: risk tags ${ours.join(',')}`);
    const theirs = (tags: string[]) => tags.filter((t) => !EV_TAGS.includes(t)).join(',');
    if (theirs(m.tags) !== theirs(was.tags)) wrong.push(`${m.email_address}: own tags changed`);
    if (m.merge_fields.EVRISK !== risk || m.merge_fields.EVDATE !== '2026-11-20' || typeof m.merge_fields.EVSCORE !== 'number') wrong.push(`${m.email_address}: merge fields ${JSON.stringify(m.merge_fields)}`);
    if (m.status !== was.status) wrong.push(`${m.email_address}: status ${was.status} -> ${m.status}`);
  }
  expect(wrong).toEqual([]);
  expect(fake.statusChanges).toEqual([]);
  expect(fake.permanentDeletes).toEqual([]);
  expect(fake.tagCalls.length).toBeGreaterThan(0);
  expect(fake.tagCalls.every((t) => t.isSyncing)).toBe(true);
  // Reads: one page of 1,000 per call; the 10-connection limit was never hit.
  expect(fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/members'))).toHaveLength(TOTAL / 1000);
  expect(fake.rejected429).toBe(0);
  expect(fake.peakConcurrent.get(KEY)).toBeLessThanOrEqual(10);
});

test('a re-sync with nothing changed writes nothing', async () => {
  fake.resetStats();
  const { written, unchanged, failed } = await syncAll();
  expect(written).toBe(0);
  expect(failed).toBe(0);
  expect(unchanged).toBe(TOTAL - TOTAL / 10);
  expect(fake.stats(KEY)).toEqual({ read: TOTAL / 1000, write: 0, poll: 0 });
});

test('changed-since reads only members changed after the time, less the overlap', async () => {
  fake.resetStats();
  const c = connector(fake, { apiKey: KEY }, { listId: LIST, changedSinceOverlapMinutes: 5 }, deps);
  const cutoff = Date.now() + 3_600_000;
  fake.advanceClock(2 * 3_600_000);
  fake.addMembers(LIST, [{ email: 'late1@example.com' }, { email: 'late2@example.com', status: 'cleaned' }]);
  // Inside the 5-minute overlap: included; before it: not.
  fake.addMembers(LIST, [{ email: 'overlap@example.com', lastChangedMs: cutoff - 60_000 }, { email: 'older@example.com', lastChangedMs: cutoff - 3_600_000 }]);
  const pages = await pullAll(c, parseScope(`changed-since:${new Date(cutoff).toISOString()}`));
  expect(pages.flatMap((p) => p.contacts.map((x) => x.email)).sort()).toEqual(['late1@example.com', 'overlap@example.com']);
  expect(pages[0]!.skipped).toEqual({ cleaned: 1 });
  const explicit = await pullAll(c, parseScope(`changed-since:${LIST}:${new Date(cutoff).toISOString()}`));
  expect(explicit.flatMap((p) => p.contacts.map((x) => x.email)).sort()).toEqual(['late1@example.com', 'overlap@example.com']);
});

test('pullByIds reads members by subscriber hash and leaves out missing and unsubscribed ones', async () => {
  const c = connector(fake, { apiKey: KEY }, { listId: LIST }, deps);
  const found = await c.pullByIds([md5Hash('member2@example.com'), md5Hash('nobody@example.com'), md5Hash('member7@example.com'), `${LIST}:${md5Hash('member4@example.com')}`]);
  expect(found.map((x: Contact) => x.email)).toEqual(['Member2@Example.com', 'Member4@Example.com']);
  expect(found[0]!.tags).toEqual([`ev-${riskOf('member2@example.com')}`]);
  expect(found[0]!.current).toMatchObject({ EVRISK: riskOf('member2@example.com') });
  await expect(c.pullByIds(['not-a-hash'])).rejects.toThrow(/ids: "not-a-hash" is not a subscriber hash/);
});
