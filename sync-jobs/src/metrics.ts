import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Anything with BullMQ's job counts and listing: the pipeline's queues register here for the depth and age gauges. */
interface CountsSource {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  /** BullMQ's `Queue.getJobs`: with `asc` the oldest first. */
  getJobs(types: ('waiting' | 'prioritized')[], start: number, end: number, asc: boolean): Promise<Array<{ timestamp: number; delay?: number } | undefined>>;
}

/** How many prioritized jobs the oldest-waiting gauge reads (the next to run: each lane's oldest is among them). */
const PRIORITIZED_LOOKED_AT = 100;
const depthSources = new Set<CountsSource>();

/**
 * The pipeline's Prometheus metrics, in a registry of their own that the hub service serves at
 * /metrics (with any other registry it merges). Labels are low-cardinality: platform, risk, kind,
 * queue and state; never a contact, address or key.
 */
export const metricsRegistry = new Registry();

export const syncMetrics = {
  contactsProcessed: new Counter({
    name: 'verify_hub_contacts_processed_total',
    help: 'Contacts that went through a chunk (verified, served from cache or rejected), by platform',
    labelNames: ['platform'] as const,
    registers: [metricsRegistry],
  }),
  verifications: new Counter({
    name: 'verify_hub_verifications_total',
    help: 'Results by risk and where they came from (engine or cache)',
    labelNames: ['risk', 'source'] as const,
    registers: [metricsRegistry],
  }),
  engineLatency: new Histogram({
    name: 'verify_hub_engine_latency_seconds',
    help: 'Time of one engine verification, limiter wait excluded',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metricsRegistry],
  }),
  errors: new Counter({
    name: 'verify_hub_errors_total',
    help: 'Failures by kind: engine_rate_limit, engine_quota, engine_auth, write_failed, chunk_failed, source_failed',
    labelNames: ['kind'] as const,
    registers: [metricsRegistry],
  }),
  eventsDropped: new Counter({
    name: 'verify_hub_events_dropped_total',
    help: 'Webhook events given up on for good (unknown connection, waited past the limit, failed every attempt), by reason',
    labelNames: ['reason'] as const,
    registers: [metricsRegistry],
  }),
  runsReconciled: new Counter({
    name: 'verify_hub_runs_reconciled_total',
    help: 'Repairs made by the run reconciler, by action: page_failed (a chunk that stopped for good counted), page_requeued, pager_requeued, credits_released (reservations of chunks no longer running), completed',
    labelNames: ['action'] as const,
    registers: [metricsRegistry],
  }),
  credits: new Counter({
    name: 'verify_hub_credits_total',
    help: 'Billable verifications spent, by platform',
    labelNames: ['platform'] as const,
    registers: [metricsRegistry],
  }),
  writes: new Counter({
    name: 'verify_hub_writes_total',
    help: 'Contacts written back, by platform and outcome (written, unchanged, failed)',
    labelNames: ['platform', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  connectionContacts: new Counter({
    name: 'verify_hub_connection_contacts_total',
    help: 'Contacts that went through a chunk, by stored connection id (throughput per account; file runs have none)',
    labelNames: ['connection'] as const,
    registers: [metricsRegistry],
  }),
  bounceRecords: new Counter({
    name: 'verify_hub_bounces_total',
    help: 'Bounces recorded in the bounce ledgers, each address once per connection and kind: mailbox (a hard bounce of the mailbox), soft, policy (reputation, content, abuse), by platform',
    labelNames: ['platform', 'kind'] as const,
    registers: [metricsRegistry],
  }),
  bounceVerdicts: new Counter({
    name: 'verify_hub_bounce_verdicts_total',
    help: 'Bounces recorded by the verdict verify-hub held for the address when it was sent to (safe, risky, unknown, invalid, not_verified) and kind (mailbox, soft, policy)',
    labelNames: ['verdict', 'kind'] as const,
    registers: [metricsRegistry],
  }),
  verdictsCorrected: new Counter({
    name: 'verify_hub_verdicts_corrected_total',
    help: 'Cached safe or risky verdicts replaced by invalid (reason hard_bounce) after the platform reported a hard bounce of the mailbox, by platform',
    labelNames: ['platform'] as const,
    registers: [metricsRegistry],
  }),
  queueOldestWaiting: new Gauge({
    name: 'verify_hub_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job ready to run but not yet taken by a worker, per queue (0 when none waits): growing means workers are too few',
    labelNames: ['queue'] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const now = Date.now();
      for (const source of depthSources) {
        try {
          // Chunks wait prioritized (fair-lanes.ts): each lane's oldest is among the next to run, so the
          // first PRIORITIZED_LOOKED_AT of them stand for all.
          const ready = [...(await source.getJobs(['waiting'], 0, 0, true)), ...(await source.getJobs(['prioritized'], 0, PRIORITIZED_LOOKED_AT - 1, true))];
          // A delayed job becomes ready at timestamp + delay: its wait starts then, not when it was added.
          const readySince = Math.min(now, ...ready.map((job) => (job ? job.timestamp + (job.delay ?? 0) : now)));
          this.set({ queue: source.name }, Math.max(0, (now - readySince) / 1000));
        } catch {
          // As for the depth gauge: an unreachable queue reports nothing.
        }
      }
    },
  }),
  queueDepth: new Gauge({
    name: 'verify_hub_queue_depth',
    help: 'Jobs per queue and state, read from Redis when scraped',
    labelNames: ['queue', 'state'] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      for (const source of depthSources) {
        try {
          const counts = await source.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized', 'paused');
          for (const [state, n] of Object.entries(counts)) this.set({ queue: source.name, state }, n);
        } catch {
          // A closed or unreachable queue reports nothing rather than failing the whole scrape.
        }
      }
    },
  }),
};

export function trackQueueDepth(source: CountsSource): () => void {
  depthSources.add(source);
  return () => depthSources.delete(source);
}
