// Over 300 lines on purpose: SyncPipeline is the facade the CLI, the hub and the tests use (RunService,
// ConnectionOperations); each method is a few lines handing over to the part that does the work
// (run-commands, pager, chunk-worker, event-worker, recheck-worker, worker-lifecycle, ...).
import { EventEmitter } from 'node:events';
import { Queue } from 'bullmq';
import type { Cluster } from 'ioredis';
import {
  ConfigError,
  DEFAULT_FRESHNESS_DAYS,
  InputError,
  SecretBox,
  closeRedis,
  createLogger,
  describeRedisTarget,
  isBounceEvent,
  parseRedisUrl,
  parseScope,
  type Config,
  type ConnectionStore,
  type Connector,
  type ContactEvent,
  type DisconnectReport,
  type LimiterFactory,
  type Logger,
  type SchemaReport,
  type Verifier,
} from '@verify-hub/core';
import { BounceLedger } from './bounce-ledger';
import { BounceSync, type BounceReadSummary } from './bounce-sync';
import { ChunkWorker } from './chunk-worker';
import { RedisConnectionStore } from './connection-store';
import { defaultConnectorRegistry, type ConnectorRegistry } from './connector-registry';
import type { ConnectionOperations, ReportRow, RunBreakdown, RunEstimate, RunListFilter, RunRecord, RunService, StartRunRequest } from './contracts';
import { estimateSource } from './estimate';
import { EventWorker } from './event-worker';
import { Keys } from './keys';
import { trackQueueDepth } from './metrics';
import { Pager } from './pager';
import { FINISHED_CHANNEL, PipelineContext, throwInput } from './pipeline-context';
import { PrivacyEraser, type ErasureSummary } from './privacy-erasure';
import { QUEUE } from './queues';
import { RecheckWorker } from './recheck-worker';
import { DEFAULT_RECHECK_DELAYS_MS } from './recheck-schedule';
import { RedisVerificationCache } from './redis-cache';
import { createRedisLimiterFactory } from './redis-limiter';
import { createRedis, hotPathConnection, type Redis } from './redis';
import { RunCommands } from './run-commands';
import { disconnectUninstalled } from './app-uninstall';
import { RunPauses } from './run-pauses';
import { RunReconciler } from './run-reconciler';
import { DEFAULT_RETENTION_DAYS, RunStore } from './run-store';
import { ScheduleStore } from './schedule-store';
import { SingleWriterRun } from './single-writer-run';
import { engineVerifier, startWorkers, type SyncWorkers } from './worker-lifecycle';
import { FairLanes } from './fair-lanes';

export type { SyncWorkers } from './worker-lifecycle';

