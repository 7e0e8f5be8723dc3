import { createHmac } from 'node:crypto';
import request from 'supertest';
import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import { mailchimpPlatform } from '@verify-hub/connector-mailchimp';
import { createLogger, type PlatformContext } from '@verify-hub/core';
import { createHarness, drained, until, type Harness } from './harness';
import { loadHubConfig } from '../../cli/src/platforms';

const APP_SECRET = 'hubspot-app-client-secret';
const PUBLIC_URL = 'https://hub.example.com';
const MC_SECRET = 'mc-url-secret-abcdefghijklmnop';

/** What a platform module is built from: the stored connections hold Mailchimp's per-connection secret. */
function moduleContext(env: Record<string, string>): PlatformContext {
  const mailchimpConnection = { id: 'mailchimp-us1-42', platform: 'mailchimp', label: 'x', createdAt: '', credentials: { webhookSecret: MC_SECRET } };
  return {
    config: loadHubConfig(env),
    logger: createLogger({ level: 'silent' }),
    openConnector: () => Promise.reject(new Error('not used')),
    connections: {
      get: async (id) => (id === mailchimpConnection.id ? mailchimpConnection : undefined),
      save: async () => undefined,
      list: async () => [mailchimpConnection],
      delete: async () => false,
    },
  };
}

/** Signs a delivery the way HubSpot does (v3): base64 HMAC-SHA256 of method + URI + body + timestamp. */
function hubspotHeaders(body: string, options: { secret?: string; timestamp?: number; uri?: string } = {}) {
  const timestamp = String(options.timestamp ?? Date.now());
  const uri = options.uri ?? `${PUBLIC_URL}/webhooks/hubspot`;
  const signature = createHmac('sha256', options.secret ?? APP_SECRET).update(`POST${uri}${body}${timestamp}`).digest('base64');
  return { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp };
}

// Recent, as HubSpot sends them: events older than its 24-hour retry window are dropped.
let occurred = Date.now() - 3_600_000;
function hubspotEvent(portalId: number, objectId: number, type = 'contact.creation', extra: Record<string, unknown> = {}) {
  occurred += 1000;
  return { eventId: Math.floor(Math.random() * 1e9), subscriptionId: 7, portalId, appId: 99, occurredAt: occurred, subscriptionType: type, attemptNumber: 0, objectId, changeSource: 'CRM', ...extra };
}

