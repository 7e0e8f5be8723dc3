import { WebhookRejectedError, type RawWebhookRequest } from '@verify-hub/core';
import { FLOW_SECRET_HEADER, flowWebhookBody, parseFlowDelivery } from '@verify-hub/connector-klaviyo';

const SECRET = 'flow-secret-0123456789abcdef';
const secretFor = async (id: string) => (id === 'klaviyo-AbC123' ? SECRET : undefined);
const delivery = (body: string, headers: Record<string, string> = { [FLOW_SECRET_HEADER]: SECRET }): RawWebhookRequest => ({ method: 'POST', url: 'https://hub.example/webhooks/klaviyo', headers, body: Buffer.from(body) });
const filled = (id = 'klaviyo-AbC123', profile = '01H0000000000000000000001', email = 'Ann@Example.com') =>
  flowWebhookBody(id).replace('{{ person.KlaviyoID }}', profile).replace('{{ person.email }}', email);

/** The flow webhook receiver: the connection's secret header in constant time, the body the setup prints, each refusal naming what is wrong. */
describe('Klaviyo flow webhook', () => {
  it('turns a delivery into a created event for the profile, deduplicated per profile and address', async () => {
    const events = await parseFlowDelivery(delivery(filled()), secretFor, 1_700_000_000_000);
    expect(events).toEqual([{ platform: 'klaviyo', kind: 'created', accountId: 'AbC123', contactId: '01H0000000000000000000001', email: 'Ann@Example.com', occurredAt: 1_700_000_000_000, dedupeKey: 'flow:01H0000000000000000000001:ann@example.com' }]);
  });

  it.each([
    ['a missing secret header', delivery(filled(), {}), 401, /x-verify-hub-secret/],
    ['a wrong secret', delivery(filled(), { [FLOW_SECRET_HEADER]: `${SECRET}x` }), 401, /x-verify-hub-secret/],
    ['an unknown connection (the same answer as a wrong secret)', delivery(filled('klaviyo-Other1')), 401, /x-verify-hub-secret/],
    ['a body that is not JSON', delivery('connection=klaviyo-AbC123'), 400, /body: must be JSON/],
    ['an unfilled template', delivery(flowWebhookBody('klaviyo-AbC123')), 400, /body\.profile_id/],
    ['a body naming no connection', delivery('{"profile_id":"01H1"}'), 400, /body\.connection/],
    ['a body over 16 KB', delivery(filled().replace('"email"', `"pad": "${'x'.repeat(17_000)}", "email"`)), 413, /larger than/],
  ])('refuses %s', async (_what, request, status, words) => {
    const error = await parseFlowDelivery(request, secretFor, Date.now()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookRejectedError);
    expect(error).toMatchObject({ status });
    expect((error as Error).message).toMatch(words);
    expect((error as Error).message).not.toContain(SECRET);
  });
});