export interface SyncPipelineOptions {
  /** Default REDIS_URL or redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Prefix of every key and queue (default `vh:sync`). */
  prefix?: string;
  /** The engine; needed by workers only. */
  verifier?: Verifier;
  /** Names the engine limiter shared by all workers (for example a hash of the key); default `engine`. */
  engineKey?: string;
  /** Engine requests per second across every worker (the plan's rate), and at most this many at once. */
  engineRatePerSecond?: number;
  engineMaxConcurrent?: number;
  /** The platforms whose connectors runs use (default: the installed ones, core's `installedPlatforms`). */
  connectors?: ConnectorRegistry;
  /** The process's configuration: each platform's connector is given its module's variables from it (defaults without). */
  config?: Config;
  /** Stored platform connections (required for runs with a connectionId). */
  connections?: ConnectionStore;
  /** HUB_SECRET_KEY: without `connections`, connections are stored in this Redis, sealed with it. */
  secretKey?: string;
  /** Chunk jobs each worker runs at once (default 4). */
  chunkConcurrency?: number;
  /** Verifications in flight per chunk (default 10). */
  verifyConcurrency?: number;
  /** Delays of the re-checks of unknown results (default 30 min, 2 h, 8 h, 24 h, 5 days). */
  recheckDelaysMs?: number[];
  /** Pages enqueued but not done before the pager waits (default 20): bounds Redis memory. */
  maxOutstandingPages?: number;
  /** Pages one pager job enqueues before handing over to the next (default 10). */
  pagesPerPagerJob?: number;
  /** Events for one contact within this window become one job (default 5 s). */
  eventCoalesceMs?: number;
  freshnessDays?: number;
  /** Attempts of a chunk or page job on errors other than rate limits (default 5). */
  attempts?: number;
  /** Days a run's record and report are kept after its last change (default 30; VERIFY_HUB_RETENTION_DAYS). */
  retentionDays?: number;
  /**
   * Times a job may be found stalled (its worker died or hung past the lock) and be given to another
   * worker before BullMQ fails it for good (default 5; BullMQ's own default is 1). Replaying a job is
   * safe (results are cached as bought, writes compare with the platform, a page counts once), and a
   * worker killed twice while holding the same chunk is a deploy or a crash loop, not a bad job; the
   * limit still ends a job that kills every worker it lands on (it is then counted as failed).
   */
  maxStalledCount?: number;
  /** How long a worker's lock on a job lasts without renewal (default 30 s: BullMQ's); a dead worker's jobs are taken back after it. */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs (default 30 s: BullMQ's). */
  stalledIntervalMs?: number;
  /** How often a worker process reconciles queued and running runs (run-reconciler.ts); it also does on start (default 60 s). */
  reconcileIntervalMs?: number;
  /**
   * How long a chunk that found the run's credit cap held by other chunks waits before asking again
   * (default 1 s, with jitter): the others may not spend all they reserved (cached addresses cost
   * nothing), so the run only stops at its limit once nothing is held any more.
   */
  creditWaitMs?: number;
  /** How often a worker process reads the connections' bounce sources (bounce-sync.ts; default 15 min; 0: never). */
  bounceReadIntervalMs?: number;
  logger?: Logger;
}

/**
 * The sync pipeline on BullMQ + Redis (DESIGN.md §5), implementing `RunService` and
 * `ConnectionOperations`; `schedules` is its `ScheduleService`. One instance can enqueue (CLI, hub
 * service) and run workers (`startWorkers`); any number of processes share the work through Redis.
 * Run state, cache, limiters, parked chunks and schedules all live under one key prefix. The work
 * itself is done by one part per job: run-commands, pager, chunk-worker, single-writer-run,
 * recheck-worker, event-worker, worker-lifecycle (over pipeline-context and run-pauses).
 */
export class SyncPipeline implements RunService, ConnectionOperations {
  readonly keys: Keys;
  readonly redis: Redis;
  /**
   * The connection of the per-address commands (limiter turns, cache writes): a second, auto-pipelined
   * one except on a Cluster (redis.ts), so the commands many verifications issue in one turn of the event
   * loop leave in one socket write, not one write each (a 25,000-contact run's workers used about a
   * fifth less system CPU). BullMQ keeps `redis`: its workers block on connections duplicated from it,
   * which must not be pipelined.
   */
  private readonly hotPath: Redis;
  readonly store: RunStore;
  readonly cache: RedisVerificationCache;
  /** Shared limiters (engine, platforms), as run chunks take them: interactive work goes first (redis-limiter.ts). */
  readonly limiters: LimiterFactory;
  readonly queues: { runs: Queue; chunks: Queue; events: Queue };
  /** Recurring runs (the `ScheduleService`): definitions in Redis, a BullMQ job scheduler while active. */
  readonly schedules: ScheduleStore;
  /** Where platform connections are kept (undefined without HUB_SECRET_KEY). */
  readonly connections?: ConnectionStore;
  /** Finds runs nothing moves any more and moves them (see run-reconciler.ts). */
  readonly reconciler: RunReconciler;
  /** The connections' bounce ledgers, read from their platforms' bounce sources (bounce-ledger.ts, bounce-sync.ts). */
  readonly bounceLedger: BounceLedger;
  readonly bounces: BounceSync;
  private readonly ctx: PipelineContext;
  private readonly commands: RunCommands;
  private readonly pager: Pager;
  private readonly chunkWorker: ChunkWorker;
  private readonly rechecks: RecheckWorker;
  private readonly events: EventWorker;
  private readonly log: Logger;
  private readonly finished = new EventEmitter();
  private subscriber?: Redis;
  private readonly redisUrl: string;
  private readonly untrack: (() => void)[] = [];

