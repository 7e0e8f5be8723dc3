import { EngineClient, type Verification } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';
import { FakeMailchimp } from '../fakes/mailchimp';
import { connector, pullAll, hostWrite } from './helpers';

/**
 * Issue 15's acceptance for Mailchimp: an engine answering exactly as ENGINE-API.md §2.1 publishes
 * (field set B, `is_disposable`), read by core's EngineClient, written back through the real SDK.
 */
const KEY = `${'7'.repeat(32)}-us1`;
const LIST = 'published';

let fake: FakeMailchimp;
const engine = new FakeEngine();

beforeAll(async () => {
  fake = await new FakeMailchimp().start();
  fake.addAccount(KEY);
  fake.addList(KEY, LIST);
  fake.addMembers(LIST, [
    { email: 'fine@published.test' },
    { email: 'disposable.x@published.test', tags: ['vip'] },
    { email: 'invalid.y@published.test' },
  ]);
  await engine.start();
});

afterAll(async () => {
  await fake.close();
  await engine.stop();
});

async function syncWith(fieldSet: 'B' | 'A' | 'AB'): Promise<Map<string, Verification>> {
  engine.options.fieldSet = fieldSet;
  const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 });
  const c = connector(fake, { apiKey: KEY }, { listId: LIST });
  await c.ensureSchema();
  const results = new Map<string, Verification>();
  for (const page of await pullAll(c, { kind: 'all' })) {
    const written = await Promise.all(page.contacts.map(async (contact) => ({ contact, verification: await client.verify(contact.email) })));
    for (const r of written) results.set(r.contact.email, r.verification);
    const report = await hostWrite(c, written);
    expect(report.failed).toEqual([]);
  }
  return results;
}

test("the engine's risks, not unknown, and is_disposable true becomes the ev-disposable tag beside the risk tag", async () => {
  const results = await syncWith('B');
  expect([...results.values()].map((v) => v.risk)).toEqual(['safe', 'risky', 'invalid']);
  expect(fake.member(LIST, 'disposable.x@published.test')!.tags.sort()).toEqual(['ev-disposable', 'ev-risky', 'vip']);
  expect(fake.member(LIST, 'disposable.x@published.test')!.merge_fields).toMatchObject({ EVRISK: 'risky', EVSCORE: 55 });
  expect(fake.member(LIST, 'fine@published.test')!.tags).toEqual(['ev-safe']);
  expect(fake.member(LIST, 'invalid.y@published.test')!.tags).toEqual(['ev-invalid']);
});

test('field set A only (disposable, role_based, free_email) gives the same write-back', async () => {
  await syncWith('A');
  expect(fake.member(LIST, 'disposable.x@published.test')!.tags.sort()).toEqual(['ev-disposable', 'ev-risky', 'vip']);
  expect(fake.member(LIST, 'fine@published.test')!.tags).toEqual(['ev-safe']);
});
