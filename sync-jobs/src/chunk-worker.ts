import { DelayedError, Worker, type Job } from 'bullmq';
import { normalizeEmail, type Verifier } from '@verify-hub/core';
import { processChunk, type ChunkOutcome } from './chunk-processor';
import type { ReportRow } from './contracts';
import { syncMetrics } from './metrics';
import type { PipelineContext } from './pipeline-context';
import { lookedNotes } from './looked-notes';
import { jobIds, type ChunkJobData } from './queues';
import { unknownReasons, type RecheckWorker } from './recheck-worker';
import { permanentAsUnrecoverable, platformStop, rateWaitOf, type RunPauses } from './run-pauses';
import { writeOptionsOf } from './single-writer-run';
import { chunkWriteProgress } from './write-progress';

/** `chunk` jobs: one page of a run verified, written back and counted once. */
export class ChunkWorker {
  constructor(private readonly ctx: PipelineContext, private readonly pauses: RunPauses, private readonly rechecks: RecheckWorker) {}

  async handle(job: Job<ChunkJobData>, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    const { store, settings } = this.ctx;
    const data = job.data;
    if (data.lane) await this.ctx.lanes.started(data.lane, String(job.id));
    const run = await store.get(data.runId);
    if (!run || run.status === 'cancelled' || run.status === 'failed' || run.status === 'completed') return;
    if (run.status === 'paused') return this.pauses.park(job, token);
    if (await store.isPageDone(data.runId, data.pageIndex)) return;
    const epoch = await store.resumeEpoch(data.runId);
    const connector = await this.ctx.runConnector(run);
    if (!connector) return;
    const unique = new Set(data.contacts.map((c) => normalizeEmail(c.email)).filter((n) => n.ok).map((n) => (n as { normalized: string }).normalized));
    const carriedBillable = (data.carry ?? []).filter((v) => v.billable).length;
    const cap = run.options.maxCredits;
    // Under a cap, the chunk reserves what it may buy (its page's own reservation, replaced by a replay).
    const want = Math.max(0, unique.size - carriedBillable);
    const grant = cap === undefined ? want : (await store.reserveCredits(data.runId, data.pageIndex, want, cap)).grant;
    // A write begun by an earlier attempt (killed mid-write) may have landed: compare with the platform's values.
    let writeBegunBefore = false;
    const verifiedAt = data.verifiedAt ?? Date.now();
    const noteLooked = lookedNotes(store, data.runId);
    let outcome: ChunkOutcome;
    try {
      outcome = await processChunk(
        {
          contacts: data.contacts,
          connectionId: run.connectionId,
          // A replay of this chunk finds what an earlier attempt's write started (a bulk job) and resumes it.
          writeOptions: { ...writeOptionsOf(run), progress: chunkWriteProgress(this.ctx.redis, store.writeProgress(data.runId), data.pageIndex) },
          creditCap: cap === undefined ? undefined : grant,
          purchaseScope: data.runId,
          prior: data.carry,
          maxRateLimitWaitMs: 0,
          whenStopped: 'return',
          collectReport: true,
          rereadBeforeWrite: () => writeBegunBefore,
          onLooked: (addresses) => noteLooked(data.pageIndex, addresses),
          now: new Date(verifiedAt),
          // The results go with the job before anything is written: a replay writes exactly these values
          // (an unknown result is not cached, and a new one would carry another time: a second write).
          beforeWrite: async (results) => {
            await job.updateData({ ...data, carry: results, verifiedAt });
            writeBegunBefore = await store.markWriteStarted(data.runId, data.pageIndex);
          },
        },
        { connector, verifier, ...this.ctx.runCache(run, { oneAnswerPerAddress: true }), concurrency: settings.verifyConcurrency, writeBatchSize: this.ctx.registry.writeBatchSize(run.platform) },
      );
    } catch (error) {
      if (cap !== undefined) await store.releaseCredits(data.runId, data.pageIndex);
      const stop = platformStop(error);
      if (!stop) {
        this.ctx.runLog(run).warn({ pageIndex: data.pageIndex, attempt: job.attemptsMade + 1, err: error }, 'chunk attempt failed');
        throw permanentAsUnrecoverable(error);
      }
      // What was verified before the platform refused is in the cache: the retry buys nothing again.
      if (stop.reason === 'rate') {
        await worker.rateLimit(stop.waitMs);
        throw Worker.RateLimitError();
      }
      await this.pauses.pauseOrRetry(data.runId, stop.stopped, epoch);
      return this.pauses.park(job, token);
    }
    if (outcome.status === 'stopped') {
      // What this attempt bought is already in the run's credits (counted as it was cached): its reservation goes.
      if (cap !== undefined) await store.releaseCredits(data.runId, data.pageIndex);
      await job.updateData({ ...data, carry: outcome.results, verifiedAt });
      const stop = outcome.stopped!;
      const rateWait = rateWaitOf(stop);
      if (rateWait !== undefined) {
        // Every worker of the queue waits for the reset; the job goes back without spending an attempt.
        await worker.rateLimit(rateWait);
        throw Worker.RateLimitError();
      }
      if (stop.reason === 'credit_cap') return this.waitForCredits(job, token);
      await this.pauses.pauseOrRetry(data.runId, stop, epoch);
      return this.pauses.park(job, token);
    }
    // Re-checks first, with deterministic ids: a chunk retried after a crash adds them once.
    if (outcome.unknownContacts.length && settings.recheckDelaysMs.length) {
      const reasons = unknownReasons(outcome.report);
      await this.rechecks.enqueue({ platform: run.platform, connectionId: run.connectionId, runId: run.id, attempt: 0, contacts: outcome.unknownContacts, writeOptions: writeOptionsOf(run), reasons }, jobIds.chunk(run.id, data.pageIndex));
    }
    // Credits are not added here: every purchase was counted as it was cached (runCache). Counting releases the page's reservation.
    await store.countPage(data.runId, data.pageIndex, { ...outcome.counters, credits: 0 }, outcome.report);
    await this.ctx.completeIfDone(data.runId);
  }

