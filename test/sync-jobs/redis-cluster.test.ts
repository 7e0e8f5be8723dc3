import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { haveRedisBinaries, startRedisCluster, type LocalCluster } from '../setup/redis-cluster';
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
    cluster?.stop();
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

  it('runs a sync to completion with exact counters through a failover of the queues’ master mid-run', async () => {
    // 10 lookups at a time of 20 ms each: the run takes 12 s at the very least, the failover far less.
    const t = await setup({ size: 6_000, pageSize: 50 }, { latencyMs: 20 }, { redisUrl: cluster.url, chunkConcurrency: 2, verifyConcurrency: 5 });
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
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'], 120_000);
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
  }, 180_000);

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
});
