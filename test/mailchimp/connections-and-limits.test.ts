import mailchimpDefault from '@mailchimp/mailchimp_marketing';
import { createLocalLimiter, parseScope } from '@verify-hub/core';
import { MailchimpAuthError, MailchimpNotFoundError, MailchimpRequestError, MailchimpUnavailableError, subscriberHash } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp } from '../fakes/mailchimp';
import { connector, pullAll, riskOf, sharedLocalLimiters, verification, hostWrite } from './helpers';

const KEY_A = `${'a'.repeat(32)}-us1`;
const KEY_B = `${'b'.repeat(32)}-us2`;
const GLOBAL_KEY = `${'c'.repeat(32)}-us3`;

let fake: FakeMailchimp;

beforeAll(async () => {
  fake = await new FakeMailchimp({ latencyMs: 3 }).start();
  fake.addAccount(KEY_A, { dc: 'us1' });
  fake.addAccount(KEY_B, { dc: 'us2' });
  fake.addAccount(GLOBAL_KEY, { dc: 'us3' });
  for (const [key, list] of [[KEY_A, 'listA'], [KEY_B, 'listB']] as const) {
    fake.addList(key, list);
    for (const tag of ['EVRISK', 'EVDATE']) fake.addMergeField(list, { tag, name: tag, type: 'text' });
    fake.addMergeField(list, { tag: 'EVSCORE', name: 'EVSCORE', type: 'number' });
    fake.addMembers(list, Array.from({ length: 2500 }, (_, i) => ({ email: `${list}-${i}@example.com` })));
  }
});

afterAll(() => fake.close());

async function fullSync(c: ReturnType<typeof connector>) {
  const pages = await pullAll(c, parseScope('all'));
  const reports = await Promise.all(pages.map((p) => hostWrite(c, p.contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) })))));
  return reports.reduce((n, r) => n + r.written, 0);
}

test('two connections with different keys running at once never mix keys, whatever the SDK default says', async () => {
  fake.resetStats();
  const deps = sharedLocalLimiters();
  const a = connector(fake, { apiKey: KEY_A }, { listId: 'listA' }, deps);
  const b = connector(fake, { apiKey: KEY_B }, { listId: 'listB' }, deps);
  // Someone using the SDK's process-wide default instance must not leak into either connection.
  mailchimpDefault.setConfig({ apiKey: GLOBAL_KEY, server: 'us3' });
  const [writtenA, writtenB] = await Promise.all([fullSync(a), fullSync(b)]);
  expect(writtenA).toBe(2500);
  expect(writtenB).toBe(2500);
  const byKey = (key: string) => fake.requests.filter((r) => r.credential === key);
  expect(byKey(GLOBAL_KEY)).toEqual([]);
  expect(byKey(KEY_A).length).toBeGreaterThan(0);
  expect(byKey(KEY_B).length).toBeGreaterThan(0);
  expect(byKey(KEY_A).filter((r) => r.path.includes('listB'))).toEqual([]);
  expect(byKey(KEY_B).filter((r) => r.path.includes('listA'))).toEqual([]);
  // Batches are only visible to the key that created them: every poll succeeded with the right key.
  expect(fake.requests.filter((r) => r.status >= 400)).toEqual([]);
  // The limiter keys are per data center and key hash, never the key itself.
  expect(deps.specs.map((s) => s.key)).toEqual([expect.stringMatching(/^mailchimp:us1:[0-9a-f]{16}$/), expect.stringMatching(/^mailchimp:us2:[0-9a-f]{16}$/)]);
  expect(deps.specs.every((s) => s.maxConcurrent === 10 && !s.key.includes('aaaa') && !s.key.includes('bbbb'))).toBe(true);
});

