import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import request from 'supertest';
import { join } from 'node:path';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { SecretBox } from '@verify-hub/core';
import { openKeyStore } from '@verify-hub/engine';
import { Keys, RedisConnectionStore, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { haveRedisBinaries, startRedisCluster, type LocalCluster } from '../setup/redis-cluster';
import { startServeStack, until } from '../webhooks-in/serve-stack';
import { setup, waitFor, waitForStatus } from './helpers';

const binaries = haveRedisBinaries();
if (!binaries) console.warn('redis-cluster.test.ts skipped: redis-server and redis-cli are not installed');
const describeWithRedis = binaries ? describe : describe.skip;

describeWithRedis('the pipeline on a Redis Cluster (3 masters, 3 replicas)', () => {
  let cluster: LocalCluster;
  let redis: Redis;
  beforeAll(async () => {
    cluster = await startRedisCluster(3, 1);
    redis = createRedis(cluster.url);
  }, 120_000);
  afterAll(async () => {
    await redis?.quit().catch(() => redis.disconnect());
    await cluster?.stop();
  });

  it('keeps a run in one slot and different runs spread over slots', () => {
    const keys = new Keys('vh:sync', { cluster: true });
    expect(keys.queuePrefix).toBe('{vh:sync}');
    expect(keys.pagesDone('run_a')).toBe('vh:sync:run:{run_a}:pages-done');
    expect(keys.connection('c1')).toBe('vh:sync:{connections}:c1');
    const slotOf = (key: string) => cluster.masterOf(key);
    const masters = new Set(Array.from({ length: 12 }, (_, i) => slotOf(keys.run(`run_${i}`))));
    expect(masters.size).toBeGreaterThan(1);
  });

  it('keeps engine API keys (record, index and account written together) through a cluster URL', async () => {
    const opened = await openKeyStore(cluster.url, `vhtest-engine-${randomUUID().slice(0, 8)}:`);
    try {
      const { key, record } = await opened.store.createKey({ name: 'cluster', account: 'acct-1' });
      expect((await opened.store.findKey(key))?.id).toBe(record.id);
      expect((await opened.store.listKeys()).map((r) => r.id)).toEqual([record.id]);
      expect((await opened.store.revokeKey(record.id))?.revokedAt).toBeTruthy();
      expect((await opened.store.findKey(key))?.revokedAt).toBeTruthy(); // the server refuses it on that field
    } finally {
      await opened.close();
    }
  });

  it('runs a sync to completion with exact counters through a failover of the queues’ master mid-run', async () => {
    // 10 lookups at a time of 20 ms each: the run takes 12 s at the very least, the failover far less.
    // What the failover loses (a lock, a job written to the old master only) comes back through the
    // stalled-job check and the reconciler: their timers are shortened here as the acceptance suites do
    // (BullMQ's 30 s lock and check, the reconciler's 60 s), or a loaded machine ran past the bound.
    const hold = { lockDurationMs: 8_000, stalledIntervalMs: 3_000, reconcileIntervalMs: 5_000 };
    const t = await setup({ size: 6_000, pageSize: 50 }, { latencyMs: 20 }, { redisUrl: cluster.url, chunkConcurrency: 2, verifyConcurrency: 5, ...hold });
    expect(t.pipeline.keys.cluster).toBe(true);
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => ((await t.pipeline.get(run.id))?.counters.written ?? 0) >= 300, 60_000);
      // The master holding every BullMQ key hands over to its replica while chunks are being worked.
      const queuesMaster = cluster.masterOf(`${t.pipeline.keys.queuePrefix}:chunks:wait`);
      const newMaster = await cluster.failover(queuesMaster);
      expect(cluster.masterOf(`${t.pipeline.keys.queuePrefix}:chunks:wait`)).toBe(newMaster);
      const afterFailover = await t.pipeline.get(run.id);
      expect(afterFailover?.status).toBe('running'); // the failover happened mid-run
      expect(afterFailover?.counters.written).toBeLessThan(6_000);
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'], 150_000);
      expect(done.status).toBe('completed');
      expect(done.counters).toEqual({ pulled: 6_000, skipped: 0, cached: 0, verified: 6_000, rejected: 0, unknown: 0, written: 6_000, unchanged: 0, failed: 0, credits: 6_000 });
      expect(t.source.writeCounts.size).toBe(6_000);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      let rows = 0;
      for await (const row of t.pipeline.report(run.id)) if (row.outcome === 'written') rows++;
      expect(rows).toBe(6_000);
      expect((await t.pipeline.list({ limit: 10 })).map((r) => r.id)).toEqual([run.id]);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 240_000);

  it('cleans a file and handles webhook events, with connections stored on the cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vh-cluster-file-'));
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const store = new RedisConnectionStore(redis, new Keys(prefix, { cluster: true }), new SecretBox('z'.repeat(40)));
    const t = await setup({ size: 10, pageSize: 10 }, {}, { redisUrl: cluster.url, prefix, connections: store, eventCoalesceMs: 200 });
    t.registry.register('file', fileConnectorFactory);
    const input = join(dir, 'upload.csv');
    const lines = Array.from({ length: 1_000 }, (_, i) => `${i % 10 === 9 ? 'invalid.' : 'p'}${i}@example.com,row ${i}`);
    writeFileSync(input, `email,note\n${lines.join('\n')}\n`);
    await store.save({ id: 'file-1', platform: 'file', label: 'upload.csv', createdAt: new Date().toISOString(), credentials: {}, settings: { input, pageSize: 100 } });
    await store.save({ id: 'fake-1', platform: 'fake', label: 'Fake', createdAt: new Date().toISOString(), credentials: { accessToken: 'secret' } });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'file', connectionId: 'file-1', scope: `file:${input}` });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'], 120_000);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 1_000, verified: 1_000, written: 1_000, failed: 0, credits: 1_000 });
      expect(readFileSync(join(dir, 'upload.cleaned.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 900);
      expect(readFileSync(join(dir, 'upload.removed.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 100);
      expect((await t.pipeline.breakdown(run.id)).ledger).toBeDefined();

      const base = { platform: 'fake', kind: 'email_changed', accountId: 'a', connectionId: 'fake-1', occurredAt: Date.now() };
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e1' })).toEqual({ queued: true });
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e1' })).toEqual({ queued: false });
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e2' })).toEqual({ queued: false });
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c4', dedupeKey: 'e3' })).toEqual({ queued: true });
      await waitFor(async () => t.source.writeCounts.size === 2, 60_000);
      expect(t.source.writeCounts.get('c3')).toBe(1);
      expect(t.engine.callsFor('user3@example.com')).toBe(1);
      expect((await store.list('fake')).map((c) => c.id)).toEqual(['fake-1']);
      expect(await store.delete('fake-1')).toBe(true);
    } finally {
      await workers.close();
      await t.done();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('serves the hub on the cluster: readiness, an uploaded file cleaned, a signed webhook delivery queued once', async () => {
    const token = 'cluster-test-admin-token-0123456789';
    const secret = 'cluster-test-hubspot-secret';
    const stack = await startServeStack('cluster', token, { REDIS_URL: cluster.url, HUBSPOT_CLIENT_SECRET: secret });
    const { hub } = stack;
    const auth = { Authorization: `Bearer ${token}` };
    try {
      // Ready once the cluster answers a PING within the check's 1 s: on a loaded machine the first one may not.
      const ready = await until(async () => (await request(hub.url).get('/readyz')).body.checks as { redis: boolean; workers: boolean }, (checks) => checks.redis && checks.workers, 30_000);
      expect(ready).toEqual({ redis: true, workers: true });
      const csv = 'email,name\nada@example.com,Ada\ninvalid.x@example.com,X\nbob@example.org,Bob\n';
      const upload = await request(hub.url).post('/api/files').set(auth).attach('file', Buffer.from(csv), 'list.csv');
      expect(upload.status).toBe(202);
      const runId = upload.body.run.id as string;
      const run = await until(
        async () => (await request(hub.url).get(`/api/runs/${runId}`).set(auth)).body,
        (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status),
        60_000,
      );
      expect(run).toMatchObject({ status: 'completed', counters: { pulled: 3, verified: 3, written: 3 } });
      const cleaned = await request(hub.url).get(`/api/runs/${runId}/files/cleaned`).set(auth).buffer(true);
      expect(cleaned.text.trim().split(/\r?\n/).slice(1).map((r) => r.split(',')[0])).toEqual(['ada@example.com', 'bob@example.org']);

      const body = JSON.stringify([{ eventId: 1, subscriptionId: 1, portalId: 777, appId: 1, occurredAt: Date.now(), subscriptionType: 'contact.creation', attemptNumber: 0, objectId: 4242, changeSource: 'CRM' }]);
      const send = () => {
        const ts = String(Date.now());
        const sig = createHmac('sha256', secret).update(`POST${hub.url}/webhooks/hubspot${body}${ts}`).digest('base64');
        return request(hub.url).post('/webhooks/hubspot').set({ 'content-type': 'application/json', 'x-hubspot-signature-v3': sig, 'x-hubspot-request-timestamp': ts }).send(body);
      };
      expect((await send()).body).toEqual({ received: 1 });
      expect((await send()).body).toEqual({ received: 1 });
      // Both deliveries pass the hub's ingest queue (hash-tagged on the cluster); the pipeline keeps one event.
      await until(
        async () => hub.pipeline.queues.events.getJobCounts('delayed', 'waiting', 'active', 'completed', 'failed'),
        (counts) => Object.values(counts).reduce((a, b) => a + b, 0) === 1,
        60_000,
      );
      const metrics = await until(async () => (await request(hub.url).get('/metrics')).text, (text) => /verify_hub_webhook_events_total\{platform="hubspot",outcome="duplicate"\} 1/.test(text), 60_000);
      expect(metrics).toMatch(/verify_hub_webhook_events_total\{platform="hubspot",outcome="queued"\} 1\n/);
    } finally {
      await hub.close();
      await stack.engine.stop();
      rmSync(stack.uploadDir, { recursive: true, force: true });
    }
  }, 180_000);
});
