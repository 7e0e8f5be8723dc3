import { createHash } from 'node:crypto';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { ContactEvent, Verifier, WriteOptions } from '@verify-hub/core';
import { processChunk, type ChunkOutcome } from './chunk-processor';
import { syncMetrics } from './metrics';
import type { PipelineContext } from './pipeline-context';
import type { EventJobData } from './queues';
import type { RecheckWorker } from './recheck-worker';
import { permanentAsUnrecoverable, platformStop, rateWaitOf } from './run-pauses';

/** How long a webhook event may wait for a quota, a daily limit or a key to be fixed before it is dropped (and counted). */
const EVENT_MAX_WAIT_MS = 7 * 86_400_000;

type EventWait = { rateMs: number } | { until?: number; why: string };

/** How long a delivered event's repeats are dropped. */
const DEDUPE_MS = 86_400_000;
/** The delivery gate's values: taken by a forwarder that is queuing the event, then queued (or covered). */
const QUEUING = 'queuing';
const SETTLED = '1';

/** Webhook events: deduplicated and coalesced per contact on the way in, then verified and written back one contact at a time. */
export class EventWorker {
  constructor(private readonly ctx: PipelineContext, private readonly rechecks: RecheckWorker) {}

  /** A delivery seen before (same dedupeKey) is dropped for a day; a contact already waiting is coalesced. */
  async enqueue(event: ContactEvent & { connectionId: string }): Promise<{ queued: boolean }> {
    const { redis, keys, queues, settings } = this.ctx;
    const delivery = hash(event.connectionId + '\n' + event.dedupeKey);
    const deliveryGate = keys.eventGate(`d:${delivery}`);
    const contactKey = hash(`${event.connectionId}\n${event.contactId}`);
    // One job id per delivered event: queued again (a forwarder died, a delivery came twice), BullMQ keeps the one job.
    const add = () => queues.events.add('event', { event } satisfies EventJobData, { jobId: `evt-${contactKey}-${delivery}`, delay: settings.eventCoalesceMs, ...this.ctx.jobDefaults() });
    // The gate says `queuing` until the event is queued, then is settled for 24 h. A forwarder killed in
    // between leaves it `queuing`, and the one that takes its delivery over queues the event itself: a gate
    // that only expired had the delivery, taken over within seconds (a short VERIFY_HUB_JOB_LOCK_MS), dropped
    // as a repeat while nothing was queued.
    if ((await redis.set(deliveryGate, QUEUING, 'PX', DEDUPE_MS, 'NX')) !== 'OK') {
      if ((await redis.get(deliveryGate)) !== QUEUING) return { queued: false };
      await add();
      await redis.set(deliveryGate, SETTLED, 'PX', DEDUPE_MS);
      return { queued: true };
    }
    const contactGate = keys.eventGate(`c:${contactKey}`);
    const gate = await redis.set(contactGate, '1', 'PX', settings.eventCoalesceMs, 'NX');
    if (gate !== 'OK') {
      // Covered by the contact's queued event.
      await redis.set(deliveryGate, SETTLED, 'PX', DEDUPE_MS);
      return { queued: false };
    }
    try {
      await add();
    } catch (error) {
      // Not queued: open both gates again, so the caller's retry is not taken for a duplicate and lost.
      // One DEL per gate: on a cluster the two keys may live on different slots.
      await Promise.all([redis.del(deliveryGate), redis.del(contactGate)]).catch(() => undefined);
      throw error;
    }
    await redis.set(deliveryGate, SETTLED, 'PX', DEDUPE_MS);
    return { queued: true };
  }

  async handle(job: Job<EventJobData>, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    const { event } = job.data;
    if (event.kind === 'unsubscribed' || event.kind === 'cleaned') return; // nothing to verify
    const connection = await this.ctx.connectionStore().get(event.connectionId);
    if (!connection) return this.drop(job, 'unknown_connection', `no stored connection "${event.connectionId}"`);
    const connector = this.ctx.connectorOf(connection, 'interactive');
    const writeOptions = (connection.settings?.writeOptions ?? {}) as WriteOptions;
    let outcome: ChunkOutcome;
    try {
      let contact = event.email ? { id: event.contactId, email: event.email } : undefined;
      if (connector.pullByIds) contact = (await connector.pullByIds([event.contactId]))[0] ?? contact;
      if (!contact?.email) return;
      outcome = await processChunk({ contacts: [contact], connectionId: connection.id, writeOptions, purchaseScope: `event:${job.id}`, maxRateLimitWaitMs: 0, whenStopped: 'return' }, { connector, verifier, cache: this.ctx.cache, concurrency: 1 });
    } catch (error) {
      const stop = platformStop(error);
      if (!stop) throw permanentAsUnrecoverable(error);
      if (stop.reason === 'rate') return this.wait(job, token, worker, { rateMs: stop.waitMs });
      return this.wait(job, token, worker, { until: stop.stopped.resumeAt, why: stop.stopped.message });
    }
    if (outcome.status === 'stopped') {
      const stop = outcome.stopped!;
      const rateWait = rateWaitOf(stop);
      if (rateWait !== undefined) return this.wait(job, token, worker, { rateMs: rateWait });
      return this.wait(job, token, worker, { until: stop.resumeAt, why: stop.message });
    }
    if (outcome.unknownContacts.length && this.ctx.settings.recheckDelaysMs.length) {
      await this.rechecks.enqueue({ platform: connection.platform, connectionId: connection.id, attempt: 0, contacts: outcome.unknownContacts, writeOptions }, String(job.id));
    }
  }

  /**
   * An event that cannot be handled now (a rate limit, the engine's quota, HubSpot's daily limit, a
   * refused key) waits instead of spending its attempts: a rate limit holds the events queue until the
   * reset; a quota or auth stop delays the job until the reset (or an hour, for a key to be fixed). An
   * event still waiting after EVENT_MAX_WAIT_MS is dropped, counted and logged.
   */
  private async wait(job: Job<EventJobData>, token: string | undefined, worker: Worker, wait: EventWait): Promise<void> {
    if ('rateMs' in wait) {
      await worker.rateLimit(wait.rateMs);
      throw Worker.RateLimitError();
    }
    if (Date.now() - job.timestamp > EVENT_MAX_WAIT_MS) return this.drop(job, 'waited_too_long', wait.why);
    await job.moveToDelayed(Math.min(wait.until ?? Date.now() + 3_600_000, job.timestamp + EVENT_MAX_WAIT_MS + 1000), token);
    this.ctx.log.info({ jobId: job.id, until: wait.until, why: wait.why }, 'webhook event waits');
    throw new DelayedError();
  }

  private drop(job: Job<EventJobData>, reason: string, detail: string): void {
    syncMetrics.eventsDropped.inc({ reason });
    this.ctx.log.warn({ jobId: job.id, connectionId: job.data.event.connectionId, kind: job.data.event.kind, reason, detail }, 'webhook event dropped');
  }

  async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || (await job.getState().catch(() => 'unknown')) !== 'failed') return;
    this.drop(job as Job<EventJobData>, 'failed', error.message);
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
