import { parseScope, type ContactResult } from '@verify-hub/core';
import { subscriberHash } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp } from '../fakes/mailchimp';
import { AUDIENCE_OPERATIONS } from '../fakes/mailchimp/published-operations';
import { connector, hostWrite, pullAll, riskOf, verification } from './helpers';

/**
 * Every audience call of the Mailchimp connector, through FakeMailchimp, which refuses a request (direct
 * or a `/batches` operation) that breaks the Marketing API's published operation
 * (test/fakes/mailchimp/published-operations.ts): setup, each scope, reads by hash, small and large
 * write-backs with their actions, the audience list.
 */
const KEY = `${'f'.repeat(32)}-us6`;

test('every audience call conforms to its published operation, and each one the fake checks was called', async () => {
  const fake = await new FakeMailchimp({ latencyMs: 1, batchStartDelayMs: 1, batchFinishDelayMs: 5 }).start();
  try {
    fake.addAccount(KEY, { dc: 'us6' });
    fake.addList(KEY, 'pub');
    fake.addMembers('pub', Array.from({ length: 620 }, (_, i) => ({ email: `m${i}@example.com` })));
    fake.addSegment('pub', 'seg', ['m0@example.com', 'm1@example.com']);
    const c = connector(fake, { apiKey: KEY }, { listId: 'pub', batchPolling: { initialMs: 5, maxMs: 20, timeoutMs: 30_000 } });
    await c.api.audiences();
    await c.ensureSchema();
    await c.describeScope(parseScope('all'));
    await pullAll(c, parseScope('segment:pub:seg'));
    await c.pullByIds([subscriberHash('m3@example.com')]);
    const all = (await pullAll(c, parseScope('all'))).flatMap((p) => p.contacts);
    const results = (contacts: typeof all): ContactResult[] => contacts.map((contact) => ({ contact, verification: verification(contact.email, riskOf(contact.email)) }));
    // A few members: direct calls; the rest: `/batches`; both with the opt-in actions (unsubscribe, archive).
    await hostWrite(c, results(all.slice(0, 4)), { actions: { invalid: 'unsubscribe' } });
    await hostWrite(c, results(all.slice(4)), { actions: { invalid: 'archive' } });
    expect(fake.unpublished).toEqual([]);
    expect([...fake.publishedChecked].sort()).toEqual(AUDIENCE_OPERATIONS.map((o) => o.name).sort());
  } finally {
    await fake.close();
  }
});
