import { parseScope, type ContactResult } from '@verify-hub/core';
import type { MailchimpConnector } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp, type MemberStatus } from '../fakes/mailchimp';
import { connector, hostWrite, pullAll, riskOf, verification } from './helpers';

const KEY = `${'e'.repeat(32)}-us5`;
let fake: FakeMailchimp;
let listSeq = 0;

beforeAll(async () => {
  fake = await new FakeMailchimp({ latencyMs: 1 }).start();
  fake.addAccount(KEY, { dc: 'us5' });
});
afterAll(() => fake.close());

/** A fresh audience: members i = 0..n-1 with risk riskOf(i) (0 safe, 1 risky, 2 invalid, 3 unknown). */
function newAudience(n: number, statusOf: (i: number) => MemberStatus = () => 'subscribed'): string {
  const list = `act${++listSeq}`;
  fake.addList(KEY, list);
  for (const tag of ['EVRISK', 'EVDATE']) fake.addMergeField(list, { tag, name: tag, type: 'text' });
  fake.addMergeField(list, { tag: 'EVSCORE', name: 'EVSCORE', type: 'number' });
  fake.addMembers(list, Array.from({ length: n }, (_, i) => ({ email: `m${i}@example.com`, status: statusOf(i) })));
  return list;
}

async function results(c: MailchimpConnector, scope: string): Promise<ContactResult[]> {
  const pages = await pullAll(c, parseScope(scope));
  return pages.flatMap((p) => p.contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) })));
}

test.each([
  ['unsubscribe', 'unsubscribed'],
  ['archive', 'archived'],
] as const)('dry run changes nothing and reports exactly who would %s; the real run then does just that', async (action, finalStatus) => {
  const list = newAudience(600, (i) => (i % 40 === 6 ? 'cleaned' : i % 40 === 10 ? 'unsubscribed' : 'subscribed'));
  const c = connector(fake, { apiKey: KEY }, { listId: list });
  const snapshot = JSON.stringify(fake.members(list));
  fake.resetStats();
  const input = await results(c, 'all');
  const dry = await c.write(input, { dryRun: true, actions: { invalid: action } });
  expect(fake.stats(KEY).write).toBe(0);
  expect(JSON.stringify(fake.members(list))).toBe(snapshot);

  const invalid = input.filter((r) => r.verification.risk === 'invalid').map((r) => r.contact.email).sort();
  expect(invalid.length).toBeGreaterThan(100);
  expect(dry.actions!.map((a) => a.email).sort()).toEqual(invalid);
  expect(dry.actions!.every((a) => a.action === action && !a.applied)).toBe(true);
  expect(dry.changes).toHaveLength(input.length); // every member would get fields and a tag
  expect(dry.written).toBe(0);

  const real = await hostWrite(c, input, { actions: { invalid: action } });
  expect(real.failed).toEqual([]);
  expect(real.actions!.filter((a) => a.applied).map((a) => a.email).sort()).toEqual(invalid);
  const changed = fake.statusChanges.filter((s) => s.listId === list);
  expect(changed.map((s) => s.email).sort()).toEqual(invalid);
  expect(changed.every((s) => s.from === 'subscribed' && s.to === finalStatus)).toBe(true);
  expect(fake.permanentDeletes).toEqual([]);
  // Only invalid results changed status: never an unknown one, never a cleaned or unsubscribed member.
  expect(changed.some((s) => riskOf(s.email) === 'unknown')).toBe(false);
});

test('small action writes use direct calls (DELETE archives, a member can be restored), never a permanent delete', async () => {
  const list = newAudience(8);
  const c = connector(fake, { apiKey: KEY }, { listId: list });
  const input = await results(c, 'all');
  const report = await c.write(input, { actions: { invalid: 'archive' } });
  expect(report.batchIds).toEqual([]);
  expect(report.actions).toEqual([
    { contactId: expect.any(String), email: 'm2@example.com', action: 'archive', applied: true },
    { contactId: expect.any(String), email: 'm6@example.com', action: 'archive', applied: true },
  ]);
  expect(fake.member(list, 'm2@example.com')!.status).toBe('archived');
  expect(fake.member(list, 'm3@example.com')!.status).toBe('subscribed'); // unknown: untouched
  expect(fake.permanentDeletes).toEqual([]);
  // Archived members are skipped (and counted) from then on.
  const pages = await pullAll(c, parseScope('all'));
  expect(pages[0]!.skipped).toEqual({ archived: 2 });
});

test('without actions no status changes, and a member given as unsubscribed is refused, not touched', async () => {
  const list = newAudience(30);
  const c = connector(fake, { apiKey: KEY }, { listId: list });
  const input = await results(c, 'all');
  input[0] = { ...input[0]!, contact: { ...input[0]!.contact, status: 'unsubscribed' } };
  const report = await c.write(input, {});
  expect(report.failed).toEqual([{ contactId: input[0]!.contact.id, email: 'm0@example.com', reason: 'member is unsubscribed: never touched', retryable: false }]);
  expect(fake.statusChanges.filter((s) => s.listId === list)).toEqual([]);
  expect(fake.member(list, 'm0@example.com')!.merge_fields.EVRISK).toBeUndefined();
});

test('segment scope: counts cleaned and unsubscribed as skipped, and a re-sync writes nothing though segments carry no tags', async () => {
  const list = newAudience(1500, (i) => (i % 10 === 1 ? 'cleaned' : i % 10 === 2 ? 'unsubscribed' : 'subscribed'));
  fake.addSegment(list, 'seg1', Array.from({ length: 1200 }, (_, i) => `m${i}@example.com`));
  const c = connector(fake, { apiKey: KEY }, { listId: list });
  const first = await pullAll(c, parseScope(`segment:${list}:seg1`));
  expect(first).toHaveLength(2);
  expect(first.map((p) => p.skipped)).toEqual([{ cleaned: 100, unsubscribed: 100 }, { cleaned: 20, unsubscribed: 20 }]);
  expect(first[0]!.contacts[0]!.tags).toBeUndefined();
  const input = first.flatMap((p) => p.contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) })));
  const report = await hostWrite(c, input);
  expect(report.written).toBe(960);
  expect(fake.member(list, 'm0@example.com')!.tags).toEqual(['ev-safe']);

  fake.resetStats();
  const again = (await pullAll(c, parseScope(`segment:${list}:seg1`))).flatMap((p) => p.contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) })));
  const second = await hostWrite(c, again);
  expect(second).toMatchObject({ written: 0, unchanged: again.map((r) => r.contact.id), failed: [] });
  expect(fake.stats(KEY).write).toBe(0);
});

test('scope errors name the scope', async () => {
  const c = connector(fake, { apiKey: KEY });
  await expect(c.pull(parseScope('all'))).rejects.toThrow(/scope: all needs the connection's settings.listId/);
  await expect(c.pull(parseScope('segment:onlylist'))).rejects.toThrow(/segment:<list_id>:<segment_id>/);
  await expect(c.pull(parseScope('changed-since:yesterday'))).rejects.toThrow(/scope: .*settings.listId|ISO 8601/);
  await expect(c.pull(parseScope('contacts:all'))).rejects.toThrow(/not a Mailchimp scope/);
  await expect(c.pull(parseScope('audience:x'), 'abc')).rejects.toThrow(/cursor: must be the offset/);
});
