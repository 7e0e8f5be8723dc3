import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createRedis, queuePrefix } from '@verify-hub/sync-jobs';
import { startServe } from '../../cli/src/commands/serve';
import { webhookIngestQueueName } from '../../cli/src/webhook-forwarding';
import { FakeEngine } from '../fakes/engine';
import { silentLogger } from './harness';
import { purgeServeRedis, until } from './serve-stack';
import { loadHubConfig } from '../../cli/src/platforms';
import { cliBin } from '../setup/cli-bin';

/**
 * An HTTP-only hub (`serve --no-workers`) stores accepted webhook deliveries and forwards none itself
 * (its event loop only answers); a separate `verify-hub worker` process hands every event to the pipeline.
 */
const SECRET = `secret-${randomUUID()}`;

function signedDelivery(url: string, objectIds: number[]) {
  const now = Date.now();
  const body = JSON.stringify(objectIds.map((objectId) => ({ eventId: objectId, subscriptionId: 1, portalId: 4321, appId: 1, occurredAt: now, subscriptionType: 'contact.creation', attemptNumber: 0, objectId, changeSource: 'CRM' })));
  const timestamp = String(now);
  const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`).digest('base64');
  return { body, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } };
}

it('a worker process forwards the events an HTTP-only hub acknowledged; the hub runs no forwarder', async () => {
  const engine = new FakeEngine();
  await engine.start();
  const prefix = `test-forwarding-${randomUUID().slice(0, 8)}`;
  const env = {
    REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_SECRET_KEY: 's'.repeat(40),
    HUBSPOT_CLIENT_SECRET: SECRET, VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent',
  };
  const hub = await startServe(loadHubConfig({ ...env, HUB_ADMIN_TOKEN: `admin-${randomUUID()}` }), { port: 0, host: '127.0.0.1', workers: false, logger: silentLogger });
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const ingest = new Queue(webhookIngestQueueName(prefix), { connection: redis, prefix: queuePrefix('bull', redis.isCluster) });
  let worker: ReturnType<typeof spawn> | undefined;
  let exited: Promise<unknown> | undefined;
  try {
    const ids = Array.from({ length: 30 }, (_, i) => 500 + i);
    const url = `${hub.url}/webhooks/hubspot`;
    const delivery = signedDelivery(url, ids);
    const res = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(res.status).toBe(200);
    // Stored before the ack, and no forwarder in the hub's process.
    expect(await ingest.getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect(await ingest.getWorkers()).toHaveLength(0);

    worker = spawn(process.execPath, [cliBin(env), 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    exited = new Promise((resolve) => worker!.on('exit', resolve));
    await until(() => ingest.getJobCounts('completed'), (counts) => counts.completed === 1, 90_000);
    const events = await hub.pipeline.queues.events.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
    expect(Object.values(events).reduce((a, b) => a + b, 0)).toBe(ids.length);
  } finally {
    worker?.kill('SIGTERM');
    await exited;
    await ingest.obliterate({ force: true }).catch(() => undefined);
    await ingest.close();
    await redis.quit();
    await hub.close();
    await purgeServeRedis(prefix);
    await engine.stop();
  }
}, 180_000);
