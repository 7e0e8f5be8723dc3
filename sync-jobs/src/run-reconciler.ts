import { runScript } from '@verify-hub/core';
import type { Job, Queue } from 'bullmq';
import type { Logger } from '@verify-hub/core';
import type { Keys } from './keys';
import { syncMetrics } from './metrics';
import { jobIds, type ChunkJobData } from './queues';
import type { Redis } from './redis';
import type { RunStore } from './run-store';

/** Job states in which a job will still run by itself (a stalled job is `active` until a worker takes it back). */
const ALIVE = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** What the reconciler asks the pipeline to do; each step is safe to repeat (page counts and job ids are idempotent). */
export interface RunRepairs {
  /** Counts a page whose chunk job stopped for good: every contact failed with `reason`. */
  countFailedChunk(data: ChunkJobData, reason: string): Promise<void>;
  /** Pulls page `pageIndex` again from its recorded cursor and enqueues its chunk; false when it cannot. */
  requeuePage(runId: string, pageIndex: number): Promise<boolean>;
  /** Hands paging on from `pageIndex` (the saved cursor) to a new `page` job. */
  enqueuePager(runId: string, pageIndex: number): Promise<void>;
  failRun(runId: string, reason: string): Promise<void>;
  completeIfDone(runId: string): Promise<void>;
}

export interface ReconcilerDeps {
  redis: Redis;
  keys: Keys;
  store: RunStore;
  queues: { runs: Queue; chunks: Queue };
  repairs: RunRepairs;
  log: Logger;
}

/**
 * Makes sure every queued or running run is moved on by some job. Counting a page and ending a run
 * happen in job handlers and `failed` listeners, and a process can die between any two steps (or
 * Redis can lose its last second), so a worker also checks, on start and then periodically:
 * - a page recorded but not counted whose chunk job failed for good (stalled past the limit,
 *   attempts used up, unrecoverable) while no process was there to count it: counted, its contacts
 *   failed with the job's reason;
 * - such a page whose chunk job no longer exists (or completed without counting): pulled again from
 *   its recorded cursor and enqueued under the same job id;
 * - paging not done and no live `page` job: a new one from the saved cursor (a pager that failed for
 *   good fails the run, saying why);
 * - credits reserved for a page whose chunk job is not running (killed and not replayed yet, failed,
 *   gone): released, so what the run may still spend is not lowered by a chunk that will never spend it;
 * - every page counted and paging done: the run completes.
 * One worker reconciles at a time (a Redis lease), and every repair is idempotent, so a repair that
 * races a job finishing the same thing changes nothing twice.
 */
export class RunReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  /** Reconciles every queued or running run; false when another worker holds the lease. */
  async reconcileAll(leaseMs = 30_000): Promise<boolean> {
    const { redis, keys, store, log } = this.deps;
    const lease = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    if ((await redis.set(keys.reconcileLock(), lease, 'PX', leaseMs, 'NX')) !== 'OK') return false;
    try {
      const runs = [...(await store.list({ status: 'running', limit: 1000 })), ...(await store.list({ status: 'queued', limit: 1000 }))];
      for (const run of runs) {
        try {
          await this.reconcileRun(run.id);
        } catch (error) {
          log.warn({ runId: run.id, err: (error as Error).message }, 'reconciling a run failed; trying again at the next round');
        }
      }
      return true;
    } finally {
      // Released only if still ours (a slow round may have outlived its lease).
      await runScript(redis, `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`, 1, keys.reconcileLock(), lease);
    }
  }

  async reconcileRun(runId: string): Promise<void> {
    const { store, queues, repairs, log } = this.deps;
    const progress = await store.progress(runId);
    if (progress.status !== 'running' && progress.status !== 'queued') return;
    await this.releaseLostReservations(runId);
    if (progress.pagesDone < progress.pages) {
      const done = await store.donePages(runId);
      for (let page = 0; page < progress.pages; page++) {
        if (done.has(page)) continue;
        const id = jobIds.chunk(runId, page);
        const job = await queues.chunks.getJob(id);
        const state = job ? await job.getState() : 'missing';
        if (ALIVE.has(state)) continue;
        if (state === 'failed' && job) {
          // Read again: the job may have failed after the first read, which then has no reason yet.
          const failed = (await queues.chunks.getJob(id)) ?? job;
          await repairs.countFailedChunk(failed.data as ChunkJobData, failed.failedReason || 'the chunk job stopped for good');
          syncMetrics.runsReconciled.inc({ action: 'page_failed' });
          log.warn({ runId, page }, 'reconciler: counted a chunk that stopped for good');
          continue;
        }
        // Gone (lost by Redis, or completed without being counted): pulled again from its cursor.
        if (await repairs.requeuePage(runId, page)) {
          syncMetrics.runsReconciled.inc({ action: 'page_requeued' });
          log.warn({ runId, page, state }, 'reconciler: enqueued a lost page again');
        } else {
          await repairs.failRun(runId, `page ${page} of the source was lost and cannot be read again; start the run again`);
          return;
        }
      }
    }
    if (!progress.pagingDone && !(await this.pagerAlive(runId))) {
      const pager = await this.pagerJob(runId);
      if (pager && (await pager.getState()) === 'failed') {
        await repairs.failRun(runId, `reading the source failed: ${pager.failedReason}`);
        return;
      }
      await repairs.enqueuePager(runId, (await store.progress(runId)).pages);
      syncMetrics.runsReconciled.inc({ action: 'pager_requeued' });
      log.warn({ runId }, 'reconciler: paging had no job; enqueued one from the saved cursor');
    }
    const before = (await store.progress(runId)).status;
    await repairs.completeIfDone(runId);
    if (before === 'running' && (await store.progress(runId)).status === 'completed') syncMetrics.runsReconciled.inc({ action: 'completed' });
  }

  /**
   * Releases the credit reservations of pages whose chunk job is not running now: a chunk holds one
   * only while its handler runs (it gives it back before it waits, parks or is retried, and counting
   * its page releases it), so one left by a chunk killed mid-way, a job failed or gone, is lost. A job
   * taken back after a kill replaces its page's reservation anyway; a reservation made again meanwhile
   * (another token) is kept. Returns the credits released.
   */
  async releaseLostReservations(runId: string): Promise<number> {
    const { store, queues, log } = this.deps;
    let released = 0;
    for (const [page, held] of await store.reservations(runId)) {
      const job = await queues.chunks.getJob(jobIds.chunk(runId, page));
      if (job && (await job.getState()) === 'active') continue;
      if (await store.releaseReservationIf(runId, page, held)) {
        released += Number(held.split('|')[0]);
        log.warn({ runId, page, credits: held.split('|')[0] }, 'reconciler: released the credits reserved by a chunk no longer running');
      }
    }
    if (released) syncMetrics.runsReconciled.inc({ action: 'credits_released' });
    return released;
  }

  private async pagerJob(runId: string): Promise<Job | undefined> {
    const id = await this.deps.redis.hget(this.deps.keys.run(runId), 'pagerJob');
    return id ? this.deps.queues.runs.getJob(id) : undefined;
  }

  private async pagerAlive(runId: string): Promise<boolean> {
    const job = await this.pagerJob(runId);
    return job !== undefined && ALIVE.has(await job.getState());
  }
}