  /**
   * A chunk stopped by the run's credit cap (it kept what it bought with the job, and gave back its
   * reservation). While other chunks hold reservations, the credits they do not spend (cached or
   * duplicate addresses, unknown results) come back to the cap: the chunk waits and asks again
   * instead of pausing the run with credits left. Once nothing is held and the cap (read again: a
   * resume may have raised it) is spent, the run pauses at its limit and the chunk parks until a resume.
   */
  private async waitForCredits(job: Job<ChunkJobData>, token: string | undefined): Promise<void> {
    const { store, settings } = this.ctx;
    const runId = job.data.runId;
    const cap = (await store.get(runId))?.options.maxCredits;
    const { spent, reserved } = await store.creditState(runId);
    if (cap !== undefined && reserved === 0 && spent >= cap) {
      await this.pauses.pauseAtCreditLimit(runId, cap);
      return this.pauses.park(job, token);
    }
    // Held by others (or given back meanwhile): ask again shortly, no attempt spent.
    await job.moveToDelayed(Date.now() + Math.round(settings.creditWaitMs * (0.5 + Math.random())), token);
    throw new DelayedError();
  }

  /**
   * A chunk job failed. Only a failure for good counts (attempts used up, unrecoverable, stalled past
   * `maxStalledCount`: its state is then `failed`); one that will be retried changes nothing. A
   * process that dies before counting leaves it to the reconciler.
   */
  async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || job.name !== 'chunk') return;
    syncMetrics.errors.inc({ kind: 'chunk_failed' });
    if ((await job.getState()) !== 'failed') return;
    const data = job.data as ChunkJobData;
    (await this.ctx.runLogById(data.runId)).warn({ pageIndex: data.pageIndex, jobId: job.id, err: error }, 'chunk failed for good: its contacts are counted as failed');
    await this.countFailed(data, error.message);
  }

  /** A page whose chunk stopped for good is counted with every contact failed, so the run can still finish. */
  async countFailed(data: ChunkJobData, reason: string): Promise<void> {
    const rows: ReportRow[] = data.contacts.map((c) => ({ contactId: c.id, email: c.email, outcome: 'failed', error: reason }));
    await this.ctx.store.countPage(data.runId, data.pageIndex, { failed: data.contacts.length }, rows);
    await this.ctx.completeIfDone(data.runId);
  }
}
