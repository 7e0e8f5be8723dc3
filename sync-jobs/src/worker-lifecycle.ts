import { Worker, type Job } from 'bullmq';
import { closeRedis, noLimit, type Verifier } from '@verify-hub/core';
import type { ChunkWorker } from './chunk-worker';
import type { EventWorker } from './event-worker';
import type { Pager } from './pager';
import type { PipelineContext, Work } from './pipeline-context';
import { QUEUE, type ChunkJobData, type EventJobData, type PageJobData, type RecheckJobData, type ScheduledJobData } from './queues';
import type { RecheckWorker } from './recheck-worker';
import type { RunCommands } from './run-commands';
import type { RunReconciler } from './run-reconciler';
import { syncMetrics } from './metrics';
import { SCHEDULED_JOB, type ScheduleStore } from './schedule-store';
import { limitedVerifier } from './verifier-wrappers';
import { jobHoldOptions } from './job-hold';

export interface SyncWorkers {
  /** The engine as these workers' interactive work uses it (events; workflow actions of this process): behind the limiter every worker shares, ahead of bulk chunks. */
  readonly verifier: Verifier;
  close(): Promise<void>;
  /** Stops taking jobs and leaves active ones to be picked up again by another worker (a crash, for tests). */
  kill(): Promise<void>;
}

/** The engine's plan as every process shares it (one Redis limiter per engine key). */
export interface EngineLimits {
  engineKey?: string;
  engineRatePerSecond?: number;
  engineMaxConcurrent?: number;
}

/** What the workers of one process need beyond the context: the engine, its shared limit and BullMQ's lock settings. */
export interface WorkerSettings extends EngineLimits {
  verifier: Verifier;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export interface WorkerParts {
  commands: RunCommands;
  pager: Pager;
  chunks: ChunkWorker;
  rechecks: RecheckWorker;
  events: EventWorker;
  reconciler: RunReconciler;
  schedules: ScheduleStore;
}

/** Starts the `runs`, `chunks` and `events` workers of this process, and its periodic reconciler. */
export function startWorkers(ctx: PipelineContext, parts: WorkerParts, settings: WorkerSettings): SyncWorkers {
  const { log } = ctx;
  // Run chunks take the engine's shared limiter as bulk work; events (and workflow actions) ahead of them.
  const verifier = engineVerifier(ctx, settings.verifier, settings, 'bulk');
  const interactiveVerifier = engineVerifier(ctx, settings.verifier, settings, 'interactive');
  ctx.workerVerifier = verifier;
  const connection = ctx.redis.duplicate({ maxRetriesPerRequest: null });
  const common = {
    connection,
    prefix: ctx.keys.queuePrefix,
    autorun: true,
    ...jobHoldOptions({ lockDurationMs: settings.lockDurationMs, stalledIntervalMs: settings.stalledIntervalMs, maxStalledCount: ctx.settings.maxStalledCount }),
  };
  const runs = new Worker(QUEUE.runs, (job) => handleRunsJob(ctx, parts, job), { ...common, concurrency: 2 });
  const chunks: Worker = new Worker(
    QUEUE.chunks,
    (job, token) => (job.name === 'recheck' ? parts.rechecks.handle(job as Job<RecheckJobData>, token, chunks, verifier) : parts.chunks.handle(job as Job<ChunkJobData>, token, chunks, verifier)),
    { ...common, concurrency: ctx.settings.chunkConcurrency },
  );
  const events: Worker = new Worker(QUEUE.events, (job, token) => parts.events.handle(job as Job<EventJobData>, token, events, interactiveVerifier), { ...common, concurrency: ctx.settings.chunkConcurrency });
  chunks.on('failed', (job, error) => void parts.chunks.onFailed(job, error).catch((err: Error) => log.warn({ err }, 'counting a failed chunk failed; the reconciler will')));
  runs.on('failed', (job, error) => void onPagerFailed(ctx, job, error).catch((err: Error) => log.warn({ err }, 'ending a failed run failed; the reconciler will')));
  events.on('failed', (job, error) => void parts.events.onFailed(job, error));
  for (const w of [runs, chunks, events]) {
    w.on('error', (err) => log.error({ err, queue: w.name }, 'worker error'));
    w.on('stalled', (jobId) => log.warn({ jobId, queue: w.name }, 'job stalled (its worker died or missed its lock): given to another worker'));
  }
  const workers = [runs, chunks, events];
  // On start (what a dead process left behind) and then periodically: no run sits with nothing queued.
  const reconcile = () => void parts.reconciler.reconcileAll().catch((err: Error) => log.warn({ err }, 'reconciling runs failed'));
  reconcile();
  const timer = setInterval(reconcile, ctx.settings.reconcileIntervalMs);
  timer.unref();
  return {
    verifier: interactiveVerifier,
    close: async () => {
      clearInterval(timer);
      await Promise.all(workers.map((w) => w.close()));
      await closeRedis(connection);
    },
    kill: async () => {
      clearInterval(timer);
      await Promise.all(workers.map((w) => w.close(true)));
      connection.disconnect();
    },
  };
}

/** The engine behind its limiter shared by every process (per engine key), in the lane of `work`. */
export function engineVerifier(ctx: PipelineContext, base: Verifier, limits: EngineLimits, work: Work): Verifier {
  if (!limits.engineRatePerSecond && !limits.engineMaxConcurrent) return limitedVerifier(base, noLimit);
  const limiter = ctx.limiters[work]({
    key: `engine:${limits.engineKey ?? 'engine'}`,
    perInterval: limits.engineRatePerSecond ? { count: limits.engineRatePerSecond, intervalMs: 1000 } : undefined,
    maxConcurrent: limits.engineMaxConcurrent,
  });
  return limitedVerifier(base, limiter);
}

/** The `runs` queue: a quota's auto-resume, a schedule's firing, or a run's `page` job. */
async function handleRunsJob(ctx: PipelineContext, parts: WorkerParts, job: Job): Promise<void> {
  if (job.name === 'auto-resume') {
    const run = await ctx.store.get((job.data as PageJobData).runId);
    if (run?.status === 'paused' && run.resumeAt !== undefined && run.resumeAt <= Date.now()) await parts.commands.resume(run.id);
    return;
  }
  if (job.name === SCHEDULED_JOB) {
    const request = await parts.schedules.requestToStart(job.repeatJobKey, job.data as ScheduledJobData);
    if (!request) return; // paused while this firing waited
    const run = await parts.commands.start(request);
    ctx.runLog(run).info({ scheduler: job.repeatJobKey }, 'scheduled run started');
    return;
  }
  await parts.pager.handle((job.data as PageJobData).runId);
}

async function onPagerFailed(ctx: PipelineContext, job: Job | undefined, error: Error): Promise<void> {
  if (!job || job.name !== 'page') return;
  syncMetrics.errors.inc({ kind: 'source_failed' });
  if ((await job.getState()) !== 'failed') return;
  const { runId } = job.data as PageJobData;
  (await ctx.runLogById(runId)).warn({ err: error }, 'reading the source failed for good: the run fails');
  await ctx.finishAs(runId, 'failed', `reading the source failed: ${error.message}`);
}
