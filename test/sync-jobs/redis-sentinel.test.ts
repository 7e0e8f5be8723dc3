import { haveRedisBinaries } from '../setup/redis-cluster';
import { startRedisSentinel, type LocalSentinel } from '../setup/redis-sentinel';
import { setup, waitFor, waitForStatus } from './helpers';

const binaries = haveRedisBinaries();
if (!binaries) console.warn('redis-sentinel.test.ts skipped: redis-server and redis-cli are not installed');
const describeWithRedis = binaries ? describe : describe.skip;

describeWithRedis('the pipeline through Redis Sentinel (one master, one replica, one sentinel)', () => {
  let sentinel: LocalSentinel;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  }, 120_000);
  afterAll(async () => sentinel?.stop());

  it('runs a sync to completion through a Sentinel failover mid-run, every contact verified and written', async () => {
    // 10 lookups at a time of 20 ms each: the run takes 8 s at the very least.
    const t = await setup({ size: 4_000, pageSize: 50 }, { latencyMs: 20 }, { redisUrl: sentinel.url, chunkConcurrency: 2, verifyConcurrency: 5 });
    expect(t.pipeline.keys.cluster).toBe(false);
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => ((await t.pipeline.get(run.id))?.counters.written ?? 0) >= 300, 60_000);
      const before = sentinel.masterPort();
      const promoted = await sentinel.failover();
      expect(promoted).not.toBe(before);
      const afterFailover = await t.pipeline.get(run.id);
      expect(afterFailover?.status).toBe('running'); // the failover happened mid-run
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'], 120_000);
      expect(done.status).toBe('completed');
      // Sentinel promotes the replica without waiting for it to catch up (Redis replicates asynchronously):
      // the last writes the old master acknowledged may be gone, so a chunk may be replayed. Nothing is
      // lost: every contact is verified or found cached, and written or found already written.
      const c = done.counters;
      // The reasons ride along so that a failure says why a contact ended unknown.
      const unknownReasons = c.unknown > 0 ? (await t.pipeline.breakdown(run.id)).unknownReasons : {};
      expect({ pulled: c.pulled, failed: c.failed, unknown: c.unknown, unknownReasons, looked: c.verified + c.cached, landed: c.written + c.unchanged }).toEqual({ pulled: 4_000, failed: 0, unknown: 0, unknownReasons: {}, looked: 4_000, landed: 4_000 });
      expect(t.source.writeCounts.size).toBe(4_000);
      expect(Math.max(...t.source.writeCounts.values())).toBeLessThanOrEqual(2);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 180_000);
});
