import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Counter, Registry } from 'prom-client';
import { DISCONNECT_TIMEOUT_MS } from '@verify-hub/core';
import { createHubApp } from '@verify-hub/webhooks-in';
import { FakeRunService } from './fake-run-service';
import { createHarness, bearer, ADMIN_TOKEN, silentLogger, type Harness } from './harness';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('health, metrics and the queue UI', () => {
  let h: Harness;
  let queue: Queue;
  let workers = true;
  const pipelineRegistry = new Registry();
  const pipelineCounter = new Counter({ name: 'verify_hub_contacts_processed_total', help: 'test', labelNames: ['platform'], registers: [pipelineRegistry] });

  beforeAll(async () => {
    queue = new Queue(`test-hub-ui-${randomUUID()}`, { connection: { url: process.env.REDIS_URL } });
    await queue.add('chunk', { n: 1 });
    h = await createHarness({ queues: [queue], metricsRegistry: pipelineRegistry, workersRunning: () => workers });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await h.close();
  });

  it('/healthz answers while the process is up', async () => {
    const res = await request(h.hub.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz is ready with Redis up and workers running, 503 naming what is not', async () => {
    const ready = await request(h.hub.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { redis: true, workers: true } });
    workers = false;
    const noWorkers = await request(h.hub.app).get('/readyz');
    expect(noWorkers.status).toBe(503);
    expect(noWorkers.body).toEqual({ status: 'unavailable', checks: { redis: true, workers: false } });
    workers = true;
  });

  it('/readyz answers 503 within its timeout when Redis is down, while /healthz stays up', async () => {
    const port = await closedPort();
    // Built as the hub builds its clients (core's redisClientPlan): with ioredis's own 2 s disconnect wait, the
    // clients closed below while Redis is down would keep this worker alive 2 s after the suite.
    const down = new Redis(`redis://127.0.0.1:${port}`, { retryStrategy: () => 200, disconnectTimeout: DISCONNECT_TIMEOUT_MS });
    down.on('error', () => undefined);
    const uploadDir = mkdtempSync(join(tmpdir(), 'vh-hub-'));
    const app = createHubApp({ runs: new FakeRunService(), redis: down, adminToken: ADMIN_TOKEN, uploadDir, logger: silentLogger, delivery: { enabled: false }, ingest: { worker: false } });
    try {
      const started = Date.now();
      const res = await request(app.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { redis: false } });
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await request(app.app).get('/healthz')).status).toBe(200);
    } finally {
      await app.close();
      down.disconnect();
      rmSync(uploadDir, { recursive: true, force: true });
    }
  });

  it('/readyz fails once shutdown began, so balancers stop sending work', async () => {
    const other = await createHarness();
    try {
      other.hub.markClosing();
      const res = await request(other.hub.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.checks.accepting).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('/metrics serves the pipeline registry and the HTTP request metrics', async () => {
    pipelineCounter.inc({ platform: 'hubspot' }, 7);
    await request(h.hub.app).get('/healthz');
    const res = await request(h.hub.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('verify_hub_contacts_processed_total{platform="hubspot"} 7');
    expect(res.text).toMatch(/verify_hub_http_request_duration_seconds_count\{method="GET",route="\/healthz",status_code="200"\} [1-9]/);
    expect(res.text).toContain('process_cpu_user_seconds_total');
    // Every family appears once, even where both registries would have it.
    const helps = res.text.split('\n').filter((l) => l.startsWith('# HELP '));
    expect(new Set(helps.map((l) => l.split(' ')[2])).size).toBe(helps.length);
  });

  describe('/admin/queues', () => {
    it('asks a browser for the token (Basic) and refuses a wrong one', async () => {
      const none = await request(h.hub.app).get('/admin/queues');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic realm="verify-hub"/);
      expect(none.body.code).toBe('UNAUTHORIZED');
      const wrong = await request(h.hub.app).get('/admin/queues/api/queues').auth('admin', 'nope');
      expect(wrong.status).toBe(401);
    });

    it('shows the queues with the bearer token or the token as Basic password', async () => {
      const page = await request(h.hub.app).get('/admin/queues').set(bearer);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<!DOCTYPE html>');
      const api = await request(h.hub.app).get('/admin/queues/api/queues').auth('admin', ADMIN_TOKEN);
      expect(api.status).toBe(200);
      const names = api.body.queues.map((q: { name: string }) => q.name);
      expect(names).toContain(queue.name);
      const ours = api.body.queues.find((q: { name: string }) => q.name === queue.name);
      expect(ours.counts.waiting).toBe(1);
    });
  });
});
