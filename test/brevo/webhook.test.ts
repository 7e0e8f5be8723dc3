import type { RawWebhookRequest } from '@verify-hub/core';
import { brevoReceiver } from '@verify-hub/connector-brevo';

const TOKEN = 'tok_0123456789abcdefghijklmnop';
const CONNECTION = 'brevo-org-demo';
const LIST = 42;
const receiver = brevoReceiver(async (id) => (id === CONNECTION ? { token: TOKEN, apiKeyName: 'verify-hub', listId: LIST } : undefined));

const delivery = (body: unknown, bearer: string | null): RawWebhookRequest => ({
  method: 'POST',
  url: `https://hub.example/webhooks/brevo/${CONNECTION}/${TOKEN}`,
  headers: { 'content-type': 'application/json', ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }) },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});
const receive = (body: unknown, options: { bearer?: string | null; secret?: string; connection?: string } = {}) =>
  receiver.receive(delivery(body, options.bearer === undefined ? TOKEN : options.bearer), { connection: options.connection ?? CONNECTION, secret: options.secret ?? TOKEN }, 1_700_000_000_000);

/**
 * Brevo's marketing webhooks on the hub: no signature exists, so the connection's token is checked in
 * the URL and as Brevo's bearer auth (both, constant time); events caused by the hub's own writes are
 * ignored (our key's `api_key_name`, additions to the dedicated list, updates of EV_* attributes only).
 */
describe('Brevo webhook receiver', () => {
  const update = { event: 'contact_updated', email: 'ann@example.com', ts: 1_700_000_100, content: [{ FIRSTNAME: 'Ann' }], api_key_name: '' };

  it('turns a contact update and a list addition into contact events', async () => {
    expect(await receive(update)).toEqual([
      { platform: 'brevo', kind: 'profile_updated', accountId: CONNECTION, contactId: 'ann@example.com', email: 'ann@example.com', occurredAt: 1_700_000_100_000, dedupeKey: 'contact_updated:ann@example.com:1700000100' },
    ]);
    const added = await receive([{ event: 'list_addition', email: ['bob@example.com', 'cy@example.com'], list_id: [7], date: '2026-11-27T10:00:00Z' }]);
    expect(added.map((e) => [e.kind, e.contactId])).toEqual([['created', 'bob@example.com'], ['created', 'cy@example.com']]);
    expect((await receive({ event: 'contact_deleted', email: 'ann@example.com', ts: 1_700_000_200 }))[0]).toMatchObject({ kind: 'privacy_deletion', contactId: 'ann@example.com' });
    expect(await receive({ event: 'unsubscribed', email: 'ann@example.com' })).toEqual([]);
  });

  it('refuses a wrong or missing token, in the URL or the header, and an unknown connection, alike (401)', async () => {
    for (const options of [{ bearer: 'nope' }, { bearer: null }, { secret: 'nope' }, { connection: 'brevo-other' }]) {
      await expect(receive(update, options)).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/^authorization:/) });
    }
  });

  it('answers a body that is not a Brevo event with 400 naming the field', async () => {
    await expect(receive('not json')).rejects.toMatchObject({ status: 400, message: 'body: must be JSON' });
    await expect(receive({ email: 'ann@example.com' })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^body\.event/) });
  });

  it("ignores the hub's own writes coming back", async () => {
    expect(await receive({ ...update, api_key_name: 'verify-hub' })).toEqual([]);
    expect(await receive({ event: 'list_addition', email: 'ann@example.com', list_id: [LIST] })).toEqual([]);
    expect(await receive({ ...update, content: [{ EV_RISK: 'safe', ev_score: 90 }] })).toEqual([]);
    // Another integration's key, another list, or a change beside ours: verified.
    expect(await receive({ ...update, api_key_name: 'zapier' })).toHaveLength(1);
    expect(await receive({ event: 'list_addition', email: 'ann@example.com', list_id: [LIST, 7] })).toHaveLength(1);
    expect(await receive({ ...update, content: [{ EV_RISK: 'safe', EMAIL: 'new@example.com' }] })).toHaveLength(1);
  });
});