test('two workers on one key stay within 10 simultaneous connections through the shared limiter', async () => {
  fake.resetStats();
  const deps = sharedLocalLimiters();
  const workers = [0, 1].map(() => connector(fake, { apiKey: KEY_A }, { listId: 'listA' }, deps));
  const ids = Array.from({ length: 120 }, (_, i) => subscriberHash(`listA-${i}@example.com`));
  fake.setLatency(30); // every request stays open a while, so the limiter is what keeps the count at 10
  let found;
  try {
    found = await Promise.all(workers.map((w) => w.pullByIds(ids)));
  } finally {
    fake.setLatency(3);
  }
  expect(found.map((f) => f.length)).toEqual([120, 120]);
  expect(fake.rejected429).toBe(0);
  expect(fake.peakConcurrent.get(KEY_A)).toBeLessThanOrEqual(10);
  expect(fake.peakConcurrent.get(KEY_A)).toBeGreaterThanOrEqual(5);
});

test('the fake refuses an 11th connection with 429, and the connector retries until it gets through', async () => {
  fake.resetStats();
  // A limiter that wrongly allows 30: the fake enforces Mailchimp's 10.
  const loose = { limiter: () => createLocalLimiter({ maxConcurrent: 30 }), saveCredentials: async () => undefined };
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA', retry: { attempts: 20, baseMs: 50, maxMs: 400 } }, loose);
  // 90 requests through 10 slots of 150 ms need about 1.4 s: the retry budget (about 4 s of backoff) covers
  // the unluckiest request, so the test checks the retry, not the dice.
  const ids = Array.from({ length: 90 }, (_, i) => subscriberHash(`listA-${i}@example.com`));
  fake.setLatency(150); // long enough that 30 requests sent together are all open at once
  try {
    expect(await c.pullByIds(ids)).toHaveLength(90);
  } finally {
    fake.setLatency(3);
  }
  expect(fake.rejected429).toBeGreaterThan(0);
});

test('5xx answers are retried with backoff; the problem+json detail is surfaced when they persist', async () => {
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA', retry: { attempts: 3, baseMs: 1, maxMs: 5 } });
  fake.failNext(2, 503, (_m, path) => path.endsWith('/members'));
  const page = await c.pull(parseScope('all'));
  expect(page.contacts).toHaveLength(1000);
  fake.failNext(3, 500, (_m, path) => path.endsWith('/members'));
  const error = await c.pull(parseScope('all')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MailchimpUnavailableError);
  expect((error as Error).message).toMatch(/\(500\) Internal Server Error: Injected failure\./);
});

test('a request that times out is retried; one that keeps timing out is MailchimpUnavailableError', async () => {
  // The timeout leaves a loaded machine time to answer a 1,000-member page (a CI run took over 100 ms),
  // and a hung request outlasts it by far.
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA', timeoutMs: 1_000, retry: { attempts: 2, baseMs: 1, maxMs: 5 } });
  fake.hangNext(1, 3_000, (_m, path) => path.endsWith('/members'));
  expect((await c.pull(parseScope('all'))).contacts).toHaveLength(1000);
  fake.hangNext(2, 3_000, (_m, path) => path.endsWith('/members'));
  const error = await c.pull(parseScope('all')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MailchimpUnavailableError);
  expect((error as Error).message).toBe('Mailchimp could not be reached: check the network or MAILCHIMP_API_BASE (list members: timed out)');
  // The hung requests answer (and are recorded) after the client gave up: not in a later test's counts.
  await fake.settled();
});

test('a wrong key is an auth error, not retried, and its message holds no key', async () => {
  const bad = `${'d'.repeat(32)}-us1`;
  fake.resetStats();
  const c = connector(fake, { apiKey: bad }, { listId: 'listA' });
  const error = await c.pull(parseScope('all')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MailchimpAuthError);
  expect((error as Error).message).toContain('API Key Invalid');
  expect((error as Error).message).not.toContain('dddd');
  expect(JSON.stringify(error)).not.toContain('dddd');
});

test('problem+json errors carry the detail: unknown list, over-large batch', async () => {
  const c = connector(fake, { apiKey: KEY_A });
  const missing = await c.pull(parseScope('audience:listB')).catch((e: unknown) => e); // another account's list
  expect(missing).toBeInstanceOf(MailchimpNotFoundError);
  expect((missing as MailchimpNotFoundError).detail).toBe('The requested resource could not be found.');
  const tooMany = Array.from({ length: 501 }, (_, i) => ({ email_address: `x${i}@example.com`, status_if_new: 'unsubscribed' as const, merge_fields: {} }));
  const over = await c.api.batchSubscribe('listA', tooMany).catch((e: unknown) => e);
  expect(over).toBeInstanceOf(MailchimpRequestError);
  expect((over as MailchimpRequestError).detail).toMatch(/up to 500 members/);
});

