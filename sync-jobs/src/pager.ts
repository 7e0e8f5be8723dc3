import { parseScope, type Connector, type Contact, type Page } from '@verify-hub/core';
import { FairLanes } from './fair-lanes';
import type { ReportRow, RunRecord } from './contracts';
import type { PipelineContext } from './pipeline-context';
import { jobIds, type ChunkJobData, type PageJobData } from './queues';
import { permanentAsUnrecoverable, platformStop, type RunPauses } from './run-pauses';
import { isSingleWriter, type SingleWriterRun } from './single-writer-run';

/**
 * Pages a run's source (`page` jobs on the `runs` queue): one chunk job per page, the cursor saved
 * after each, at most `pagesPerPagerJob` pages per job and `maxOutstandingPages` enqueued but not done.
 */
export class Pager {
  constructor(private readonly ctx: PipelineContext, private readonly pauses: RunPauses, private readonly singleWriterRun: SingleWriterRun) {}

  /**
   * Hands paging on to a new `page` job. Its id carries a per-run sequence number (a job cannot
   * re-add its own id); a pager that crashes is re-run as the same job, from the saved cursor.
   */
  async enqueue(runId: string, pageIndex: number, delay = 0): Promise<void> {
    const { queues, store } = this.ctx;
    const data: PageJobData = { runId };
    const seq = await store.nextPagerSeq(runId);
    const jobId = jobIds.pager(runId, pageIndex, seq);
    await queues.runs.add('page', data, { ...this.ctx.jobDefaults(), jobId, delay, removeOnComplete: true });
    // The reconciler looks here to tell a run whose paging has a job from one whose paging was lost.
    await store.setFields(runId, { pagerJob: jobId });
  }

  /** A `page` job: pages on; a platform's rate limit re-enqueues the pager after the wait, a quota or auth stop pauses the run. */
  async handle(runId: string): Promise<void> {
    const epoch = await this.ctx.store.resumeEpoch(runId);
    try {
      await this.page(runId);
    } catch (error) {
      const stop = platformStop(error);
      if (!stop) {
        (await this.ctx.runLogById(runId)).warn({ err: error }, 'paging attempt failed');
        throw permanentAsUnrecoverable(error);
      }
      if (stop.reason === 'rate') return this.enqueue(runId, (await this.ctx.store.progress(runId)).pages, stop.waitMs);
      // Refused with the credentials of before a resume (the user fixed them meanwhile): the resume
      // started its own pager, so this one stops instead of pausing the run again.
      if ((await this.ctx.store.resumeEpoch(runId)) !== epoch) return;
      await this.pauses.pauseFor(runId, stop.stopped);
    }
  }

