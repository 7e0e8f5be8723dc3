import { completionTimes, eventLatencies, fairStack, percentile, startRun } from './fair-shares-harness';
import { waitFor, waitForStatus } from './helpers';

/**
 * Issue 22 item 3: runs of different connections share the engine round-robin (fair-lanes.ts), and
 * webhook events go ahead of bulk chunks in the shared engine limiter (its interactive lane). Real
 * Redis, a fake engine with a rate limit; bounds are ratios or generous, for a loaded 2-core machine.
 */
describe('fair shares between connections', () => {
  it('a small run started behind a big one finishes long before it; two equal runs finish close together', async () => {
    const stack = await fairStack({ engineRate: 400 });
    try {
      await stack.addConnection('big', 3000);
      await stack.addConnection('small', 200);
      stack.startWorkers();
      const big = await startRun(stack.pipeline, 'big');
      // The big run's backlog is queued first (its pager keeps maxOutstandingPages = 20 chunks waiting):
      // with a FIFO queue the small run would wait behind all of them.
      await waitFor(async () => (await stack.pipeline.store.progress(big.id)).pages >= 15);
      const small = await startRun(stack.pipeline, 'small');
      const [bigMs, smallMs] = await completionTimes(stack.pipeline, [big, small]);
      // Alone, 3,000 contacts at 400/s take 7.5 s and 200 take 0.5 s; sharing, the small run's 2 chunks
      // go ahead of the big run's backlog instead of after its 2,000 waiting contacts (5 s).
      expect({ smallMs, bigMs, ratio: smallMs! / bigMs! }).toEqual({ smallMs, bigMs, ratio: expect.any(Number) });
      expect(smallMs! / bigMs!).toBeLessThan(0.4);
      expect(stack.sources.get('small')!.writeCounts.size).toBe(200);
      expect(stack.sources.get('big')!.writeCounts.size).toBe(3000);

      await stack.addConnection('left', 1500);
      await stack.addConnection('right', 1500);
      const [leftMs, rightMs] = await completionTimes(stack.pipeline, [await startRun(stack.pipeline, 'left'), await startRun(stack.pipeline, 'right')]);
      expect(Math.max(leftMs!, rightMs!) / Math.min(leftMs!, rightMs!)).toBeLessThan(1.5);
    } finally {
      await stack.done();
    }
  }, 120_000);

  it('a webhook event is written back within 1.5 s (p95) while a 100,000-contact run is in progress', async () => {
    // Two worker sets (two processes' worth of bulk chunks: 80 verifications waiting on the limiter).
    const stack = await fairStack({ engineRate: 100 });
    try {
      await stack.addConnection('bulk', 100_000);
      await stack.addConnection('hooks', 1000);
      stack.startWorkers();
      stack.startWorkers();
      const bulk = await startRun(stack.pipeline, 'bulk');
      await waitFor(async () => ((await stack.pipeline.get(bulk.id))?.counters.written ?? 0) >= 200);
      const latencies = await eventLatencies(stack, 'hooks', 20, 150);
      const bulkRun = (await stack.pipeline.get(bulk.id))!;
      expect(bulkRun.status).toBe('running'); // measured while the bulk run was still going
      expect({ p95: percentile(latencies, 95), latencies }).toEqual({ p95: expect.any(Number), latencies });
      expect(percentile(latencies, 95)).toBeLessThan(1500);
      await stack.pipeline.cancel(bulk.id);
    } finally {
      await stack.done();
    }
  }, 120_000);

  it('workers killed mid-run while two connections share the queue: both runs complete, every contact written once', async () => {
    const stack = await fairStack({ engineRate: 300, pipeline: { lockDurationMs: 2000, stalledIntervalMs: 1000 } });
    try {
      const sources = [await stack.addConnection('one', 1500), await stack.addConnection('two', 1500)];
      const first = stack.pipeline.startWorkers();
      const runs = [await startRun(stack.pipeline, 'one'), await startRun(stack.pipeline, 'two')];
      await waitFor(async () => {
        const done = await Promise.all(runs.map(async (r) => (await stack.pipeline.store.progress(r.id)).pagesDone));
        return done.every((n) => n >= 3);
      });
      await first.kill(); // its active chunks stay locked until the lock expires, then are taken over
      stack.startWorkers();
      for (const run of runs) {
        const finished = await waitForStatus(stack.pipeline, run.id, ['completed', 'failed'], 90_000);
        expect(finished.status).toBe('completed');
        expect(finished.counters.written + finished.counters.unchanged).toBe(1500);
      }
      for (const source of sources) {
        expect(source.writeCounts.size).toBe(1500);
        expect([...source.writeCounts.values()].filter((n) => n !== 1)).toEqual([]);
      }
    } finally {
      await stack.done();
    }
  }, 120_000);
});
