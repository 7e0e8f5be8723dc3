import { createHmac, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { SyncPipeline, createRedis, queuePrefix } from '@verify-hub/sync-jobs';
import { startServe } from '../../cli/src/commands/serve';
import { loadHubConfig } from '../../cli/src/platforms';
import { webhookIngestQueueName } from '../../cli/src/webhook-forwarding';
import { FakeEngine } from '../fakes/engine';
import { silentLogger } from './harness';
import { serveProcess, purgeServeRedis, until } from './serve-stack';

/**
 * `verify-hub serve` (with workers) forwards accepted webhook events from a thread of its own, not its
 * HTTP event loop; a hub killed right after acking loses nothing: the next hub's thread hands the rest over.
 */
const SECRET = `secret-${randomUUID()}`;
const PORTAL = 4321;

function signedDelivery(url: string, objectIds: number[]) {
  const now = Date.now();
  const body = JSON.stringify(objectIds.map((objectId) => ({ eventId: objectId, subscriptionId: 1, portalId: PORTAL, appId: 1, occurredAt: now, subscriptionType: 'contact.creation', attemptNumber: 0, objectId, changeSource: 'CRM' })));
  const timestamp = String(now);
  const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`).digest('base64');
  return { body, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } };
}

async function deliver(hubUrl: string, objectIds: number[]): Promise<Response> {
  const url = `${hubUrl}/webhooks/hubspot`;
  const delivery = signedDelivery(url, objectIds);
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}

describe('serve forwards webhook events from its forwarder thread', () => {
  let engine: FakeEngine;
  let prefix: string;
  let env: Record<string, string | undefined>;
  let redis: ReturnType<typeof createRedis>;
  let ingest: Queue;
  let pipeline: SyncPipeline;

  beforeEach(async () => {
    engine = new FakeEngine();
    await engine.start();
    prefix = `test-fwd-thread-${randomUUID().slice(0, 8)}`;
    env = {
      HUB_WEBHOOK_FORWARDER: 'thread', REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_SECRET_KEY: 's'.repeat(40),
      HUB_ADMIN_TOKEN: `admin-${randomUUID()}`, HUBSPOT_CLIENT_SECRET: SECRET, VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent',
      // A forwarder's hold on a delivery as short as a worker's may be (the defaults: 10 s, looked for every 5 s).
      VERIFY_HUB_JOB_LOCK_MS: '2000', VERIFY_HUB_STALLED_INTERVAL_MS: '1000',
    };
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    ingest = new Queue(webhookIngestQueueName(prefix), { connection: redis, prefix: queuePrefix('bull', redis.isCluster) });
    // The pipeline's queues, as the hub's own pipeline sees them.
    pipeline = new SyncPipeline({ redisUrl: process.env.REDIS_URL, prefix, logger: silentLogger });
  });

  afterEach(async () => {
    await ingest.close();
    await pipeline.close();
    await redis.quit();
    await purgeServeRedis(prefix);
    await engine.stop();
  });

  /** The contact ids of every event job the pipeline holds, whatever its state. */
  async function queuedContacts(): Promise<string[]> {
    const jobs = await pipeline.queues.events.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
    return jobs.map((job) => (job.data as { event: { contactId: string } }).event.contactId);
  }

  it('hands events to the pipeline from the thread; with the thread stopped, deliveries wait in the queue', async () => {
    const hub = await startServe(loadHubConfig(env), { port: 0, host: '127.0.0.1', logger: silentLogger });
    try {
      expect(hub.webhookForwarder?.running).toBe(true);
      const ids = Array.from({ length: 30 }, (_, i) => 500 + i);
      expect((await deliver(hub.url, ids)).status).toBe(200);
      await until(queuedContacts, (contacts) => contacts.length === ids.length);
      expect((await queuedContacts()).sort()).toEqual(ids.map(String).sort());
      // The counts come from the thread and show on the hub's /metrics.
      const metrics = async () => (await fetch(`${hub.url}/metrics`)).text();
      await until(metrics, (text) => /verify_hub_webhook_events_total\{platform="hubspot",outcome="queued"\} 30\n/.test(text));

      // No forwarder on the HTTP event loop: once the thread is gone, an acked delivery stays stored.
      await hub.webhookForwarder!.close();
      expect(hub.webhookForwarder!.running).toBe(false);
      expect((await deliver(hub.url, [900])).status).toBe(200);
      expect(await ingest.getJobCounts('waiting')).toEqual({ waiting: 1 });
      expect(await ingest.getWorkers()).toHaveLength(0);
    } finally {
      await hub.close();
    }
  }, 120_000);

  it.each(['thread', 'loop'])('a hub killed (SIGKILL) right after its acks loses nothing: the restarted hub forwards every event exactly once (forwarder: %s)', async (forwarder) => {
    env.HUB_WEBHOOK_FORWARDER = forwarder;
    const first = await serveProcess(env);
    const acked = Array.from({ length: 12 }, (_, d) => Array.from({ length: 50 }, (_, i) => 10_000 + d * 50 + i));
    try {
      const answers = await Promise.all(acked.map((ids) => deliver(first.url, ids)));
      first.child.kill('SIGKILL');
      expect(answers.map((res) => res.status)).toEqual(acked.map(() => 200));
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    // What the killed hub handed over before it died; the rest waits in the ingest queue.
    const forwardedByFirst = (await queuedContacts()).length;
    const ackedIds = acked.flat().map(String);

    const second = await serveProcess(env);
    try {
      // A delivery the killed hub had in hand comes back once its hold lapses (2 s here, VERIFY_HUB_JOB_LOCK_MS)
      // and the next stalled-job check (every second) finds it: ~3 s; with the defaults (10 s, 5 s) ~15 s.
      await until(() => ingest.getJobCounts('waiting', 'active', 'delayed', 'completed'), (c) => c.completed === acked.length && c.waiting + c.active + c.delayed === 0, 60_000);
      const contacts = await queuedContacts();
      expect(contacts).toHaveLength(ackedIds.length);
      expect(contacts.sort()).toEqual(ackedIds.sort());
      // The second hub queued at least all the first had not (the killed one's slice in flight is queued
      // again: one job each all the same), and dropped the repeats of what the first had queued.
      const metrics = await (await fetch(`${second.url}/metrics`)).text();
      const queuedBySecond = Number(/verify_hub_webhook_events_total\{platform="hubspot",outcome="queued"\} (\d+)/.exec(metrics)?.[1] ?? 0);
      expect(queuedBySecond).toBeGreaterThanOrEqual(ackedIds.length - forwardedByFirst);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 240_000);
});