  /** Pages the source from the saved cursor: one chunk job per page, the cursor saved after each. */
  private async page(runId: string): Promise<void> {
    const { store, settings } = this.ctx;
    const run = await store.get(runId);
    if (!run || (run.status !== 'queued' && run.status !== 'running')) return;
    if (run.status === 'queued') await store.transition(runId, 'running', ['queued']);
    // A run paused while queued is resumed to `running` without passing here as `queued`.
    if (!run.startedAt) await store.setFields(runId, { startedAt: new Date().toISOString() });
    const connector = await this.ctx.runConnector(run);
    if (!connector) return;
    const saved = await store.progress(runId);
    let { pages: pageIndex, cursor, pagesDone } = saved;
    if (saved.pagingDone) return void (await this.ctx.completeIfDone(runId));
    if (pageIndex === 0 && !run.options.dryRun && !run.scope.startsWith('recheck:')) {
      const schema = await connector.ensureSchema();
      if (schema.problems.length) {
        await this.ctx.finishAs(runId, 'failed', `the platform refused the fields verify-hub needs: ${schema.problems.join('; ')}`);
        return;
      }
    }
    if (isSingleWriter(connector)) {
      if ((await this.singleWriterRun.run(run, connector)) === 'busy') await this.enqueue(run.id, (await store.progress(run.id)).pages, 500);
      return;
    }
    for (let n = 0; n < settings.pagesPerPagerJob; n++) {
      if (pageIndex - pagesDone >= settings.maxOutstandingPages) {
        // Backpressure: wait for chunks to drain instead of filling Redis with pages.
        return this.enqueue(runId, pageIndex, 250);
      }
      // Paused (by a user, a quota...) or cancelled: paging stops here; `resume` enqueues a pager from the saved page.
      const status = (await store.progress(runId)).status;
      if (status !== 'running') return;
      const page = await this.pullPage(run, connector, cursor);
      // Where this page came from, so the reconciler can pull it again if its chunk job is ever lost.
      await store.savePageCursor(runId, pageIndex, cursor);
      if (page.contacts.length) await this.enqueueChunk(run, pageIndex, page.contacts);
      const skipped = Object.values(page.skipped ?? {}).reduce((a, b) => a + b, 0);
      // An empty page needs no chunk: it is counted done here.
      if (!page.contacts.length) await store.countPage(runId, pageIndex, {});
      // Another pager saved this page first (a pause and a quick resume started one): it carries on, this one stops.
      if (!(await store.savePage(runId, pageIndex, page.next, { pulled: page.contacts.length, skipped }))) return;
      pageIndex++;
      cursor = page.next;
      pagesDone = (await store.progress(runId)).pagesDone;
      if (cursor === undefined) return void (await this.ctx.completeIfDone(runId));
    }
    await this.enqueue(runId, pageIndex);
  }

  /** A page's chunk job, in its connection's fair-shares lane: its priority is the lane's count of waiting chunks. */
  private async enqueueChunk(run: RunRecord, pageIndex: number, contacts: Contact[]): Promise<void> {
    const jobId = jobIds.chunk(run.id, pageIndex);
    const lane = FairLanes.laneOf(run);
    const priority = await this.ctx.lanes.admit(lane, jobId);
    const data: ChunkJobData = { runId: run.id, pageIndex, contacts, lane };
    await this.ctx.queues.chunks.add('chunk', data, { ...this.ctx.jobDefaults(), jobId, priority });
  }

  private pullPage(run: RunRecord, connector: Connector, cursor: string | undefined): Promise<Page> {
    return run.scope.startsWith('recheck:') ? this.recheckPage(run.scope.slice('recheck:'.length), connector, cursor) : connector.pull(parseScope(run.scope), cursor);
  }

  /** Pulls page `pageIndex` of a run again from its recorded cursor and enqueues its chunk (the reconciler's repair). */
  async requeuePage(runId: string, pageIndex: number): Promise<boolean> {
    const { store, queues } = this.ctx;
    const run = await store.get(runId);
    const cursor = await store.pageCursor(runId, pageIndex);
    if (!run || cursor === null) return false;
    const connector = await this.ctx.runConnector(run);
    if (!connector || isSingleWriter(connector)) return false;
    const page = await this.pullPage(run, connector, cursor);
    const jobId = jobIds.chunk(runId, pageIndex);
    // A job under the same id (completed without counting) would make the add a no-op.
    await (await queues.chunks.getJob(jobId))?.remove().catch(() => undefined);
    if (page.contacts.length) await this.enqueueChunk(run, pageIndex, page.contacts);
    else await store.countPage(runId, pageIndex, {});
    return true;
  }

  /** The pages of a `recheck:<run>` run: the unknown rows of that run's report, fresh from the platform when it can. */
  private async recheckPage(sourceRunId: string, connector: Connector, cursor?: string): Promise<Page> {
    const start = Number(cursor ?? 0);
    const rows = await this.ctx.store.reportSlice(sourceRunId, start, 500);
    const unknown = rows.filter((r: ReportRow) => r.risk === 'unknown' && !r.erased);
    let contacts = unknown.map((r) => ({ id: r.contactId, email: r.email }));
    if (connector.pullByIds && contacts.length) contacts = await connector.pullByIds(contacts.map((c) => c.id));
    return { contacts, next: rows.length === 500 ? String(start + 500) : undefined };
  }
}
