import { createHmac, randomUUID } from 'node:crypto';
import type { Worker } from 'bullmq';
import request from 'supertest';
import { hubspotReceiver } from '@verify-hub/connector-hubspot';
import { createHubApp } from '@verify-hub/webhooks-in';
import { createHarness, drained, silentLogger, type Harness } from './harness';
import { FakeRunService } from './fake-run-service';
import { until } from '../setup/until';

const APP_SECRET = 'hubspot-app-client-secret';
const PUBLIC_URL = 'https://hub.example.com';

function signedDelivery(objectIds: number[]) {
  const now = Date.now();
  const body = JSON.stringify(objectIds.map((objectId) => ({ eventId: objectId, subscriptionId: 7, portalId: 321, appId: 99, occurredAt: now, subscriptionType: 'contact.creation', attemptNumber: 0, objectId, changeSource: 'CRM' })));
  const timestamp = String(now);
  const signature = createHmac('sha256', APP_SECRET).update(`POST${PUBLIC_URL}/webhooks/hubspot${body}${timestamp}`).digest('base64');
  return { body, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } };
}

describe('webhook ingest durability', () => {
  const queueName = `test-hub-ingest-${randomUUID()}`;
  const webhooks = { hubspot: { receiver: hubspotReceiver(APP_SECRET) } };
  let next: Harness;
  beforeAll(async () => {
    // The instance that takes over; it owns the queue's cleanup.
    next = await createHarness({ publicUrl: PUBLIC_URL, webhooks, ingest: { queueName, backoffMs: 50, attempts: 5, worker: false } });
  });
  afterAll(async () => {
    await next.close();
  });

  it('hands every acknowledged event to the pipeline when the hub that acked it closes at once', async () => {
    // The first hub forwards too, slowly (a pipeline under load), and is closed right after its last ack.
    const firstRuns = new FakeRunService();
    const slowEnqueue = firstRuns.enqueueEvent.bind(firstRuns);
    firstRuns.enqueueEvent = async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return slowEnqueue(event);
    };
    const first = createHubApp({ runs: firstRuns, redis: next.redis, uploadDir: next.uploadDir, keyPrefix: next.prefix, logger: silentLogger, publicUrl: PUBLIC_URL, delivery: { enabled: false }, webhooks, ingest: { queueName, backoffMs: 50, attempts: 5 } });
    const acked: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, d) => {
        const ids = Array.from({ length: 50 }, (_, i) => 10_000 + d * 50 + i);
        const delivery = signedDelivery(ids);
        const res = await request(first.app).post('/webhooks/hubspot').set(delivery.headers).send(delivery.body);
        expect(res.status).toBe(200);
        acked.push(...ids.map(String));
      }),
    );
    await first.close();
    const forwardedBeforeClose = new Set(firstRuns.events.map((e) => e.contactId));
    // Closing took the first hub's forwarder down mid-backlog: some deliveries were still waiting.
    expect(forwardedBeforeClose.size).toBeLessThan(acked.length);

    // A hub started afterwards (or any other instance forwarding the same queue) hands over the rest.
    const successor = createHubApp({ runs: next.runs, redis: next.redis, uploadDir: next.uploadDir, keyPrefix: next.prefix, logger: silentLogger, delivery: { enabled: false }, webhooks, ingest: { queueName, backoffMs: 50, attempts: 5 } });
    try {
      await drained(successor);
    } finally {
      await successor.close();
    }
    const forwarded = new Set([...forwardedBeforeClose, ...next.runs.events.map((e) => e.contactId)]);
    expect([...forwarded].sort()).toEqual([...acked].sort());
    expect(next.runs.events.every((e) => e.connectionId === 'hubspot-321')).toBe(true);
  });

  it('forwards a delivery whose forwarder died holding it within ~15 s (its 10 s hold lapses), not after BullMQ\'s 30 s lock', async () => {
    // The first hub takes the delivery and never finishes it (its pipeline hangs), then dies: its
    // forwarder stops renewing its hold without letting go, as a killed process does.
    const stuckRuns = new FakeRunService();
    let taken!: () => void;
    const takenOnce = new Promise<void>((resolve) => (taken = resolve));
    stuckRuns.enqueueEvent = () => {
      taken();
      return new Promise(() => undefined);
    };
    const first = createHubApp({ runs: stuckRuns, redis: next.redis, uploadDir: next.uploadDir, keyPrefix: next.prefix, logger: silentLogger, publicUrl: PUBLIC_URL, delivery: { enabled: false }, webhooks, ingest: { queueName } });
    const delivery = signedDelivery([77_001, 77_002]);
    expect((await request(first.app).post('/webhooks/hubspot').set(delivery.headers).send(delivery.body)).status).toBe(200);
    await takenOnce;
    const diedAt = Date.now();
    await (first.ingest as unknown as { worker: Worker }).worker.close(true);

    const successor = createHubApp({ runs: next.runs, redis: next.redis, uploadDir: next.uploadDir, keyPrefix: next.prefix, logger: silentLogger, delivery: { enabled: false }, webhooks, ingest: { queueName } });
    try {
      await until(() => ['77001', '77002'].every((id) => next.runs.events.some((e) => e.contactId === id)), 40_000, 'the held delivery forwarded');
      // Hold 10 s + up to two 5 s stalled checks; BullMQ's defaults (30 s hold, 30 s checks) took 30-60 s.
      expect(Date.now() - diedAt).toBeLessThan(28_000);
    } finally {
      await successor.close();
      await first.close().catch(() => undefined);
    }
  }, 60_000);
});
