import { parseScope, type Connector, type SingleWriter, type WriteOptions } from '@verify-hub/core';
import type { RunRecord } from './contracts';
import { runInProcess } from './in-process-executor';
import { lookedNotes } from './looked-notes';
import type { PipelineContext } from './pipeline-context';
import { RunLease } from './run-lease';
import type { RunPauses } from './run-pauses';

/**
 * A connector that writes one output through one instance (it declares core's `singleWriter`: a file,
 * rows in order, then a summary) cannot be shared by chunk jobs on many workers: its whole run is done
 * in one job by the in-process executor, over the same chunk function, cache and engine limiter. Pages
 * are recorded as they finish (counted once). A pause or cancel is noticed between pages: the job
 * drops its partial output and ends. Resuming (or a retry after a crash) runs it again from the start
 * and rewrites the file: pages counted before are not counted again and the cache has every result
 * bought, so nothing is lost, counted twice or bought twice. A lease keeps a resumed run from having
 * two writers while the job it had before the pause is still winding down.
 */
export class SingleWriterRun {
  constructor(private readonly ctx: PipelineContext, private readonly pauses: RunPauses) {}

  /** Runs the whole run in this job; 'busy' when another job still holds the run's writer lease (ask again later). */
  async run(run: RunRecord, connector: Connector & { singleWriter: SingleWriter }): Promise<'done' | 'busy'> {
    const lease = await RunLease.acquire(this.ctx.redis, this.ctx.keys.writer(run.id));
    if (!lease) return 'busy';
    connector.singleWriter.bindRun?.(run.id); // a re-check of a file names its new outputs after its run
    try {
      await this.write(run, connector, connector.singleWriter);
    } catch (error) {
      await connector.singleWriter.abort().catch(() => undefined);
      throw error;
    } finally {
      await lease.release();
    }
    return 'done';
  }

  private async write(run: RunRecord, connector: Connector, writer: SingleWriter): Promise<void> {
    const { store, settings } = this.ctx;
    const abort = new AbortController();
    // What earlier attempts spent counts against the cap (pages they counted cost nothing now: cache).
    const spent = (await store.get(run.id))?.counters.credits ?? 0;
    const cap = run.options.maxCredits;
    let capReached = false;
    const result = await runInProcess({
      connector,
      scope: parseScope(run.scope),
      verifier: this.ctx.workerVerifier!,
      cache: this.ctx.cache.withFreshness(run.options.freshnessDays ?? settings.freshnessDays),
      writeOptions: writeOptionsOf(run),
      creditCap: cap === undefined ? undefined : Math.max(0, cap - spent),
      purchaseScope: run.id,
      verifyConcurrency: settings.verifyConcurrency,
      writeBatchSize: this.ctx.registry.writeBatchSize(run.platform),
      collectReport: true,
      signal: abort.signal,
      onPageLooked: lookedNotes(store, run.id),
      onPage: async (page, outcome) => {
        if (outcome.stopped?.reason === 'credit_cap' || capReached) {
          // The credit limit is spent: this page's rows past it are not counted (a resume with a
          // higher limit verifies them); what it bought is. The run pauses below.
          capReached = true;
          abort.abort();
          if (outcome.counters.credits) await store.incrementCounters(run.id, { credits: outcome.counters.credits });
          return;
        }
        if (abort.signal.aborted && outcome.stopped?.reason === 'aborted') {
          // Cut short by the pause: its rows (the rest marked not_checked) are not counted; the next
          // attempt verifies them again from the cache. What it bought is counted now.
          if (outcome.counters.credits) await store.incrementCounters(run.id, { credits: outcome.counters.credits });
          return;
        }
        const counted = await store.countPage(run.id, page.index, { ...outcome.counters, pulled: page.contacts, skipped: page.skipped, unreadable: page.unreadable }, outcome.report);
        if (counted) await store.setFields(run.id, { pages: page.index + 1 });
        if ((await store.progress(run.id)).status !== 'running') abort.abort();
      },
    });
    if (abort.signal.aborted) {
      // Paused or cancelled meanwhile: the partial output goes; a resume writes it again whole.
      await writer.abort();
      if (capReached) await this.pauses.pauseAtCreditLimit(run.id, cap!);
      return;
    }
    const credits = (await store.get(run.id))?.counters.credits ?? result.counters.credits;
    await writer.finish({ credits });
    await store.setFields(run.id, { pages: result.pages, pagingDone: '1' });
    await this.ctx.completeIfDone(run.id);
    if (result.stopped) await store.setFields(run.id, { statusReason: `stopped early (${result.stopped.message}): the rows not verified are marked unknown (not_checked)` });
  }
}

/** Whether the connector declared the single-writer capability. */
export function isSingleWriter(connector: Connector): connector is Connector & { singleWriter: SingleWriter } {
  return connector.singleWriter !== undefined;
}

export function writeOptionsOf(run: RunRecord): WriteOptions {
  return { dryRun: run.options.dryRun, actions: run.options.actions };
}
