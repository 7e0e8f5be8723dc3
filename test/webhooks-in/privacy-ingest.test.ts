import { createHmac, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { everythingMatching } from '../setup/redis-contents';
import { startServeStack, until, type ServeStack } from './serve-stack';

/**
 * `verify-hub serve` receiving HubSpot webhooks: after a contact's privacy deletion, nothing in Redis
 * holds its address or id: not the pipeline's keys, and not the webhook ingest queue, whose completed
 * deliveries (the last 1,000 are kept) held the contact's email change.
 */
const SECRET = `secret-${randomUUID()}`;
const PORTAL = '909';
const TOKEN = `token-${randomUUID()}`;
const hubspot = new FakeHubSpot();

async function deliver(hubUrl: string, events: object[]): Promise<void> {
  const url = `${hubUrl}/webhooks/hubspot`;
  const body = JSON.stringify(events);
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': signature } });
  expect(res.status).toBe(200);
}

const event = (eventId: number, objectId: string, subscriptionType: string, extra: object = {}) =>
  ({ eventId, subscriptionId: 1, portalId: Number(PORTAL), appId: 5, occurredAt: Date.now(), subscriptionType, attemptNumber: 0, objectId: Number(objectId), ...extra });

describe('privacy deletion through verify-hub serve', () => {
  let stack: ServeStack;
  beforeAll(async () => {
    await hubspot.start();
    hubspot.addPortal({ portalId: PORTAL, token: TOKEN });
    stack = await startServeStack('privacy-ingest', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_SECRET: SECRET, HUBSPOT_API_BASE: hubspot.url });
    await stack.hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, TOKEN));
  });
  afterAll(async () => {
    await stack.close();
    await hubspot.stop();
  });

  it('leaves no ingest delivery, completed job or key holding the address', async () => {
    const address = `gone-${randomUUID().slice(0, 8)}@example.com`;
    const [gone, kept] = hubspot.addContacts(PORTAL, [{ email: address }, { email: `stays-${randomUUID().slice(0, 8)}@example.com` }]);
    await deliver(stack.hub.url, [event(1, gone!, 'contact.propertyChange', { propertyName: 'email', propertyValue: address }), event(2, kept!, 'contact.creation')]);
    const ingest = new Queue(`${stack.prefix}-webhook-ingest`, { connection: stack.hub.pipeline.redis });
    try {
      await until(() => ingest.getJobCounts('completed'), (counts) => counts.completed === 1);
      const scan = () => everythingMatching(stack.hub.pipeline.redis, `*${stack.prefix}*`);
      const holds = (texts: string[]) => texts.filter((text) => text.toLowerCase().includes(address) || text.includes(`"contactId":"${gone}"`));
      // The completed delivery kept the address (and the queued event job holds it too).
      expect(holds(await scan()).length).toBeGreaterThan(0);

      await deliver(stack.hub.url, [event(3, gone!, 'contact.privacyDeletion')]);
      await until(() => ingest.getJobCounts('completed'), (counts) => counts.completed === 2);
      expect(holds(await scan())).toEqual([]);
      // The other contact's event is still in its delivery.
      const deliveries = await ingest.getJobs(['completed']);
      expect(deliveries.flatMap((job) => (job.data as { events: { contactId: string }[] }).events.map((e) => e.contactId))).toEqual([kept]);
    } finally {
      await ingest.close();
    }
  });
});
