import { AuthError, QuotaError, RateLimitError, TransientError, type ContactResult, type RateLimitInfo, type Page, type Scope, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { FakeSource } from '../fakes/source';
import { setup, waitForStatus } from './helpers';

/** Stand-ins for a connector's own errors (HubSpot's daily limit and 10-second window, a revoked token): core's neutral kinds. */
class PlatformDailyLimitError extends QuotaError {
  constructor(message: string, info: RateLimitInfo) {
    super(message, 'hubspot', info);
  }
}
class PlatformWindowError extends RateLimitError {
  constructor(message: string, info: RateLimitInfo) {
    super(message, 'hubspot', info);
  }
}
class PlatformAuthError extends AuthError {
  constructor(message: string) {
    super(message, 'refusing');
  }
}

class PlatformBusyError extends TransientError {
  constructor(message: string) {
    super(message, 'refusing');
  }
}

/** A fake source whose platform refuses some calls, once each. */
class RefusingSource extends FakeSource {
  refuseWriteNumber?: { at: number; error: () => Error };
  refusePullAt?: { cursor: string; error: () => Error };
  /** How many contacts each write call was given. */
  readonly writeSizes: number[] = [];
  private writes = 0;

  override async pull(scope: Scope, cursor?: string): Promise<Page> {
    if (this.refusePullAt && cursor === this.refusePullAt.cursor) {
      const error = this.refusePullAt.error();
      this.refusePullAt = undefined;
      throw error;
    }
    return super.pull(scope, cursor);
  }

  override async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
    this.writes++;
    this.writeSizes.push(results.length);
    if (this.refuseWriteNumber && this.writes === this.refuseWriteNumber.at) {
      const error = this.refuseWriteNumber.error();
      this.refuseWriteNumber = undefined;
      throw error;
    }
    return super.write(results, opts);
  }
}

async function setupRefusing(writeBatchSize?: number) {
  const t = await setup({ size: 600, pageSize: 100 }, {}, { chunkConcurrency: 1, verifyConcurrency: 5 });
  const source = new RefusingSource({ size: 600, pageSize: 100 });
  // The words for a refused token come from the platform's module, as registered with its connector.
  t.registry.register('refusing', () => source, { reconnectAdvice: 'reconnect Refusing CRM (`verify-hub refusing connect`)', writeBatchSize });
  return { ...t, source };
}

/** Runs `all` to its end: completed with all 600 written, no chunk job failed; cleans up. */
async function runsThroughWithoutFailedJobs(t: Awaited<ReturnType<typeof setupRefusing>>): Promise<void> {
  const workers = t.pipeline.startWorkers();
  try {
    const run = await t.pipeline.start({ platform: 'refusing', scope: 'all' });
    const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
    expect(done.status).toBe('completed');
    expect(done.counters).toMatchObject({ pulled: 600, written: 600, failed: 0 });
    expect(await t.pipeline.queues.chunks.getJobCounts('failed')).toEqual({ failed: 0 });
  } finally {
    await workers.close();
    await t.done();
  }
}

describe('platform limits and auth thrown by a connector', () => {
  it("a platform's daily limit on write pauses the run until the reset; it then finishes with every contact written once", async () => {
    const t = await setupRefusing();
    const resetAt = Date.now() + 1_500;
    t.source.refuseWriteNumber = { at: 2, error: () => new PlatformDailyLimitError('HubSpot daily limit reached for portal 42', { resetAt }) };
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'refusing', scope: 'all' });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toContain('HubSpot daily limit reached for portal 42');
      expect(paused.resumeAt).toBe(resetAt);
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed']);
      expect(done.counters).toMatchObject({ pulled: 600, written: 600, failed: 0 });
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      expect(t.source.writeCounts.size).toBe(600);
      // verified before the refusal, the page's addresses came from the cache: nothing bought twice
      expect(t.engine.billed).toBe(600);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it("a platform's rate window on write waits, spends no attempt, and loses nothing", async () => {
    const t = await setupRefusing();
    t.source.refuseWriteNumber = { at: 3, error: () => new PlatformWindowError('HubSpot ten-second limit', { resetAt: Date.now() + 300 }) };
    await runsThroughWithoutFailedJobs(t);
  }, 150_000);

  it("the host writes a page in the platform's batch size and tries a batch once more on its transient failure: the connector only sends", async () => {
    const t = await setupRefusing(30);
    t.source.refuseWriteNumber = { at: 2, error: () => new PlatformBusyError('Refusing CRM answered 503') };
    // Retried in the write layer: no chunk job failed for it.
    await runsThroughWithoutFailedJobs(t);
    // 100-contact pages in batches of at most 30 (30, 30, 30, 10 a page); the refused batch sent again once.
    expect(Math.max(...t.source.writeSizes)).toBe(30);
    expect(t.source.writeSizes.filter((size) => size === 10)).toHaveLength(6);
    expect(t.source.writeSizes).toHaveLength(6 * 4 + 1);
    expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
  }, 150_000);

  it('a revoked platform token while paging pauses the run with a reason that is not about the engine key', async () => {
    const t = await setupRefusing();
    t.source.refusePullAt = { cursor: '300', error: () => new PlatformAuthError('Refusing CRM rejected the access token of account 42') };
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'refusing', scope: 'all' });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toContain('Refusing CRM rejected the access token of account 42');
      expect(paused.statusReason).toContain('To fix: reconnect Refusing CRM (`verify-hub refusing connect`), then run `verify-hub runs resume');
      expect(paused.statusReason).not.toContain('ENGINE_API_KEY');
      await t.pipeline.resume(run.id);
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 600, written: 600 });
      expect(t.source.writeCounts.size).toBe(600);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);
});
