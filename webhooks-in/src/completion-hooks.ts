import { randomBytes, randomUUID } from 'node:crypto';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { HOOK_SIGNATURE_HEADER, closeRedis, signHookPayload, type Logger, type SecretBox } from '@verify-hub/core';
import { queuePrefix, replaceHashFieldIfUnchanged, type RunRecord, type RunService } from '@verify-hub/sync-jobs';
import type { HubMetrics } from './http-metrics';
import { runView } from './run-view';
import { OutboundAddressError, type OutboundGuard } from './outbound-guard';

export type HookEventName = 'run.completed' | 'run.failed' | 'run.cancelled';
export const HOOK_EVENTS: HookEventName[] = ['run.completed', 'run.failed', 'run.cancelled'];

export interface CompletionHook {
  id: string;
  url: string;
  events: HookEventName[];
  label?: string;
  createdAt: string;
}

interface StoredHook extends CompletionHook {
  /** Sealed with HUB_SECRET_KEY when one is configured. */
  secret: string;
  sealed: boolean;
}

/**
 * Registered completion webhooks, in one Redis hash so every hub instance sees the same list. The
 * signing secret is sealed at rest when a SecretBox is configured and is only returned on creation.
 */
export class HookStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly box?: SecretBox,
  ) {
    this.key = `${prefix}hooks`;
  }

  async add(input: { url: string; events?: HookEventName[]; secret?: string; label?: string }): Promise<CompletionHook & { secret: string }> {
    const secret = input.secret ?? randomBytes(32).toString('base64url');
    const hook: CompletionHook = { id: randomUUID(), url: input.url, events: input.events ?? HOOK_EVENTS, label: input.label, createdAt: new Date().toISOString() };
    const stored: StoredHook = { ...hook, secret: this.box ? this.box.seal(secret) : secret, sealed: Boolean(this.box) };
    await this.redis.hset(this.key, hook.id, JSON.stringify(stored));
    return { ...hook, secret };
  }

  async list(): Promise<CompletionHook[]> {
    const all = await this.redis.hvals(this.key);
    return all.map((json) => publicView(JSON.parse(json) as StoredHook)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** The hook with its secret opened, for signing a delivery. */
  async withSecret(id: string): Promise<(CompletionHook & { secret: string }) | undefined> {
    const json = await this.redis.hget(this.key, id);
    if (!json) return undefined;
    const stored = JSON.parse(json) as StoredHook;
    if (stored.sealed && !this.box) throw new UnrecoverableError(`hook ${id}: its secret is sealed and HUB_SECRET_KEY is not set`);
    return { ...publicView(stored), secret: stored.sealed ? this.box!.open(stored.secret) : stored.secret };
  }

  async remove(id: string): Promise<boolean> {
    return (await this.redis.hdel(this.key, id)) === 1;
  }

  /**
   * Seals every hook's secret under `next` (`verify-hub secret-key rotate`), including secrets stored
   * in the clear before a key was set; each hook is replaced only if unchanged since it was read.
   */
  async reseal(next: SecretBox): Promise<{ resealed: number; already: number }> {
    const counts = { resealed: 0, already: 0 };
    for (const [id, json] of Object.entries(await this.redis.hgetall(this.key))) {
      const stored = JSON.parse(json) as StoredHook;
      if (stored.sealed && !this.box) throw new UnrecoverableError(`hook ${id}: its secret is sealed and HUB_SECRET_KEY is not set`);
      const secret = stored.sealed ? this.box!.resealFor(next, stored.secret) : next.seal(stored.secret);
      if (secret === undefined) {
        counts.already++;
        continue;
      }
      // Not replaced: the hook was removed meanwhile, so there is nothing to keep.
      if (await replaceHashFieldIfUnchanged(this.redis, this.key, id, json, JSON.stringify({ ...stored, secret, sealed: true }))) counts.resealed++;
    }
    return counts;
  }
}

function publicView(stored: StoredHook): CompletionHook {
  const { id, url, events, label, createdAt } = stored;
  return label === undefined ? { id, url, events, createdAt } : { id, url, events, label, createdAt };
}

interface DeliveryJob {
  hookId: string;
  deliveryId: string;
  event: HookEventName;
  run: ReturnType<typeof runView>;
}

export interface DeliveryOptions {
  queueName: string;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
}

/** A non-2xx answer: worth another attempt (BullMQ's backoff decides when). */
class DeliveryFailed extends Error {}

/**
 * Delivers completion webhooks through a BullMQ queue: one job per (run, hook) with a deterministic id,
 * so several hub instances that all hear a run finish send it once; retries with exponential backoff
 * and jitter (BullMQ's, the one retry policy of this layer) survive restarts. A 410 answer
 * unsubscribes the hook (REST-hook convention, as Zapier expects).
 */
export class CompletionHookDelivery {
  private readonly queue: Queue<DeliveryJob>;
  private readonly worker: Worker<DeliveryJob>;
  private readonly connections: Redis[];
  private unsubscribe?: () => void;

  constructor(
    redis: Redis,
    private readonly store: HookStore,
    private readonly options: DeliveryOptions,
    private readonly metrics: HubMetrics,
    private readonly logger: Logger,
    private readonly outbound: OutboundGuard,
  ) {
    const queueConnection = redis.duplicate();
    const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
    this.connections = [queueConnection, workerConnection];
    this.queue = new Queue<DeliveryJob>(options.queueName, { connection: queueConnection, prefix: queuePrefix('bull', redis.isCluster) });
    this.queue.on('error', (error) => this.logger.error({ err: error }, 'completion webhook queue error'));
    this.worker = new Worker<DeliveryJob>(options.queueName, (job) => this.deliver(job), { connection: workerConnection, prefix: queuePrefix('bull', redis.isCluster), concurrency: 10 });
    this.worker.on('failed', (job, error) => {
      const last = job && job.attemptsMade >= (job.opts.attempts ?? 1);
      this.metrics.hookDeliveries.inc({ outcome: last ? 'gave_up' : 'retry' });
      this.logger.warn({ hookId: job?.data.hookId, runId: job?.data.run.id, attempt: job?.attemptsMade, err: error }, last ? 'completion webhook given up' : 'completion webhook will be retried');
    });
    this.worker.on('error', (error) => this.logger.error({ err: error }, 'completion webhook worker error'));
  }

  get deliveryQueue(): Queue {
    return this.queue as Queue;
  }

  /** Sends every finished run of `runs` to the hooks that asked for its outcome. */
  listen(runs: RunService): void {
    this.unsubscribe = runs.onRunFinished((run) => {
      this.enqueue(run).catch((error: unknown) => this.logger.error({ err: error, runId: run.id }, 'could not queue completion webhooks'));
    });
  }

  async enqueue(run: RunRecord): Promise<number> {
    const event = `run.${run.status}` as HookEventName;
    if (!HOOK_EVENTS.includes(event)) return 0;
    const hooks = (await this.store.list()).filter((h) => h.events.includes(event));
    const view = runView(run);
    await this.queue.addBulk(
      hooks.map((hook) => ({
        name: event,
        data: { hookId: hook.id, deliveryId: randomUUID(), event, run: view },
        opts: {
          jobId: `${run.id}.${hook.id}`.replace(/:/g, '_'),
          attempts: this.options.attempts,
          backoff: { type: 'exponential', delay: this.options.backoffMs, jitter: 0.5 },
          removeOnComplete: { age: 24 * 3600 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    );
    return hooks.length;
  }

  private async deliver(job: Job<DeliveryJob>): Promise<void> {
    const hook = await this.store.withSecret(job.data.hookId);
    if (!hook) return; // unsubscribed since: nothing to send
    const body = JSON.stringify({ id: job.data.deliveryId, event: job.data.event, createdAt: new Date().toISOString(), run: job.data.run });
    let response: { status: number };
    try {
      // The address is judged again on the one dialled (DNS may answer otherwise than at registration); no redirect is followed.
      response = await this.outbound.post(hook.url, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'verify-hub-webhooks/0.1',
          'x-verifyhub-event': job.data.event,
          'x-verifyhub-delivery': job.data.deliveryId,
          [HOOK_SIGNATURE_HEADER]: signHookPayload(hook.secret, body),
        },
        body,
        timeoutMs: this.options.timeoutMs,
      });
    } catch (error) {
      // Nothing was sent; another attempt would be refused the same way.
      if (error instanceof OutboundAddressError) {
        this.logger.warn({ hookId: hook.id, reason: error.message }, 'completion webhook refused: its address is not on the public internet');
        throw new UnrecoverableError(error.message);
      }
      throw new DeliveryFailed(`request failed (${(error as Error).name})`);
    }
    if (response.status === 410) {
      await this.store.remove(hook.id);
      this.logger.info({ hookId: hook.id }, 'completion webhook unsubscribed by its receiver (410)');
      return;
    }
    if (response.status < 200 || response.status >= 300) throw new DeliveryFailed(`receiver answered ${response.status}`);
    this.metrics.hookDeliveries.inc({ outcome: 'delivered' });
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.worker.close();
    await this.queue.close();
    await Promise.all(this.connections.map(closeRedis));
  }
}