  constructor(private readonly options: SyncPipelineOptions = {}) {
    this.redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    this.redis = createRedis(this.redisUrl);
    this.keys = new Keys(options.prefix ?? 'vh:sync', { cluster: this.redis.isCluster });
    this.store = new RunStore(this.redis, this.keys, { retentionDays: options.retentionDays });
    const settings = {
      chunkConcurrency: options.chunkConcurrency ?? 4,
      verifyConcurrency: options.verifyConcurrency ?? 10,
      recheckDelaysMs: options.recheckDelaysMs ?? DEFAULT_RECHECK_DELAYS_MS,
      maxOutstandingPages: options.maxOutstandingPages ?? 20,
      pagesPerPagerJob: options.pagesPerPagerJob ?? 10,
      eventCoalesceMs: options.eventCoalesceMs ?? 5000,
      attempts: options.attempts ?? 5,
      freshnessDays: options.freshnessDays ?? DEFAULT_FRESHNESS_DAYS,
      maxStalledCount: options.maxStalledCount ?? 5,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
      creditWaitMs: options.creditWaitMs ?? 1000,
    };
    this.hotPath = hotPathConnection(this.redis);
    this.cache = new RedisVerificationCache(this.hotPath, this.keys, { freshnessDays: settings.freshnessDays });
    this.limiters = createRedisLimiterFactory(this.hotPath, this.keys, { lane: 'bulk' });
    const interactiveLimiters = createRedisLimiterFactory(this.hotPath, this.keys, { lane: 'interactive' });
    const registry = options.connectors ?? defaultConnectorRegistry;
    this.connections = options.connections ?? (options.secretKey ? new RedisConnectionStore(this.redis, this.keys, new SecretBox(options.secretKey)) : undefined);
    this.log = options.logger ?? createLogger({ name: 'sync-jobs' });
    // ioredis reconnects by itself; its errors are logged, not thrown at the process.
    for (const client of this.ownConnections()) client.on('error', (error: Error) => this.log.debug({ err: error.message }, 'redis connection error'));
    const queueOpts = { connection: this.redis, prefix: this.keys.queuePrefix };
    this.queues = { runs: new Queue(QUEUE.runs, queueOpts), chunks: new Queue(QUEUE.chunks, queueOpts), events: new Queue(QUEUE.events, queueOpts) };
    for (const q of Object.values(this.queues)) this.untrack.push(trackQueueDepth(q));
    const ctx = new PipelineContext(this.redis, this.keys, this.store, this.cache, { bulk: this.limiters, interactive: interactiveLimiters }, new FairLanes(this.redis, this.keys), this.queues, registry, this.connections, settings, this.log, options.config);
    this.ctx = ctx;
    const pauses = new RunPauses(ctx, (connectionId) =>
      this.connections ? disconnectUninstalled(connectionId, { connections: this.connections, runs: this, schedules: this.schedules, logger: this.log }) : Promise.resolve(),
    );
    this.rechecks = new RecheckWorker(ctx);
    this.pager = new Pager(ctx, pauses, new SingleWriterRun(ctx, pauses));
    this.chunkWorker = new ChunkWorker(ctx, pauses, this.rechecks);
    this.events = new EventWorker(ctx, this.rechecks);
    this.reconciler = new RunReconciler({
      redis: this.redis,
      keys: this.keys,
      store: this.store,
      queues: this.queues,
      log: this.log,
      repairs: {
        countFailedChunk: (data, reason) => this.chunkWorker.countFailed(data, reason),
        requeuePage: (runId, pageIndex) => this.pager.requeuePage(runId, pageIndex),
        enqueuePager: (runId, pageIndex) => this.pager.enqueue(runId, pageIndex),
        failRun: (runId, reason) => ctx.finishAs(runId, 'failed', reason),
        completeIfDone: (runId) => ctx.completeIfDone(runId),
      },
    });
    this.commands = new RunCommands(ctx, this.pager, this.reconciler);
    this.schedules = new ScheduleStore(this.redis, this.keys, this.queues.runs, (request) => this.commands.checkRequest(request));
    this.bounceLedger = new BounceLedger(this.redis, this.keys, this.cache, { retentionDays: options.retentionDays ?? DEFAULT_RETENTION_DAYS });
    this.bounces = new BounceSync({
      redis: this.redis,
      keys: this.keys,
      ledger: this.bounceLedger,
      connections: async () => (this.connections ? this.connections.list() : []),
      connectorOf: (connection) => ctx.connectorOf(connection),
      writeBatchSize: (platform) => registry.writeBatchSize(platform),
      log: this.log,
    });
  }

