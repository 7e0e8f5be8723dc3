import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  EngineQuotaError,
  EngineRateLimitError,
  PlatformUnreachableError,
  QuotaError,
  RateLimitError,
  closeRedis,
  normalizeEmail,
  syntaxInvalidVerification,
  unknownVerification,
  VerifyHubError,
  type Logger,
  type Verification,
  type VerificationCache,
  type Verifier,
} from '@verify-hub/core';
import { jobHoldOptions } from './job-hold';

/**
 * Workflow actions (HubSpot's "Verify email address"): one address per call, answered at once from
 * the cache, or blocked and completed later through the platform's callback by a durable BullMQ job,
 * so a crash never loses a callback. The engine's 429 and quota wait like a run's (the job is delayed
 * until the reset, costing no attempt); a wait past the action's deadline, or any other engine
 * failure, completes with risk `unknown`: never an error that stops the workflow.
 */

export const ACTION_QUEUE = 'actions';

export interface ActionCallJob {
  platform: string;
  connectionId: string;
  callbackId: string;
  email: string;
  /** Epoch ms after which the platform no longer waits: complete with what is known. */
  deadline: number;
}

/** Completes a blocked action with a result (the platform's callback API). Throws the platform's typed errors. */
export type CompleteAction = (job: ActionCallJob, result: Verification) => Promise<void>;

export interface ActionCompletionsOptions {
  redis: Redis;
  /** The pipeline's key prefix (queues and keys live under it). */
  prefix: string;
  cache: VerificationCache;
  complete: CompleteAction;
  logger?: Logger;
  /** Callback attempts on a 5xx or network failure (default 8, exponential from `backoffMs`, default 5 s). */
  attempts?: number;
  backoffMs?: number;
  /** BullMQ lock and stalled-check periods (a crashed worker's job is taken over after the lock lapses; tests shorten them). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

/**
 * A failed callback worth another attempt: the platform out of reach, a 5xx (`retryable`), or an error
 * none of ours names (a dropped socket). A refusal (4xx, no stored connection) will not change.
 */
function completionMayRetry(error: unknown): boolean {
  if (error instanceof PlatformUnreachableError) return true;
  const retryable = (error as { retryable?: unknown }).retryable;
  if (typeof retryable === 'boolean') return retryable;
  return !(error instanceof VerifyHubError);
}

/**
 * How long the answer to a callback id is kept: a call replayed within it (HubSpot retrying, or a
 * recorded v2-signed call, which has no timestamp) is answered as the first one was, with no new job.
 */
export const CALL_MEMORY_SECONDS = 30 * 86_400;
/** The kept answer of a call that was queued (the platform was told to wait for the callback). */
const QUEUED = 'queued';

/** BullMQ forbids ':' in job ids. */
const jobId = (platform: string, callbackId: string) => `${platform}-${callbackId}`.replace(/:/g, '_');

export class ActionCompletions {
  readonly queue: Queue<ActionCallJob>;
  private worker?: Worker<ActionCallJob>;
  private workerRedis?: Redis;

  constructor(private readonly options: ActionCompletionsOptions) {
    this.queue = new Queue<ActionCallJob>(ACTION_QUEUE, { connection: options.redis, prefix: options.prefix });
  }

  /**
   * The result to answer with at once (cached, or a malformed address), or `undefined` after the call
   * was queued for completion. Idempotent by callback id: a call seen before gets its first answer
   * again (kept `CALL_MEMORY_SECONDS`), never a second job or engine call; two at once keep one job.
   */
  async answer(call: ActionCallJob): Promise<Verification | undefined> {
    const memory = `${this.options.prefix}:action-call:${jobId(call.platform, call.callbackId)}`;
    const seen = await this.options.redis.get(memory);
    if (seen) return seen === QUEUED ? undefined : (JSON.parse(seen) as Verification);
    const known = await this.known(call.email);
    if (known) {
      await this.options.redis.set(memory, JSON.stringify(known), 'EX', CALL_MEMORY_SECONDS, 'NX');
      return known;
    }
    await this.queue.add('complete', call, {
      jobId: jobId(call.platform, call.callbackId),
      attempts: this.options.attempts ?? 8,
      backoff: { type: 'exponential', delay: this.options.backoffMs ?? 5000 },
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: 7 * 86_400 },
    });
    await this.options.redis.set(memory, QUEUED, 'EX', CALL_MEMORY_SECONDS, 'NX');
    return undefined;
  }

