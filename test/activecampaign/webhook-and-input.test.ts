import { parseAccountUrl, parseDelivery, resolveScope, webhookPath } from '@verify-hub/connector-activecampaign';
import { WebhookRejectedError, parseScope, type RawWebhookRequest } from '@verify-hub/core';
import { FakeActivecampaign } from '../fakes/activecampaign';

const SECRET = 'the-connection-secret-0123456789';
const NOW = Date.parse('2026-11-27T12:00:00Z');

/** A delivery as the fake account posts it (its real field names), for a contact of the fake. */
function delivery(type: 'subscribe' | 'update' | 'unsubscribe', source: 'public' | 'admin' | 'api' | 'system' = 'public'): RawWebhookRequest {
  const fake = new FakeActivecampaign();
  const contact = fake.store.addContact('new.person@example.com', ['3']);
  const body = fake.webhooks.form(type, contact, source).toString();
  return { method: 'POST', url: `https://hub.example${webhookPath('activecampaign-demo', SECRET)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(body) };
}

const parse = (request: RawWebhookRequest, presented = SECRET) => parseDelivery(request, presented, SECRET, 'activecampaign-demo', NOW);
const rejection = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookRejectedError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('not rejected');
};

describe('ActiveCampaign webhook deliveries', () => {
  it('a subscribe becomes a created event with the contact id and address; an update a profile change', () => {
    const [created] = parse(delivery('subscribe'));
    expect(created).toMatchObject({ platform: 'activecampaign', kind: 'created', accountId: 'demo', contactId: '1', email: 'new.person@example.com' });
    expect(created!.dedupeKey).toMatch(/^activecampaign:activecampaign-demo:subscribe:1:/);
    expect(Number.isNaN(created!.occurredAt)).toBe(false);
    expect(parse(delivery('update', 'admin'))[0]).toMatchObject({ kind: 'profile_updated', contactId: '1' });
  });

  it('a wrong or missing path secret is 401, compared whatever its length', () => {
    expect(rejection(() => parse(delivery('subscribe'), 'wrong'))).toMatchObject({ status: 401 });
    expect(rejection(() => parse(delivery('subscribe'), `${SECRET}x`))).toMatchObject({ status: 401 });
    expect(rejection(() => parseDelivery(delivery('subscribe'), SECRET, '', 'activecampaign-demo', NOW))).toMatchObject({ status: 401 });
  });

  it("the hub's own API changes and events it does not verify are acknowledged with no event", () => {
    expect(parse(delivery('update', 'api'))).toEqual([]);
    expect(parse(delivery('unsubscribe'))).toEqual([]);
  });

  it('bad input is refused naming the field, never a crash', () => {
    const base = delivery('subscribe');
    const withBody = (text: string, headers = base.headers) => ({ ...base, headers, body: Buffer.from(text) });
    expect(rejection(() => parse(withBody('contact%5Bid%5D=1')))).toMatchObject({ status: 400, message: 'type: missing' });
    expect(rejection(() => parse(withBody('type=subscribe&contact%5Bid%5D=abc')))).toMatchObject({ status: 400, message: expect.stringMatching(/^contact\[id\]/) });
    expect(rejection(() => parse(withBody('type=subscribe&contact%5Bid%5D=1&contact%5Bemail%5D=nope')))).toMatchObject({ status: 400, message: expect.stringMatching(/^contact\[email\]/) });
    expect(rejection(() => parse(withBody('type=subscribe&contact%5Bid%5D=1&date_time=soon')))).toMatchObject({ status: 400, message: expect.stringMatching(/^date_time/) });
    expect(rejection(() => parse(withBody('{"type":"subscribe"}', { 'content-type': 'application/json' })))).toMatchObject({ status: 400, message: expect.stringMatching(/^content-type/) });
    expect(rejection(() => parse(withBody('x'.repeat(70_000))))).toMatchObject({ status: 413 });
    expect(rejection(() => parse({ ...base, method: 'GET' }))).toMatchObject({ status: 400, message: expect.stringMatching(/^method/) });
  });
});

describe('ActiveCampaign input', () => {
  it('takes an account API URL in the forms Settings > Developer shows, and refuses any other host before a token is sent', () => {
    expect(parseAccountUrl('https://acme.api-us1.com')).toEqual({ origin: 'https://acme.api-us1.com', account: 'acme' });
    expect(parseAccountUrl(' https://Acme.api-us1.com/api/3/ ')).toEqual({ origin: 'https://acme.api-us1.com', account: 'acme' });
    expect(parseAccountUrl('https://acme.activehosted.com').account).toBe('acme');
    for (const bad of ['http://acme.api-us1.com', 'https://acme.api-us1.com.evil.example', 'https://evil.example/acme.api-us1.com', 'https://acme.api-us1.com:8443', 'https://u:p@acme.api-us1.com', 'acme', 'https://acme.api-us1.com/contacts']) {
      expect(() => parseAccountUrl(bad)).toThrow(/apiUrl/);
    }
  });

  it('reads its scopes, and refuses others naming the scope', () => {
    expect(resolveScope(parseScope('all'))).toEqual({});
    expect(resolveScope(parseScope('list:12'))).toEqual({ listId: '12' });
    expect(resolveScope(parseScope('changed-since:2026-01-31T00:00:00Z'))).toEqual({ since: { at: new Date('2026-01-31T00:00:00Z') } });
    expect(resolveScope(parseScope('changed-since:26h'))).toEqual({ since: { spanMs: 26 * 3_600_000 } });
    expect(resolveScope(parseScope('changed-since:4:90m'))).toEqual({ listId: '4', since: { spanMs: 90 * 60_000 } });
    for (const bad of ['list:abc', 'segment:1:2', 'changed-since:tomorrow', 'changed-since:']) expect(() => resolveScope(parseScope(bad))).toThrow(/scope/);
  });
});
