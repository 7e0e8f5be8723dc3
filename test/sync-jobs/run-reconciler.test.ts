import { jobIds } from '@verify-hub/sync-jobs';
import { setup, waitFor, waitForStatus } from './helpers';

/**
 * A run never sits in `running` with nothing to move it: what a dead process or a lost Redis write
 * leaves behind is found by the reconciler (on worker start and every `reconcileIntervalMs`).
 */
describe('run reconciler', () => {
  it('a chunk failed by BullMQ for stalling past the limit is counted as failed and the run completes', async () => {
    // maxStalledCount 0: the first stall fails the job for good, as BullMQ's default of 1 did after a second kill.
    const t = await setup({ size: 400, pageSize: 100 }, {}, { chunkConcurrency: 1, maxStalledCount: 0, lockDurationMs: 1000, stalledIntervalMs: 300, reconcileIntervalMs: 300 });
    t.engine.script('user150@example.com', { kind: 'hang' }); // page 1 hangs in the engine
    const first = t.pipeline.startWorkers();
    let second: ReturnType<typeof t.pipeline.startWorkers> | undefined;
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => t.engine.requests.some((r) => r.email === 'user150@example.com'));
      await first.kill(); // the process holding page 1 dies: its lock is not renewed any more
      t.engine.script('user150@example.com', { kind: 'result' });
      second = t.pipeline.startWorkers();
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 400, failed: 100, written: 300 });
      const failed: string[] = [];
      for await (const row of t.pipeline.report(run.id)) if (row.outcome === 'failed') failed.push(row.error ?? '');
      expect(failed).toHaveLength(100);
      expect(failed[0]).toMatch(/stalled more than allowable limit/);
    } finally {
      await second?.close();
      await t.done();
    }
  }, 150_000);

  it('a chunk job lost from the queue is pulled again from its recorded cursor; every contact is written once', async () => {
    const t = await setup({ size: 600, pageSize: 100 }, { latencyMs: 20 }, { chunkConcurrency: 1, verifyConcurrency: 5, reconcileIntervalMs: 300 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => (await t.pipeline.store.progress(run.id)).pages === 6);
      const lost = await t.pipeline.queues.chunks.getJob(jobIds.chunk(run.id, 4));
      expect(['waiting', 'prioritized']).toContain(await lost!.getState()); // chunks carry their lane's priority (fair shares)
      await lost!.remove(); // as a Redis that lost its last second would
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 600, written: 600, failed: 0 });
      expect(t.source.writeCounts.size).toBe(600);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it('paging whose job was lost gets a new pager from the saved cursor', async () => {
    // Two pages outstanding at most: the pager keeps waiting (a delayed job) while chunks drain.
    const t = await setup({ size: 1000, pageSize: 100 }, { latencyMs: 20 }, { chunkConcurrency: 1, verifyConcurrency: 5, maxOutstandingPages: 2, reconcileIntervalMs: 300 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      let removed = 0;
      await waitFor(async () => {
        for (const job of await t.pipeline.queues.runs.getJobs(['delayed', 'waiting'])) {
          if (job.name === 'page' && (job.data as { runId: string }).runId === run.id) {
            await job.remove().catch(() => undefined);
            removed++;
          }
        }
        return removed > 0;
      });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 1000, written: 1000, failed: 0 });
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      expect(t.source.writeCounts.size).toBe(1000);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);
});