  /** Runs the completion jobs with this engine (the workers' verifier, wrapped with its limits). */
  start(verifier: Verifier, concurrency = 4): Worker<ActionCallJob> {
    // A worker blocks on its own connection; BullMQ leaves a passed one open, so close() quits it.
    this.workerRedis = this.options.redis.duplicate();
    this.worker = new Worker<ActionCallJob>(ACTION_QUEUE, (job, token) => this.process(job, token, verifier), {
      connection: this.workerRedis,
      prefix: this.options.prefix,
      concurrency,
      ...jobHoldOptions(this.options),
    });
    this.worker.on('error', (error) => this.options.logger?.error({ err: error }, 'action completion worker error'));
    return this.worker;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    if (this.workerRedis) await closeRedis(this.workerRedis);
    await this.queue.close();
  }

  private async known(email: string): Promise<Verification | undefined> {
    // A contact without an address (the mapped property is empty): nothing to check, not an invalid address.
    if (email.trim() === '') return unknownVerification('', '', 'no_email');
    const n = normalizeEmail(email);
    if (!n.ok) return syntaxInvalidVerification(email);
    return (await this.options.cache.getMany([n.normalized])).get(n.normalized);
  }

  private async process(job: Job<ActionCallJob>, token: string | undefined, verifier: Verifier): Promise<void> {
    const call = job.data;
    // A result found by an earlier attempt whose callback failed is kept in the job: bought once.
    let result = (job.progress as { result?: Verification } | undefined)?.result ?? (await this.known(call.email));
    if (!result) {
      result = await this.verify(job, token, verifier);
      if (result.risk !== 'unknown') await this.options.cache.setMany([result]);
      await job.updateProgress({ result });
    }
    try {
      await this.options.complete(call, result);
    } catch (error) {
      if (error instanceof RateLimitError && !(error instanceof QuotaError) && Date.now() < call.deadline) return this.waitUntil(job, token, error.resetAt);
      if (!completionMayRetry(error) || Date.now() >= call.deadline) {
        this.options.logger?.error({ err: error, platform: call.platform, connectionId: call.connectionId }, 'workflow action could not be completed');
        throw new UnrecoverableError(`completing ${call.platform} action ${call.callbackId}: ${(error as Error).message}`);
      }
      throw error;
    }
  }

  /** The engine's answer; its 429/quota wait (until the deadline), anything else is `unknown`. */
  private async verify(job: Job<ActionCallJob>, token: string | undefined, verifier: Verifier): Promise<Verification> {
    const call = job.data;
    const normalized = normalizeEmail(call.email);
    const key = normalized.ok ? normalized.normalized : call.email;
    try {
      return await verifier.verify(call.email);
    } catch (error) {
      if (error instanceof EngineQuotaError || error instanceof EngineRateLimitError) {
        if (error.resetAt < call.deadline) return this.waitUntil(job, token, error.resetAt);
        return unknownVerification(call.email, key, error instanceof EngineQuotaError ? 'engine_quota_exceeded' : 'engine_rate_limited');
      }
      this.options.logger?.warn({ err: error, platform: call.platform }, 'engine failed on a workflow action: completing with unknown');
      return unknownVerification(call.email, key, 'engine_unavailable');
    }
  }

  /** Delays the job until `at` without spending an attempt (BullMQ's manual delay). */
  private async waitUntil(job: Job<ActionCallJob>, token: string | undefined, at: number): Promise<never> {
    await job.moveToDelayed(Math.max(at, Date.now() + 100), token);
    throw new DelayedError();
  }
}
