import { setImmediate as nextTurn } from 'node:timers/promises';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, type ContactEvent, type Logger } from '@verify-hub/core';
import { jobHoldOptions, queuePrefix, type RunService } from '@verify-hub/sync-jobs';
import { HubMetrics } from './http-metrics';
import { eraseFromIngest } from './ingest-erasure';

type RoutedEvent = ContactEvent & { connectionId: string };

interface IngestJob {
  platform: string;
  events: RoutedEvent[];
}

export interface IngestOptions {
  queueName: string;
  /** Forward deliveries in this process (default true); false leaves it to another hub instance. */
  worker: boolean;
  concurrency: number;
  /** Events of one delivery handed to the pipeline at once; the forwarder yields to the HTTP side between such slices. */
  eventsAtOnce: number;
  attempts: number;
  backoffMs: number;
  /**
   * How long a forwarder's hold on a delivery lasts unrenewed, and how often forwarders look for
   * deliveries whose holder died. A delivery takes milliseconds to forward, and forwarding one twice is
   * harmless (enqueueEvent drops the repeat), so these are far shorter than BullMQ's 30 s defaults: a
   * hub killed right after its acks has its delivery in hand forwarded by the next one within ~15 s,
   * not up to a minute later.
   */
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Times a delivery may be taken back from a dead (or stalled) forwarder before BullMQ fails it. */
  maxStalledCount: number;
}

/** The ingest options a hub (or a forwarding-only process) uses where it does not choose. */
export function ingestOptions(chosen: Partial<IngestOptions> = {}): IngestOptions {
  const given = Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== undefined));
  return { queueName: 'verify-hub-webhook-ingest', worker: true, concurrency: 1, eventsAtOnce: 10, attempts: 12, backoffMs: 1000, lockDurationMs: 10_000, stalledIntervalMs: 5_000, maxStalledCount: 5, ...given };
}

/** What one forwarded delivery came to: events the pipeline queued, and repeats it dropped. */
export interface ForwardedCounts {
  platform: string;
  queued: number;
  duplicate: number;
}

/**
 * Forwards the deliveries another event loop accepted, with no HTTP side: `verify-hub serve`'s
 * forwarder thread, or a `verify-hub worker` for a hub run with `--no-workers`. `onForwarded` gets the
 * counts (a thread sends them to the hub, whose /metrics shows them).
 */
export function startWebhookForwarder(redis: Redis, runs: RunService, options: Partial<IngestOptions> & { queueName: string }, logger: Logger, onForwarded?: (counts: ForwardedCounts) => void): WebhookIngest {
  return new WebhookIngest(redis, runs, ingestOptions({ ...options, worker: true }), new HubMetrics({ processMetrics: false }), logger, onForwarded);
}

/**
 * Accepted webhook deliveries, one BullMQ job per delivery. The receiver's answer waits for one Redis
 * write whatever the batch size; a forwarder hands each event to `RunService.enqueueEvent` (the one
 * place repeats are dropped and work is coalesced per contact), with BullMQ's retries when the
 * pipeline cannot take them yet. Forwarding twice is harmless: enqueueEvent drops the repeat.
 */
export class WebhookIngest {
  readonly queue: Queue<IngestJob>;
  private worker?: Worker<IngestJob>;
  private readonly connections: Redis[] = [];

  constructor(
    redis: Redis,
    private readonly runs: RunService,
    private readonly options: IngestOptions,
    private readonly metrics: HubMetrics,
    private readonly logger: Logger,
    private readonly onForwarded: (counts: ForwardedCounts) => void = (counts) => this.countForwarded(counts),
  ) {
    // Auto-pipelining: the adds of every request answered in the same tick go to Redis as one write
    // and come back as one read, instead of one round trip (and one syscall pair) per request.
    const queueConnection = redis.duplicate({ enableAutoPipelining: true });
    this.connections.push(queueConnection);
    this.queue = new Queue<IngestJob>(options.queueName, { connection: queueConnection, prefix: queuePrefix('bull', redis.isCluster) });
    this.queue.on('error', (error) => this.logger.error({ err: error }, 'webhook ingest queue error'));
    if (options.worker) {
      const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
      this.connections.push(workerConnection);
      this.worker = new Worker<IngestJob>(options.queueName, (job) => this.forward(job), {
        connection: workerConnection,
        prefix: queuePrefix('bull', redis.isCluster),
        concurrency: options.concurrency,
        ...jobHoldOptions(options),
      });
      this.worker.on('failed', (job, error) => this.logger.warn({ platform: job?.data.platform, events: job?.data.events.length, attempt: job?.attemptsMade, err: error }, 'webhook events not handed to the pipeline yet'));
      this.worker.on('error', (error) => this.logger.error({ err: error }, 'webhook ingest worker error'));
    }
  }

  /** Stores a delivery's events durably; resolves once Redis has them. */
  async accept(platform: string, events: RoutedEvent[]): Promise<void> {
    await this.queue.add(platform, { platform, events }, {
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs, jitter: 0.5 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  /**
   * Forwards a delivery a few events at a time, yielding to the event loop between slices: the
   * forwarder shares the loop with the receivers, and a whole batch in flight at once answers in one
   * long burst of callbacks that would hold every ack waiting behind it.
   */
  private async forward(job: Job<IngestJob>): Promise<void> {
    const results: { queued: boolean }[] = [];
    const { events } = job.data;
    for (let start = 0; start < events.length; start += this.options.eventsAtOnce) {
      if (start) await nextTurn();
      results.push(...(await Promise.all(events.slice(start, start + this.options.eventsAtOnce).map((event) => this.runs.enqueueEvent(event)))));
    }
    // The pipeline erased these contacts; the deliveries kept here must not hold them either.
    for (const deletion of events.filter((event) => event.kind === 'privacy_deletion')) await eraseFromIngest(this.queue, deletion, job);
    const queued = results.filter((r) => r.queued).length;
    this.onForwarded({ platform: job.data.platform, queued, duplicate: results.length - queued });
  }

  /** Adds forwarded events to this hub's metrics (those forwarded here, or by its forwarder thread). */
  countForwarded({ platform, queued, duplicate }: ForwardedCounts): void {
    if (queued) this.metrics.webhookEvents.inc({ platform, outcome: 'queued' }, queued);
    if (duplicate) this.metrics.webhookEvents.inc({ platform, outcome: 'duplicate' }, duplicate);
  }

  /** Deliveries not yet handed to the pipeline (waiting, delayed for a retry, or in progress). */
  async backlog(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await Promise.all(this.connections.map(closeRedis));
  }
}
