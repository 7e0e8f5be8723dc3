import { DelayedError, Worker, type Job } from 'bullmq';
import type { Verifier } from '@verify-hub/core';
import { processChunk } from './chunk-processor';
import type { ReportRow } from './contracts';
import type { PipelineContext } from './pipeline-context';
import { jobIds, type RecheckJobData } from './queues';
import { priorReason } from './run-breakdown';
import { rateWaitOf } from './run-pauses';

/** Re-checks of unknown results: `recheck` jobs on the `chunks` queue, each after its delay (recheckDelaysMs). */
export class RecheckWorker {
  constructor(private readonly ctx: PipelineContext) {}

  async enqueue(data: RecheckJobData, origin: string): Promise<void> {
    const { queues, settings } = this.ctx;
    await queues.chunks.add('recheck', data, { ...this.ctx.jobDefaults(), jobId: jobIds.recheck(origin, data.attempt), delay: settings.recheckDelaysMs[data.attempt]! });
  }

  async handle(job: Job<RecheckJobData>, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    const { store, settings } = this.ctx;
    const data = job.data;
    const connector = await this.ctx.connectorFor(data.platform, data.connectionId);
    let contacts = data.contacts;
    // The address may have changed since: read the contacts again where the platform allows it.
    if (connector.pullByIds) contacts = await connector.pullByIds(contacts.map((c) => c.id));
    if (contacts.length === 0) return;
    // A re-check of a run's contacts counts what it buys in that run's credits (re-checks are billed too).
    const cache = data.runId ? this.ctx.runCache({ id: data.runId, options: {} }) : { cache: this.ctx.cache };
    const outcome = await processChunk(
      // Unknown answers are never kept under an idempotency key, so a re-check under its run's scope asks afresh.
      { contacts, connectionId: data.connectionId, writeOptions: data.writeOptions, purchaseScope: data.runId ?? String(job.id), maxRateLimitWaitMs: 0, whenStopped: 'return', collectReport: Boolean(data.runId) },
      { connector, verifier, ...cache, concurrency: settings.verifyConcurrency, writeBatchSize: this.ctx.registry.writeBatchSize(data.platform) },
    );
    if (outcome.status === 'stopped') {
      const stop = outcome.stopped!;
      const rateWait = rateWaitOf(stop);
      if (rateWait !== undefined) {
        await worker.rateLimit(rateWait);
        throw Worker.RateLimitError();
      }
      // Quota or auth: try again when the quota resets (or in an hour).
      await job.moveToDelayed(stop.resumeAt ?? Date.now() + 3_600_000, token);
      throw new DelayedError();
    }
    if (data.runId && outcome.report.length) await store.appendReport(data.runId, outcome.report.map((r) => ({ ...r, outcome: `recheck_${r.outcome}` })), data.reasons);
    const next = data.attempt + 1;
    if (outcome.unknownContacts.length && next < settings.recheckDelaysMs.length) {
      const reasons = data.runId ? unknownReasons(outcome.report) : undefined;
      await this.enqueue({ ...data, attempt: next, contacts: outcome.unknownContacts, reasons }, String(job.id).replace(/-r\d+$/, ''));
    }
  }
}

/** The reasons of the unknown results among report rows, by contact id (carried by re-check jobs for the breakdown; `failed:` when the write failed). */
export function unknownReasons(rows: readonly ReportRow[]): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const row of rows) {
    const reason = row.risk === 'unknown' ? priorReason(row) : undefined;
    if (reason) reasons[row.contactId] = reason;
  }
  return reasons;
}