describe('webhook receivers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      publicUrl: PUBLIC_URL,
      // The receivers as the platform modules build them (what `verify-hub serve` mounts).
      webhooks: {
        hubspot: hubspotPlatform.webhook!(moduleContext({ HUBSPOT_CLIENT_SECRET: APP_SECRET }))!,
        mailchimp: mailchimpPlatform.webhook!(moduleContext({}))!,
      },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.runs.events.length = 0;
    h.runs.failEnqueue = false;
  });

  describe('POST /webhooks/hubspot', () => {
    it('queues the contact events of a signed delivery, each under its portal connection', async () => {
      const body = JSON.stringify([
        hubspotEvent(123, 1),
        hubspotEvent(123, 2, 'contact.propertyChange', { propertyName: 'email', propertyValue: 'new@example.com' }),
        hubspotEvent(123, 3, 'contact.propertyChange', { propertyName: 'firstname', propertyValue: 'Ada' }),
        hubspotEvent(456, 4),
      ]);
      const res = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: 3 });
      await drained(h.hub);
      expect(h.runs.events.map((e) => [e.connectionId, e.contactId, e.kind])).toEqual([
        ['hubspot-123', '1', 'created'],
        ['hubspot-123', '2', 'email_changed'],
        ['hubspot-456', '4', 'created'],
      ]);
      expect(h.runs.events[1]!.email).toBe('new@example.com');
    });

    it('acknowledges a repeated delivery without queueing it again', async () => {
      const body = JSON.stringify([hubspotEvent(123, 10), hubspotEvent(123, 11)]);
      const first = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body);
      expect(first.body).toEqual({ received: 2 });
      // HubSpot's retry: same events, new attempt, freshly signed.
      const retry = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body, { timestamp: Date.now() + 1 })).send(body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ received: 2 });
      await drained(h.hub);
      expect(h.runs.events.map((e) => e.contactId)).toEqual(['10', '11']);
    });

    it('refuses a forged signature, a replayed delivery, an unsigned one and another URL', async () => {
      const body = JSON.stringify([hubspotEvent(123, 20)]);
      const forged = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body, { secret: 'not-the-secret' })).send(body);
      expect(forged.status).toBe(401);
      expect(forged.body).toEqual({ error: 'X-HubSpot-Signature-v3: does not match', code: 'WEBHOOK_REJECTED' });
      const tampered = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body.replace('"objectId":20', '"objectId":21'));
      expect(tampered.status).toBe(401);
      const replayed = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body, { timestamp: Date.now() - 6 * 60_000 })).send(body);
      expect(replayed.status).toBe(401);
      expect(replayed.body.error).toMatch(/older than 5 minutes/);
      const unsigned = await request(h.hub.app).post('/webhooks/hubspot').set('content-type', 'application/json').send(body);
      expect(unsigned.status).toBe(401);
      const otherUrl = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body, { uri: 'https://evil.example.com/webhooks/hubspot' })).send(body);
      expect(otherUrl.status).toBe(401);
      await drained(h.hub);
      expect(h.runs.events).toHaveLength(0);
    });

    it('refuses a body that is not an event array (400) and one over 1 MB or 100 events (413)', async () => {
      const notJson = 'hello';
      const bad = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(notJson)).send(notJson);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('WEBHOOK_REJECTED');
      const missing = JSON.stringify([{ portalId: 1 }]);
      const shape = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(missing)).send(missing);
      expect(shape.status).toBe(400);
      expect(shape.body.error).toMatch(/^body\[0\]\./);
      const huge = JSON.stringify([hubspotEvent(1, 1, 'contact.creation', { pad: 'x'.repeat(1024 * 1024) })]);
      const big = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(huge)).send(huge);
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
      const many = JSON.stringify(Array.from({ length: 101 }, (_, i) => hubspotEvent(1, 1000 + i)));
      const tooMany = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(many)).send(many);
      expect(tooMany.status).toBe(413);
      expect(h.runs.events).toHaveLength(0);
    });

    it('answers 503 when the delivery cannot be stored, so the platform retries', async () => {
      const body = JSON.stringify([hubspotEvent(123, 30)]);
      const spy = jest.spyOn(h.hub.ingest, 'accept').mockRejectedValueOnce(new Error('Connection is closed.'));
      const down = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body);
      expect(down.status).toBe(503);
      expect(down.headers['retry-after']).toBe('30');
      expect(down.body).toEqual({ error: 'events could not be stored; retry later', code: 'UNAVAILABLE' });
      spy.mockRestore();
      const retry = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body);
      expect(retry.body).toEqual({ received: 1 });
      await drained(h.hub);
      expect(h.runs.events.map((e) => e.contactId)).toEqual(['30']);
    });

    it('keeps accepted events while the pipeline cannot take them, and hands them over once it can', async () => {
      const body = JSON.stringify([hubspotEvent(123, 40), hubspotEvent(123, 41)]);
      h.runs.failEnqueue = true;
      const res = await request(h.hub.app).post('/webhooks/hubspot').set(hubspotHeaders(body)).send(body);
      expect(res.status).toBe(200);
      // The forwarder's first attempt fails; BullMQ retries with backoff.
      await until(async () => (await h.hub.ingest.queue.getJobCounts('delayed')).delayed === 1);
      expect(h.runs.events).toHaveLength(0);
      h.runs.failEnqueue = false;
      await drained(h.hub);
      expect(h.runs.events.map((e) => e.contactId)).toEqual(['40', '41']);
    });
  });

  describe('GET|POST /webhooks/mailchimp/:connection/:secret', () => {
    const path = `/webhooks/mailchimp/mailchimp-us1-42/${MC_SECRET}`;
    const subscribe = (email: string, firedAt = '2026-11-21 10:00:00') =>
      new URLSearchParams({ type: 'subscribe', fired_at: firedAt, 'data[id]': 'abc', 'data[list_id]': 'list1', 'data[email]': email, 'data[merges][FNAME]': 'Ada' }).toString();

    it("answers Mailchimp's URL check (GET) and an empty POST with 200", async () => {
      const get = await request(h.hub.app).get(path);
      expect(get.status).toBe(200);
      expect(get.body).toEqual({ received: 0 });
      const empty = await request(h.hub.app).post(path).set('content-type', 'application/x-www-form-urlencoded').send('');
      expect(empty.status).toBe(200);
    });

    it('queues a subscribe under the URL connection and drops its repeat', async () => {
      const body = subscribe('ada@example.com');
      const res = await request(h.hub.app).post(path).set('content-type', 'application/x-www-form-urlencoded').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: 1 });
      await drained(h.hub);
      expect(h.runs.events).toMatchObject([{ connectionId: 'mailchimp-us1-42', platform: 'mailchimp', kind: 'created', email: 'ada@example.com', accountId: 'list1' }]);
      const again = await request(h.hub.app).post(path).set('content-type', 'application/x-www-form-urlencoded').send(body);
      expect(again.body).toEqual({ received: 1 });
      await drained(h.hub);
      expect(h.runs.events).toHaveLength(1);
    });

    it('refuses a wrong secret and an unknown connection alike (401), a bad connection id (400), bad forms (400) and big bodies (413)', async () => {
      const body = subscribe('bob@example.com');
      const wrong = await request(h.hub.app).post('/webhooks/mailchimp/mailchimp-us1-42/guess').type('form').send(body);
      expect(wrong.status).toBe(401);
      expect(wrong.body.code).toBe('WEBHOOK_REJECTED');
      const unknown = await request(h.hub.app).post(`/webhooks/mailchimp/mailchimp-us1-7/${MC_SECRET}`).type('form').send(body);
      expect(unknown.status).toBe(401);
      const badId = await request(h.hub.app).post(`/webhooks/mailchimp/${encodeURIComponent('a b')}/${MC_SECRET}`).type('form').send(body);
      expect(badId.status).toBe(400);
      expect(badId.body.field).toBe('params.connection');
      const noEmail = await request(h.hub.app).post(path).type('form').send('type=subscribe&fired_at=2026-11-21%2010%3A00%3A00&data%5Blist_id%5D=list1');
      expect(noEmail.status).toBe(400);
      expect(noEmail.body.error).toBe('data[email]: missing');
      const big = await request(h.hub.app).post(path).type('form').send(`${body}&pad=${'x'.repeat(1024 * 1024)}`);
      expect(big.status).toBe(413);
      await drained(h.hub);
      expect(h.runs.events).toHaveLength(0);
    });
  });

  it('answers 404 on a platform with no receiver configured', async () => {
    const bare = await createHarness();
    try {
      const res = await request(bare.hub.app).post('/webhooks/hubspot').send('[]');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    } finally {
      await bare.close();
    }
  });

  it('counts queued, duplicate and refused deliveries in /metrics', async () => {
    const res = await request(h.hub.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/verify_hub_webhook_events_total\{platform="hubspot",outcome="queued"\} [1-9]/);
    expect(res.text).toMatch(/verify_hub_webhook_events_total\{platform="hubspot",outcome="accepted"\} [1-9]/);
    expect(res.text).toMatch(/verify_hub_webhook_events_total\{platform="hubspot",outcome="duplicate"\} 2/);
    expect(res.text).toMatch(/verify_hub_webhook_rejected_total\{platform="hubspot",status="401"\} [1-9]/);
    expect(res.text).toMatch(/verify_hub_webhook_rejected_total\{platform="hubspot",status="413"\} 2/);
    // The Mailchimp secret is a path segment: metrics name the route pattern, never the URL.
    expect(res.text).not.toContain(MC_SECRET);
    expect(res.text).toContain('route="/webhooks/mailchimp/:connection/:secret"');
  });
});