  /** Resolves once Redis answers; a clear ConfigError naming REDIS_URL (host and port only) when it does not. */
  async ready(timeoutMs = 3000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConfigError('REDIS_URL', `no Redis answers at ${describeRedisTarget(parseRedisUrl(this.redisUrl))} within ${timeoutMs} ms: start one (redis-server) or point REDIS_URL at yours`)), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  // ------------------------------------------------------------------ RunService (run-commands.ts)

  start(request: StartRunRequest): Promise<RunRecord> {
    return this.commands.start(request);
  }

  get(id: string): Promise<RunRecord | undefined> {
    return this.store.get(id);
  }

  list(filter?: RunListFilter): Promise<RunRecord[]> {
    return this.store.list(filter);
  }

  cancel(id: string, reason?: string): Promise<RunRecord> {
    return this.commands.cancel(id, reason);
  }

  pause(id: string): Promise<RunRecord> {
    return this.commands.pause(id);
  }

  resume(id: string, changes: { maxCredits?: number } = {}): Promise<RunRecord> {
    return this.commands.resume(id, changes);
  }

  recheckUnknowns(id: string): Promise<RunRecord> {
    return this.commands.recheckUnknowns(id);
  }

  async breakdown(id: string): Promise<RunBreakdown> {
    await this.commands.mustGet(id);
    return this.store.breakdown(id);
  }

  report(id: string): AsyncIterable<ReportRow> {
    return this.store.report(id);
  }

  async enqueueEvent(event: ContactEvent & { connectionId: string }): Promise<{ queued: boolean; erased?: ErasureSummary }> {
    if (!event.connectionId) throw new InputError('connectionId', 'is required');
    if (!event.contactId) throw new InputError('contactId', 'is required');
    if (event.kind === 'privacy_deletion') return { queued: false, erased: await this.eraseContact(event) };
    if (isBounceEvent(event)) await this.recordPushedBounce(event);
    return this.events.enqueue(event);
  }

  /**
   * A platform's privacy deletion, done at once rather than queued (a queued job would itself hold the
   * address): see privacy-erasure.ts. The log line holds counts only, never the address or contact id.
   */
  async eraseContact(event: Pick<ContactEvent, 'contactId' | 'email'> & { connectionId: string }): Promise<ErasureSummary> {
    const summary = await new PrivacyEraser(this.redis, this.keys, this.queues, this.bounceLedger).erase(event);
    this.log.info({ connectionId: event.connectionId, ...summary }, 'contact erased for privacy');
    return summary;
  }

  /** A bounce a platform pushed (Mailchimp's `cleaned` webhook): into the connection's ledger; a stored connection only. */
  private async recordPushedBounce(event: Parameters<BounceSync['recordPushed']>[1] & { connectionId: string }): Promise<void> {
    const connection = await this.connections?.get(event.connectionId);
    if (connection) await this.bounces.recordPushed(connection, event);
  }

  /** Reads the bounce sources of every stored connection, or of one, now (`verify-hub accuracy --read`). */
  async readBounces(connectionId?: string): Promise<BounceReadSummary[]> {
    if (!connectionId) return this.bounces.readAll();
    const connection = (await this.ctx.connectionStore().get(connectionId)) ?? throwInput('connection', `no stored connection "${connectionId}"`);
    return [await this.bounces.read(connection)];
  }

  /** The accuracy report (GET /api/accuracy, `verify-hub accuracy`). */
  accuracy(days: number, connectionId?: string) {
    return this.bounces.report(days, { connectionId });
  }

  onRunFinished(listener: (run: RunRecord) => void): () => void {
    this.finished.on('finished', listener);
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      const channel = `${this.keys.prefix}:${FINISHED_CHANNEL}`;
      void this.subscriber.subscribe(channel);
      this.subscriber.on('message', (_ch: string, id: string) => {
        void this.store.get(id).then((run) => run && this.finished.emit('finished', run));
      });
    }
    return () => this.finished.off('finished', listener);
  }

  // ------------------------------------------------------------------ ConnectionOperations

