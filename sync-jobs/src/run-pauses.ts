import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { AuthError, ConfigError, InputError, QuotaError, RateLimitError } from '@verify-hub/core';
import { isAppUninstalled } from './app-uninstall';
import type { ChunkOutcome } from './chunk-processor';
import { syncMetrics } from './metrics';
import type { PipelineContext } from './pipeline-context';
import { PARK_MS, type ChunkJobData } from './queues';

export type RunStop = NonNullable<ChunkOutcome['stopped']>;

/**
 * Sends a parked chunk back to work. A resume and the chunk's own parking can both see it parked and
 * both promote it: the second finds it already waiting (or running) and leaves it there. Only a failure
 * that leaves it parked is an error.
 */
export async function promoteParked(job: Job): Promise<void> {
  try {
    await job.promote();
  } catch (err) {
    if (await job.isDelayed()) throw err;
  }
}

/**
 * The pause policy: when a run pauses (quota, a refused key or token, the credit cap, a user) and how
 * its chunks wait meanwhile (parked until `resume` promotes them).
 */
export class RunPauses {
  constructor(
    private readonly ctx: PipelineContext,
    /** Disconnects a connection whose platform app was uninstalled (which cancels its runs). */
    private readonly disconnectUninstalled?: (connectionId: string) => Promise<unknown>,
  ) {}

  /**
   * A chunk of a paused run waits, with the results it already has, until `resume` promotes it. A run
   * resumed since the chunk saw it paused sends the chunk straight back to work (a plain return would
   * complete the job with its page never counted, and the run would wait for the reconciler).
   */
  async park(job: Job, token: string | undefined): Promise<void> {
    const { store } = this.ctx;
    const runId = (job.data as ChunkJobData).runId;
    const status = (await store.progress(runId)).status;
    if (status === 'running' || status === 'queued') {
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (status !== 'paused') return; // cancelled or ended meanwhile: nothing to keep
    await store.park(runId, String(job.id));
    await job.moveToDelayed(Date.now() + PARK_MS, token);
    // A resume that ran while this job was parking may have missed it: look again, and go back to work.
    if ((await store.progress(runId)).status !== 'paused') {
      await store.unpark(runId, String(job.id));
      await promoteParked(job);
    }
    throw new DelayedError();
  }

  /**
   * Pauses the run for a stop seen by a chunk that started in resume epoch `epoch`. When the run was
   * resumed since (a user fixed the key or token meanwhile), the stop came from the old credentials:
   * the chunk is tried again with the new ones instead of pausing the run again.
   */
  async pauseOrRetry(runId: string, stop: RunStop, epoch: number): Promise<void> {
    if ((await this.ctx.store.resumeEpoch(runId)) !== epoch) throw new Error(`${stop.message} (before the run was resumed; trying again)`);
    await this.pauseFor(runId, stop);
  }

  /** A pause the run cannot get past by itself: quota, a refused key or token, the credit cap (a quota's reset resumes it). */
  async pauseFor(runId: string, stop: RunStop): Promise<void> {
    const { store, queues } = this.ctx;
    const resume = `\`verify-hub runs resume ${runId}\``;
    const error = stop.error;
    const reason =
      error instanceof AuthError
        ? authPauseReason(error, resume, this.ctx.registry.reconnectAdvice(error.source))
        : error instanceof QuotaError
          ? `${stop.message}; resume with ${resume} after the reset or a top-up`
          : stop.message;
    const source = error instanceof AuthError || error instanceof RateLimitError ? error.source : 'engine';
    syncMetrics.errors.inc({ kind: stop.reason === 'credit_cap' ? 'credit_cap' : error instanceof AuthError ? `${source}_auth` : `${source}_quota` });
    if (await store.transition(runId, 'paused', ['running', 'queued'], reason, stop.resumeAt ? { resumeAt: stop.resumeAt } : {})) {
      // A quota that resets resumes the run by itself then (a top-up can resume it sooner).
      if (error instanceof QuotaError && stop.resumeAt) {
        await queues.runs.add('auto-resume', { runId }, { jobId: `${runId}-resume-${stop.resumeAt}`, delay: Math.max(0, stop.resumeAt - Date.now()) + 1000, removeOnComplete: true, removeOnFail: true });
      }
      (await this.ctx.runLogById(runId)).warn({ reason: stop.reason, source, err: error }, 'run paused');
      // No reconnect brings an uninstalled app back: the connection goes, as on the journal's or an action's report.
      if (isAppUninstalled(error)) await this.disconnectAfterUninstall(runId);
    }
  }

  private async disconnectAfterUninstall(runId: string): Promise<void> {
    const connectionId = (await this.ctx.store.get(runId))?.connectionId;
    if (!connectionId || !this.disconnectUninstalled) return;
    await this.disconnectUninstalled(connectionId).catch(async (err: unknown) => (await this.ctx.runLogById(runId)).error({ err }, 'disconnecting an uninstalled app failed'));
  }

  /** A run stopped by its credit limit is paused, never a green `completed` with rows left unchecked. */
  async pauseAtCreditLimit(runId: string, cap: number): Promise<void> {
    const { store } = this.ctx;
    const spent = (await store.get(runId))?.counters.credits ?? 0;
    const reason = `stopped at the credit limit of ${cap} (${spent} credits spent): raise it with \`verify-hub runs resume ${runId} --max-credits N\` to verify the rest`;
    if (await store.transition(runId, 'paused', ['running', 'queued'], reason)) {
      syncMetrics.errors.inc({ kind: 'credit_cap' });
      (await this.ctx.runLogById(runId)).warn({ reason: 'credit_cap' }, 'run paused');
    }
  }
}

/**
 * Control flow by kind, whoever raised it (the engine, HubSpot's daily limit or 10-second window, a
 * revoked platform token): a rate limit waits, a quota or auth error pauses the run.
 */
export function platformStop(error: unknown): { reason: 'rate'; waitMs: number } | { reason: 'pause'; stopped: RunStop } | undefined {
  if (error instanceof QuotaError) return { reason: 'pause', stopped: { reason: 'quota', message: error.message, error, resumeAt: error.resetAt } };
  if (error instanceof RateLimitError) return { reason: 'rate', waitMs: Math.max(1, error.waitMs()) };
  if (error instanceof AuthError) return { reason: 'pause', stopped: { reason: 'auth', message: error.message, error } };
  return undefined;
}

/** A stop that only asks to wait (a rate limit, not a quota): how long, else undefined. */
export function rateWaitOf(stop: RunStop): number | undefined {
  return stop.error instanceof RateLimitError && !(stop.error instanceof QuotaError) ? Math.max(1, stop.error.waitMs()) : undefined;
}

/** Input or configuration that no retry can fix fails the job at once (BullMQ spends no more attempts on it). */
export function permanentAsUnrecoverable(error: unknown): unknown {
  if (error instanceof InputError || error instanceof ConfigError) return new UnrecoverableError(error.message);
  return error;
}

/**
 * What a user must fix when a key or token is refused, naming where it lives (the platform module's
 * `reconnectAdvice`); never the key itself.
 */
function authPauseReason(error: AuthError, resume: string, reconnectAdvice: string | undefined): string {
  if (error.source === 'engine') return `the engine refused the API key: check ENGINE_API_KEY, then run ${resume}`;
  const fix = reconnectAdvice ?? `reconnect ${error.source}`;
  return `${error.message}. To fix: ${fix}, then run ${resume}`;
}