test('per-member errors are reported, not dropped, and a member that vanished is reported (re-added only as unsubscribed)', async () => {
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA' });
  const [page] = await pullAll(c, parseScope('all'));
  const contacts = page!.contacts.slice(0, 40);
  const results = contacts.map((contact) => ({ contact, verification: verification(contact.email, 'safe', '2026-11-21T08:00:00Z') }));
  results.push({ contact: { id: subscriberHash('bad@@example'), email: 'bad@@example', status: 'subscribed' }, verification: verification('bad@@example', 'invalid') });
  results.push({ contact: { id: subscriberHash('gone@example.com'), email: 'gone@example.com', status: 'subscribed' }, verification: verification('gone@example.com', 'safe') });
  // A tag operation for a hash that is not in the audience fails inside the batch.
  results.push({ contact: { id: subscriberHash('nobody@example.com'), email: 'listA-2499@example.com', status: 'subscribed', tags: [] }, verification: verification('listA-2499@example.com', 'risky') });
  const report = await c.write(results, {});
  expect(report.batchIds).toHaveLength(1);
  expect(report.failed.map((f) => [f.email, f.retryable])).toEqual([
    ['bad@@example', false],
    ['gone@example.com', false],
    ['listA-2499@example.com', false],
  ]);
  expect(report.failed[0]!.reason).toMatch(/looks fake or invalid/);
  expect(report.failed[1]!.reason).toMatch(/no longer in the audience/);
  expect(report.failed[2]!.reason).toMatch(/update member tags failed \(404\) Resource Not Found: The requested resource could not be found\./);
  expect(report.written).toBe(40);
  expect(fake.member('listA', 'gone@example.com')!.status).toBe('unsubscribed');
});

test('small writes use direct calls: one batch subscribe and one tag call per member', async () => {
  fake.resetStats();
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA' });
  const contacts = await c.pullByIds([subscriberHash('listA-2400@example.com'), subscriberHash('listA-2402@example.com')]);
  fake.resetStats();
  const report = await c.write(contacts.map((contact) => ({ contact, verification: verification(contact.email, 'risky', '2026-11-22T00:00:00Z') })), {});
  expect(report).toMatchObject({ written: 2, failed: [], batchIds: [] });
  expect(fake.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{32}/, 'HASH')}`).sort()).toEqual(['POST /lists/listA', 'POST /lists/listA/members/HASH/tags', 'POST /lists/listA/members/HASH/tags']);
  expect(fake.member('listA', 'listA-2400@example.com')!.tags).toEqual(['ev-risky']);
});

test('contacts not read from Mailchimp (no status, as a webhook fallback) are read first: gone or unsubscribed members are never written', async () => {
  const c = connector(fake, { apiKey: KEY_A }, { listId: 'listA' });
  fake.addMembers('listA', [{ email: 'left@example.com', status: 'unsubscribed' }, { email: 'fresh@example.com' }]);
  const before = JSON.stringify(fake.member('listA', 'left@example.com'));
  const contacts = ['left@example.com', 'never-here@example.com', 'fresh@example.com'].map((email) => ({ id: subscriberHash(email), email }));
  const report = await c.write(contacts.map((contact) => ({ contact, verification: verification(contact.email, 'safe') })), {});
  expect(report.written).toBe(1);
  expect(report.failed.map((f) => [f.email, f.reason])).toEqual([
    ['left@example.com', 'member is unsubscribed: never touched'],
    ['never-here@example.com', 'member is not in the audience: nothing written'],
  ]);
  expect(JSON.stringify(fake.member('listA', 'left@example.com'))).toBe(before);
  expect(fake.member('listA', 'never-here@example.com')).toBeUndefined();
  expect(fake.member('listA', 'fresh@example.com')!.tags).toEqual(['ev-safe']);
});