  /** Credits a run would cost now: unique addresses of the source not fresh in the cache. Reads the whole source. */
  async estimate(request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>): Promise<RunEstimate> {
    const connector = await this.ctx.connectorFor(request.platform, request.connectionId);
    return estimateSource(connector, parseScope(request.scope), this.cache.withFreshness(request.options?.freshnessDays ?? this.ctx.settings.freshnessDays));
  }

  /** Creates the write-back fields of stored connection `connectionId` in its platform (idempotent). */
  async ensureSchema(connectionId: string): Promise<SchemaReport> {
    if (!connectionId) throw new InputError('connectionId', 'is required');
    return (await this.storedConnector(connectionId)).ensureSchema();
  }

  async disconnectPlatform(connectionId: string): Promise<DisconnectReport> {
    return (await (await this.storedConnector(connectionId)).disconnect?.()) ?? { deleted: [] };
  }

  /** A stored connection's connector, with the pipeline's limiters (workflow-action callbacks use it). */
  openConnector(platform: string, connectionId: string): Promise<Connector> {
    return this.ctx.connectorFor(platform, connectionId, 'interactive');
  }

  /** `base` behind the engine limiter every process shares, ahead of run chunks: for single-address checks. */
  interactiveVerifier(base: Verifier): Verifier {
    return engineVerifier(this.ctx, base, this.options, 'interactive');
  }

  private async storedConnector(connectionId: string): Promise<Connector> {
    const connection = (await this.ctx.connectionStore().get(connectionId)) ?? throwInput('connectionId', `no stored connection "${connectionId}"`);
    return this.ctx.connectorOf(connection);
  }

  // ------------------------------------------------------------------ processes

  /** Starts the `runs`, `chunks` and `events` workers in this process (worker-lifecycle.ts). */
  startWorkers(overrides: { verifier?: Verifier } = {}): SyncWorkers {
    const verifier = overrides.verifier ?? this.options.verifier;
    if (!verifier) throw new InputError('verifier', 'workers need an engine: set ENGINE_URL and ENGINE_API_KEY');
    const { engineKey, engineRatePerSecond, engineMaxConcurrent, lockDurationMs, stalledIntervalMs } = this.options;
    const parts = { commands: this.commands, pager: this.pager, chunks: this.chunkWorker, rechecks: this.rechecks, events: this.events, reconciler: this.reconciler, schedules: this.schedules };
    const workers = startWorkers(this.ctx, parts, { verifier, engineKey, engineRatePerSecond, engineMaxConcurrent, lockDurationMs, stalledIntervalMs });
    const interval = this.options.bounceReadIntervalMs ?? 15 * 60_000;
    if (interval <= 0 || !this.connections) return workers;
    // Each connection is read by one process at a time (a lease), so every worker may run the timer.
    const timer = setInterval(() => void this.bounces.readAll().catch((err: Error) => this.log.warn({ err: err.message }, 'reading bounces failed')), interval);
    timer.unref();
    const stop = () => clearInterval(timer);
    return { ...workers, close: () => (stop(), workers.close()), kill: () => (stop(), workers.kill()) };
  }

  async close(): Promise<void> {
    for (const u of this.untrack) u();
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
    if (this.subscriber) await closeRedis(this.subscriber);
    await Promise.all(this.ownConnections().map(closeRedis));
  }

  /** Drops the Redis connections at once (when Redis does not answer, a graceful close would wait). */
  disconnect(): void {
    for (const u of this.untrack) u();
    this.subscriber?.disconnect();
    for (const client of this.ownConnections()) client.disconnect();
  }

  /** `redis` and the per-address connection, once each (on a Cluster they are one). */
  private ownConnections(): Redis[] {
    return [...new Set([this.redis, this.hotPath])];
  }

  /** Deletes every key under this pipeline's prefix (tests and `runs purge`). */
  async purge(): Promise<void> {
    for (const q of Object.values(this.queues)) await q.obliterate({ force: true }).catch(() => undefined);
    // A cluster's keys are spread over its masters: each is scanned, and keys deleted one by one (slots differ).
    const nodes = this.redis.isCluster ? (this.redis as unknown as Cluster).nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${this.keys.prefix}:*`, 'COUNT', 1000);
        if (keys.length) await (this.redis.isCluster ? Promise.all(keys.map((key) => this.redis.del(key))) : this.redis.del(...keys));
        cursor = next;
      } while (cursor !== '0');
    }
  }
}
