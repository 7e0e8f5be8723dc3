import { setup, waitFor, waitForStatus } from './helpers';
import { EngineClient } from '@verify-hub/core';
import { metricsRegistry } from '@verify-hub/sync-jobs';
import { InProcessFakeVerifier } from '../fakes/source';

describe('sync pipeline on BullMQ + Redis', () => {
  it('runs 20,000 contacts to completion with exact counters, then a re-run makes 0 engine calls and 0 writes', async () => {
    // The engine answers in-process here (the HTTP client is exercised by the tests below): this
    // one measures the pipeline's bookkeeping over 20,000 contacts, not loopback HTTP on a busy machine.
    const engine = new InProcessFakeVerifier();
    const t = await setup({ size: 20_000, pageSize: 100, invalidEvery: 10, riskyEvery: 7 }, {}, { chunkConcurrency: 8, verifyConcurrency: 20 });
    const workers = t.pipeline.startWorkers({ verifier: engine });
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toEqual({ pulled: 20_000, skipped: 0, cached: 0, verified: 20_000, rejected: 0, unknown: 0, written: 20_000, unchanged: 0, failed: 0, credits: 20_000 });
      expect(engine.calls).toBe(20_000);
      expect(t.source.writeCounts.size).toBe(20_000);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      expect(t.source.storedFor('c9')?.ev_risk).toBe('invalid'); // every 10th is invalid.*
      expect(t.source.storedFor('c6')?.ev_risk).toBe('risky');
      expect(t.source.schemaCalls).toBe(1);

      const rows: string[] = [];
      for await (const row of t.pipeline.report(run.id)) rows.push(row.contactId);
      expect(new Set(rows).size).toBe(20_000);

      const again = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const second = await waitForStatus(t.pipeline, again.id, ['completed', 'failed', 'paused']);
      expect(second.counters).toMatchObject({ pulled: 20_000, cached: 20_000, verified: 0, written: 0, unchanged: 20_000, credits: 0 });
      expect(engine.calls).toBe(20_000); // no new engine call
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true); // no new write

      const metrics = await metricsRegistry.metrics();
      expect(metrics).toMatch(/verify_hub_contacts_processed_total\{platform="fake"\} \d+/);
      expect(metrics).toMatch(/verify_hub_queue_depth\{queue="chunks",state="waiting"\}/);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 120_000);

  it('a worker closed mid-run and restarted finishes with every contact written exactly once', async () => {
    const t = await setup({ size: 3_000, pageSize: 50 }, { latencyMs: 5 }, { chunkConcurrency: 2, verifyConcurrency: 5 });
    let workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => (await t.pipeline.store.progress(run.id)).pagesDone >= 5);
      await workers.close(); // stops mid-run: active jobs finish, the rest stay queued
      const halfway = await t.pipeline.get(run.id);
      expect(halfway!.status).toBe('running');
      expect(halfway!.counters.written).toBeLessThan(3_000);

      workers = t.pipeline.startWorkers();
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 3_000, verified: 3_000, written: 3_000, failed: 0, credits: 3_000 });
      expect(t.source.writeCounts.size).toBe(3_000);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      expect(t.engine.requests.length).toBe(3_000);

      // A page enqueued again (the pager crashed between enqueueing it and saving the cursor) counts once.
      await t.pipeline.queues.chunks.add('chunk', { runId: run.id, pageIndex: 3, contacts: (await t.source.pull({ kind: 'all' }, '150')).contacts }, { jobId: `${run.id}-p3-again` });
      await waitFor(async () => (await t.pipeline.queues.chunks.getJobCounts('completed')).completed >= 61);
      expect((await t.pipeline.get(run.id))!.counters).toMatchObject({ pulled: 3_000, written: 3_000 });
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
    // 3,000 contacts through two worker starts: about 10 s idle; a CI machine running 25 processes on
    // 2 cores took over 60 s, so the bound is the run's own waits (60 s each), not the default.
  }, 150_000);

  it('a 429 storm finishes with zero failed jobs and no attempt spent', async () => {
    const t = await setup({ size: 300, pageSize: 50 }, { ratePerSecond: 60 }, { chunkConcurrency: 4, verifyConcurrency: 10 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      const limited = t.engine.requests.length - 300;
      expect(limited).toBeGreaterThan(0); // there was a storm
      expect(done.counters).toMatchObject({ verified: 300, written: 300, failed: 0, credits: 300 });
      expect(t.engine.billed).toBe(300); // nothing bought twice
      expect((await t.pipeline.queues.chunks.getJobCounts('failed')).failed).toBe(0);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it('quota pauses the run with a clear reason; resume finishes it without buying anything twice', async () => {
    const t = await setup({ size: 1_000, pageSize: 100 }, { quota: 400 }, { chunkConcurrency: 2, verifyConcurrency: 5 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(/quota/);
      expect(paused.statusReason).toContain(`verify-hub runs resume ${run.id}`);
      expect(paused.resumeAt).toBeGreaterThan(Date.now());
      expect(t.engine.billed).toBe(400);

      t.engine.options.quota = undefined; // a credit pack was bought
      await t.pipeline.resume(run.id);
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 1_000, verified: 1_000, written: 1_000, failed: 0, credits: 1_000 });
      expect(t.engine.billed).toBe(1_000);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      await expect(t.pipeline.resume(run.id)).rejects.toThrow(/only a paused run/);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000); // each wait names the run's state when it gives up (60 s), before the test's own limit

  it('a chunk that saw its run paused but finds it resumed goes back to work (its page is counted, no reconciler needed)', async () => {
    const t = await setup({ size: 400, pageSize: 100 }, { quota: 150 }, { chunkConcurrency: 1, verifyConcurrency: 5 });
    const { store } = t.pipeline;
    // The quota's pause is resumed at once, between the chunk's pause and its parking (a user quick on
    // "Resume", or a top-up): the chunk then finds the run running, not paused.
    const transition = store.transition.bind(store);
    let resumed: Promise<unknown> | undefined;
    store.transition = async (...args: Parameters<typeof store.transition>) => {
      const moved = await transition(...args);
      if (moved && args[1] === 'paused' && !resumed) {
        t.engine.options.quota = undefined;
        resumed = t.pipeline.resume(args[0]);
        await resumed;
      }
      return moved;
    };
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      // Well under the reconciler's 60 s: a chunk completed without counting its page would wait for it.
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed'], 30_000);
      expect(resumed).toBeDefined();
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 400, verified: 400, written: 400, failed: 0, credits: 400 });
      expect(t.engine.billed).toBe(400);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it('a quota that resets soon resumes the run by itself', async () => {
    const t = await setup({ size: 300, pageSize: 100 }, {}, { chunkConcurrency: 1, verifyConcurrency: 1 });
    t.engine.script('user150@example.com', { kind: 'quota', resetInMs: 500, form: 'epoch-ms' }, { kind: 'result', risk: 'safe' });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed']);
      expect(done.counters).toMatchObject({ pulled: 300, verified: 300, written: 300, credits: 300 });
      expect(t.engine.billed).toBe(300);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 30_000);

  it('stops at the credit cap and resumes with a higher one', async () => {
    const t = await setup({ size: 1_000, pageSize: 100 }, {}, { chunkConcurrency: 3, verifyConcurrency: 10 });
    const workers = t.pipeline.startWorkers();
    try {
      const estimate = await t.pipeline.estimate({ platform: 'fake', scope: 'all' });
      expect(estimate).toEqual({ contacts: 1_000, unique: 1_000, cached: 0, estimatedCredits: 1_000 });
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all', options: { maxCredits: 250 } });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(/^stopped at the credit limit of 250 \(250 credits spent\)/);
      await waitFor(async () => (await t.pipeline.queues.chunks.getJobCounts('active')).active === 0);
      expect(t.engine.billed).toBe(250);
      await t.pipeline.resume(run.id, { maxCredits: 5_000 });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ verified: 1_000, written: 1_000, credits: 1_000 });
      expect(t.engine.billed).toBe(1_000);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it('auth failure pauses the run and names the key setting, never the key', async () => {
    const t = await setup({ size: 200, pageSize: 100 });
    const workers = t.pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: t.engine.url, apiKey: 'a-revoked-key' }) });
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(/ENGINE_API_KEY/);
      expect(JSON.stringify(paused)).not.toContain('a-revoked-key');
      expect(paused.counters.written).toBe(0);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 30_000);

  it('cancel stops a run and parked chunks are dropped', async () => {
    const t = await setup({ size: 500, pageSize: 100 }, { quota: 50 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitForStatus(t.pipeline, run.id, ['paused']);
      const cancelled = await t.pipeline.cancel(run.id);
      expect(cancelled.status).toBe('cancelled');
      await expect(t.pipeline.cancel(run.id)).rejects.toThrow(/only queued, running or paused/);
      await waitFor(async () => (await t.pipeline.queues.chunks.getJobCounts('active')).active === 0);
      expect((await t.pipeline.queues.chunks.getJobCounts('delayed')).delayed).toBe(0);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 30_000);

  it('rejects bad start requests naming the field', async () => {
    const t = await setup({ size: 1 });
    try {
      await expect(t.pipeline.start({ platform: 'nope', scope: 'all' })).rejects.toThrow(/platform: no connector registered for "nope"/);
      await expect(t.pipeline.start({ platform: 'fake', scope: '' })).rejects.toThrow(/scope: is required/);
      await expect(t.pipeline.start({ platform: 'fake', scope: 'all', options: { maxCredits: -1 } })).rejects.toThrow(/options.maxCredits/);
      await expect(t.pipeline.start({ platform: 'fake', scope: 'all', connectionId: 'x' })).rejects.toThrow(/connectionId/);
    } finally {
      await t.done();
    }
  });
});
