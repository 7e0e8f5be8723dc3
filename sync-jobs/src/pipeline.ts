import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import {
  AuthError,
  ConfigError,
  DEFAULT_FRESHNESS_DAYS,
  InputError,
  QuotaError,
  RateLimitError,
  SecretBox,
  createLogger,
  describeRedisTarget,
  parseRedisUrl,
  noLimit,
  normalizeEmail,
  parseScope,
  runName,
  type ConnectionRecord,
  type ConnectionStore,
  type Connector,
  type ContactEvent,
  type LimiterFactory,
  type Page,
  type Logger,
  type DisconnectReport,
  type SchemaReport,
  type Scope,
  type Verification,
  type Verifier,
  type WriteOptions,
} from '@verify-hub/core';
import { processChunk, type ChunkOutcome } from './chunk-processor';
import { runInProcess } from './in-process-executor';
import { RedisConnectionStore } from './connection-store';
import type { ConnectionOperations, CronPreview, ReportRow, RunBreakdown, RunEstimate, RunListFilter, RunRecord, RunSchedule, RunService, ScheduleService, ScheduleView, StartRunRequest } from './contracts';
import { defaultConnectorRegistry, type ConnectorRegistry } from './connector-registry';
import { Keys } from './keys';
import { syncMetrics, trackQueueDepth } from './metrics';
import { PrivacyEraser, type ErasureSummary } from './privacy-erasure';
import { jobIds, PARK_MS, QUEUE, type ChunkJobData, type EventJobData, type PageJobData, type RecheckJobData, type ScheduledJobData } from './queues';
import { DEFAULT_RECHECK_DELAYS_MS } from './recheck-schedule';
import { RedisVerificationCache } from './redis-cache';
import { createRedisLimiterFactory } from './redis-limiter';
import type { Cluster } from 'ioredis';
import { createRedis, type Redis } from './redis';
import { RunLease } from './run-lease';
import { estimateSource } from './estimate';
import { RunReconciler } from './run-reconciler';
import { RunStore, USER_PAUSE_REASON } from './run-store';
import { priorReason } from './run-breakdown';
import { SCHEDULED_JOB, ScheduleStore } from './schedule-store';
import { limitedVerifier } from './verifier-wrappers';

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
  connectors?: ConnectorRegistry;
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
  logger?: Logger;
}

export interface SyncWorkers {
  /** The engine as these workers use it: behind the limiter every worker shares (other jobs of this process use it too). */
  readonly verifier: Verifier;
  close(): Promise<void>;
  /** Stops taking jobs and leaves active ones to be picked up again by another worker (a crash, for tests). */
  kill(): Promise<void>;
}

const FINISHED_CHANNEL = 'run-finished';
/** How long a run's start waits for its connector's total or scope name before going on without it. */
const CONNECTOR_QUESTION_MS = 5000;
const RUN_NAME_MAX = 200;

/**
 * The sync pipeline on BullMQ + Redis (DESIGN.md §5), implementing `RunService`, `ScheduleService`
 * and `ConnectionOperations`. One instance can enqueue (CLI, hub service) and run workers
 * (`startWorkers`); any number of processes share the work through Redis. Run state, cache,
 * limiters, parked chunks and schedules all live under one key prefix.
 */
export class SyncPipeline implements RunService, ScheduleService, ConnectionOperations {
  readonly keys: Keys;
  readonly redis: Redis;
  readonly store: RunStore;
  readonly cache: RedisVerificationCache;
  readonly limiters: LimiterFactory;
  readonly queues: { runs: Queue; chunks: Queue; events: Queue };
  /** Recurring runs: definitions in Redis, a BullMQ job scheduler while active. */
  readonly schedules: ScheduleStore;
  /** Where platform connections are kept (undefined without HUB_SECRET_KEY). */
  readonly connections?: ConnectionStore;
  private readonly registry: ConnectorRegistry;
  private readonly log: Logger;
  private readonly finished = new EventEmitter();
  private subscriber?: Redis;
  private readonly redisUrl: string;
  private workerVerifier?: Verifier;
  private readonly untrack: (() => void)[] = [];
  private readonly opts: Required<Pick<SyncPipelineOptions, 'chunkConcurrency' | 'verifyConcurrency' | 'recheckDelaysMs' | 'maxOutstandingPages' | 'pagesPerPagerJob' | 'eventCoalesceMs' | 'attempts' | 'freshnessDays' | 'maxStalledCount' | 'reconcileIntervalMs' | 'creditWaitMs'>>;
  /** Finds runs nothing moves any more and moves them (see run-reconciler.ts). */
  readonly reconciler: RunReconciler;

  constructor(private readonly options: SyncPipelineOptions = {}) {
    this.redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    this.redis = createRedis(this.redisUrl);
    this.keys = new Keys(options.prefix ?? 'vh:sync', { cluster: this.redis.isCluster });
    this.store = new RunStore(this.redis, this.keys, { retentionDays: options.retentionDays });
    this.opts = {
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
    this.cache = new RedisVerificationCache(this.redis, this.keys, { freshnessDays: this.opts.freshnessDays });
    this.limiters = createRedisLimiterFactory(this.redis, this.keys);
    this.registry = options.connectors ?? defaultConnectorRegistry;
    this.connections = options.connections ?? (options.secretKey ? new RedisConnectionStore(this.redis, this.keys, new SecretBox(options.secretKey)) : undefined);
    this.log = options.logger ?? createLogger({ name: 'sync-jobs' });
    // ioredis reconnects by itself; its errors are logged, not thrown at the process.
    this.redis.on('error', (error: Error) => this.log.debug({ err: error.message }, 'redis connection error'));
    const queueOpts = { connection: this.redis, prefix: this.keys.queuePrefix };
    this.queues = { runs: new Queue(QUEUE.runs, queueOpts), chunks: new Queue(QUEUE.chunks, queueOpts), events: new Queue(QUEUE.events, queueOpts) };
    for (const q of Object.values(this.queues)) this.untrack.push(trackQueueDepth(q));
    this.schedules = new ScheduleStore(this.redis, this.keys, this.queues.runs, (request) => this.checkRequest(request));
    this.reconciler = new RunReconciler({
      redis: this.redis,
      keys: this.keys,
      store: this.store,
      queues: this.queues,
      log: this.log,
      repairs: {
        countFailedChunk: (data, reason) => this.countFailedChunk(data, reason),
        requeuePage: (runId, pageIndex) => this.requeuePage(runId, pageIndex),
        enqueuePager: (runId, pageIndex) => this.enqueuePager(runId, pageIndex),
        failRun: (runId, reason) => this.finishAs(runId, 'failed', reason),
        completeIfDone: (runId) => this.completeIfDone(runId),
      },
    });
  }

  /** Resolves once Redis answers; a clear ConfigError naming REDIS_URL (host and port only) when it does not. */
  async ready(timeoutMs = 3000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConfigError('REDIS_URL', `no Redis answers at ${this.redisAddress()} within ${timeoutMs} ms: start one (redis-server) or point REDIS_URL at yours`)), timeoutMs);
    });
    try {
      await Promise.race([this.redis.ping(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private redisAddress(): string {
    return describeRedisTarget(parseRedisUrl(this.redisUrl));
  }

  // ------------------------------------------------------------------ RunService

  async start(request: StartRunRequest): Promise<RunRecord> {
    await this.checkRequest(request);
    const [expectedTotal, name, connectionLabel] = await Promise.all([this.expectedTotal(request), this.runNameOf(request), this.connectionLabelOf(request)]);
    const run = await this.store.create({ ...request, name }, { expectedTotal, connectionLabel });
    await this.enqueuePager(run.id, 0);
    return run;
  }

  /**
   * Asks the run's connector something cheap about its scope at start (its total, its name), within a
   * few seconds; no answer, a failure or a connector that cannot be built only means "not known".
   */
  private async askConnector<T>(request: StartRunRequest, ask: (connector: Connector, scope: Scope) => Promise<T | undefined> | undefined): Promise<T | undefined> {
    const scope = parseScope(request.scope);
    if (scope.kind === 'recheck') return undefined;
    try {
      const connector = await this.connectorFor(request.platform, request.connectionId);
      const asked = ask(connector, scope);
      if (!asked) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CONNECTOR_QUESTION_MS)));
      return await Promise.race([asked.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
    } catch {
      return undefined;
    }
  }

  /** The progress denominator, when the connector can give it cheaply (a file's rows, a platform's list total). */
  private async expectedTotal(request: StartRunRequest): Promise<number | undefined> {
    if (request.expectedTotal !== undefined) return request.expectedTotal;
    const total = await this.askConnector(request, (connector, scope) => connector.estimateTotal?.(scope));
    return typeof total === 'number' && Number.isFinite(total) && total >= 0 ? Math.floor(total) : undefined;
  }

  /**
   * The run's name for people: the caller's (a file's name as uploaded), else what the connector calls
   * the scope (an audience's name), else none (shown as the scope in words, core's `runName`).
   */
  private async runNameOf(request: StartRunRequest): Promise<string | undefined> {
    // One line of at most 200 characters: a name is shown in tables and on the terminal.
    const tidy = (text: unknown) => (typeof text === 'string' ? text.replace(/\p{Cc}+/gu, ' ').trim().slice(0, RUN_NAME_MAX) : '') || undefined;
    return tidy(request.name) ?? tidy(await this.askConnector(request, (connector, scope) => connector.describeScope?.(scope)));
  }

  /** The connection's label now (a file upload's connection is the file: its label is not shown twice). */
  private async connectionLabelOf(request: StartRunRequest): Promise<string | undefined> {
    if (!request.connectionId || request.platform === 'file' || !this.connections) return undefined;
    return (await this.connections.get(request.connectionId).catch(() => undefined))?.label || undefined;
  }

  /** What a run needs before it is started or scheduled; InputError naming the field otherwise. */
  private async checkRequest(request: StartRunRequest): Promise<void> {
    if (!request.platform) throw new InputError('platform', 'is required');
    if (!this.registry.has(request.platform)) throw new InputError('platform', `no connector registered for "${request.platform}" (known: ${this.registry.platforms().join(', ')})`);
    if (typeof request.scope !== 'string' || !request.scope.trim()) throw new InputError('scope', 'is required (for example all, list:<id>)');
    const max = request.options?.maxCredits;
    if (max !== undefined && (!Number.isInteger(max) || max < 0)) throw new InputError('options.maxCredits', 'must be a whole number >= 0');
    const total = request.expectedTotal;
    if (total !== undefined && (!Number.isInteger(total) || total < 0)) throw new InputError('expectedTotal', 'must be a whole number >= 0');
    if (request.connectionId && !(await this.connectionStore().get(request.connectionId))) throw new InputError('connectionId', `no stored connection "${request.connectionId}"`);
    await this.checkScope(request);
  }

  /**
   * The connector says whether it can read the scope, so an invalid one is refused at start (400, exit
   * 2) rather than failing the run later: the platform judges its form, then the connection's connector
   * (which audience `all` means, ...). `recheck:<run>` is the pipeline's own. A connector that cannot be
   * built here (no token yet...) fails its run as it always did: only the scope is judged now.
   */
  private async checkScope(request: StartRunRequest): Promise<void> {
    const scope = parseScope(request.scope);
    if (scope.kind === 'recheck') return;
    this.registry.checkScope(request.platform, scope);
    let connector: Connector;
    try {
      connector = await this.connectorFor(request.platform, request.connectionId);
    } catch {
      return;
    }
    connector.checkScope?.(scope);
  }

  get(id: string): Promise<RunRecord | undefined> {
    return this.store.get(id);
  }

  list(filter?: RunListFilter): Promise<RunRecord[]> {
    return this.store.list(filter);
  }

  async cancel(id: string): Promise<RunRecord> {
    const ok = await this.store.transition(id, 'cancelled', ['queued', 'running', 'paused'], 'cancelled by a user');
    const run = await this.mustGet(id);
    if (!ok) throw new InputError('id', `run ${id} is ${run.status}; only queued, running or paused runs can be cancelled`);
    await this.store.setFields(id, { finishedAt: new Date().toISOString() });
    // Parked chunks of a cancelled run are dropped; waiting ones see the status and end at once.
    for (const jobId of await this.store.takeParked(id)) await (await this.queues.chunks.getJob(jobId))?.remove().catch(() => undefined);
    await this.announceFinished(id);
    return (await this.store.get(id))!;
  }

  /**
   * A user's pause: chunks not yet verified park themselves, the pager stops before its next page (a
   * file run stops between pages), and nothing resumes it but `resume` (no `resumeAt`).
   */
  async pause(id: string): Promise<RunRecord> {
    const run = await this.mustGet(id);
    if (!(await this.store.transition(id, 'paused', ['queued', 'running'], USER_PAUSE_REASON))) {
      throw new InputError('id', `run ${id} is ${(await this.store.get(id))?.status ?? run.status}; only a queued or running run can be paused`);
    }
    await this.store.deleteFields(id, 'resumeAt');
    this.log.info({ runId: id }, 'run paused by a user');
    return (await this.store.get(id))!;
  }

  async breakdown(id: string): Promise<RunBreakdown> {
    await this.mustGet(id);
    return this.store.breakdown(id);
  }

  /** Resumes a paused run; `maxCredits` raises (or sets) the run's credit cap first. */
  async resume(id: string, changes: { maxCredits?: number } = {}): Promise<RunRecord> {
    const run = await this.mustGet(id);
    if (run.status === 'running' || run.status === 'queued') {
      // Nothing to unpause, but a run that seems stuck gets what it is missing (a lost page or pager), or completes.
      await this.reconciler.reconcileRun(id);
      return (await this.store.get(id))!;
    }
    if (run.status !== 'paused') throw new InputError('id', `run ${id} is ${run.status}; only a paused run can be resumed`);
    if (changes.maxCredits !== undefined) await this.store.setFields(id, { options: JSON.stringify({ ...run.options, maxCredits: changes.maxCredits }) });
    // A new resume epoch: a chunk that started before it and is refused now (the old token) retries instead of pausing again.
    await this.store.newResumeEpoch(id);
    if (!(await this.store.transition(id, 'running', ['paused']))) throw new InputError('id', `run ${id} changed state; try again`);
    await this.store.deleteFields(id, 'resumeAt');
    // Credits still held for chunks that are gone (killed while the run was paused) go back to the cap.
    await this.reconciler.releaseLostReservations(id);
    for (const jobId of await this.store.takeParked(id)) {
      const job = await this.queues.chunks.getJob(jobId);
      if (job && (await job.isDelayed())) await job.promote();
    }
    const progress = await this.store.progress(id);
    if (!progress.pagingDone) await this.enqueuePager(id, progress.pages);
    else await this.completeIfDone(id);
    return (await this.store.get(id))!;
  }

  async recheckUnknowns(id: string): Promise<RunRecord> {
    const run = await this.mustGet(id);
    return this.start({ platform: run.platform, connectionId: run.connectionId, scope: `recheck:${id}`, name: `Re-check of ${runName(run)}`, options: { ...run.options, maxCredits: undefined } });
  }

  report(id: string): AsyncIterable<ReportRow> {
    return this.store.report(id);
  }

  async enqueueEvent(event: ContactEvent & { connectionId: string }): Promise<{ queued: boolean; erased?: ErasureSummary }> {
    if (!event.connectionId) throw new InputError('connectionId', 'is required');
    if (!event.contactId) throw new InputError('contactId', 'is required');
    if (event.kind === 'privacy_deletion') return { queued: false, erased: await this.eraseContact(event) };
    // A delivery seen before (same dedupeKey) is dropped for a day; a contact already waiting is coalesced.
    const deliveryGate = this.keys.eventGate(`d:${hash(event.connectionId + '\n' + event.dedupeKey)}`);
    const dedupe = await this.redis.set(deliveryGate, '1', 'PX', 86_400_000, 'NX');
    if (dedupe !== 'OK') return { queued: false };
    const contactKey = hash(`${event.connectionId}\n${event.contactId}`);
    const contactGate = this.keys.eventGate(`c:${contactKey}`);
    const gate = await this.redis.set(contactGate, '1', 'PX', this.opts.eventCoalesceMs, 'NX');
    if (gate !== 'OK') return { queued: false };
    const data: EventJobData = { event };
    try {
      await this.queues.events.add('event', data, { jobId: `evt-${contactKey}-${Date.now()}`, delay: this.opts.eventCoalesceMs, ...this.jobDefaults() });
    } catch (error) {
      // Not queued: open both gates again, so the caller's retry is not taken for a duplicate and lost.
      // One DEL per gate: on a cluster the two keys may live on different slots.
      await Promise.all([this.redis.del(deliveryGate), this.redis.del(contactGate)]).catch(() => undefined);
      throw error;
    }
    return { queued: true };
  }

  /**
   * A platform's privacy deletion, done at once rather than queued (a queued job would itself hold the
   * address): see privacy-erasure.ts. The log line holds counts only, never the address or contact id.
   */
  async eraseContact(event: Pick<ContactEvent, 'contactId' | 'email'> & { connectionId: string }): Promise<ErasureSummary> {
    const summary = await new PrivacyEraser(this.redis, this.keys, this.queues).erase(event);
    this.log.info({ connectionId: event.connectionId, ...summary }, 'contact erased for privacy');
    return summary;
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

  // ------------------------------------------------------------------ beyond the contract

  /** Credits a run would cost now: unique addresses of the source not fresh in the cache. Reads the whole source. */
  async estimate(request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>): Promise<RunEstimate> {
    const connector = await this.connectorFor(request.platform, request.connectionId);
    return estimateSource(connector, parseScope(request.scope), this.cache.withFreshness(request.options?.freshnessDays ?? this.opts.freshnessDays));
  }

  /** Creates the write-back fields of stored connection `connectionId` in its platform (idempotent). */
  async ensureSchema(connectionId: string): Promise<SchemaReport> {
    if (!connectionId) throw new InputError('connectionId', 'is required');
    const connection = (await this.connectionStore().get(connectionId)) ?? throwInput('connectionId', `no stored connection "${connectionId}"`);
    return this.registry.create(connection, this.depsFor(connection)).ensureSchema();
  }

  async disconnectPlatform(connectionId: string): Promise<DisconnectReport> {
    const connection = (await this.connectionStore().get(connectionId)) ?? throwInput('connectionId', `no stored connection "${connectionId}"`);
    const connector = this.registry.create(connection, this.depsFor(connection));
    return (await connector.disconnect?.()) ?? { deleted: [] };
  }

  // ------------------------------------------------------------------ ScheduleService (schedule-store.ts)

  listSchedules(): Promise<ScheduleView[]> {
    return this.schedules.listSchedules();
  }

  saveSchedule(input: { id?: string; cron: string; timezone?: string; request: StartRunRequest }): Promise<ScheduleView> {
    return this.schedules.saveSchedule(input);
  }

  pauseSchedule(id: string): Promise<ScheduleView> {
    return this.schedules.pauseSchedule(id);
  }

  resumeSchedule(id: string): Promise<ScheduleView> {
    return this.schedules.resumeSchedule(id);
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.schedules.removeSchedule(id);
  }

  previewCron(cron: string, timezone?: string, count?: number): CronPreview {
    return this.schedules.previewCron(cron, timezone, count);
  }

  /** A recurring run on a cron pattern; the same id replaces the schedule (`saveSchedule`). */
  schedule(id: string, cron: string, request: StartRunRequest, timezone?: string): Promise<RunSchedule> {
    return this.saveSchedule({ id, cron, timezone, request });
  }

  unschedule(id: string): Promise<boolean> {
    return this.removeSchedule(id);
  }

  /** Starts the `runs`, `chunks` and `events` workers in this process. */
  startWorkers(overrides: { verifier?: Verifier } = {}): SyncWorkers {
    const base = overrides.verifier ?? this.options.verifier;
    if (!base) throw new InputError('verifier', 'workers need an engine: set ENGINE_URL and ENGINE_API_KEY');
    const engineLimiter =
      this.options.engineRatePerSecond || this.options.engineMaxConcurrent
        ? this.limiters({
            key: `engine:${this.options.engineKey ?? 'engine'}`,
            perInterval: this.options.engineRatePerSecond ? { count: this.options.engineRatePerSecond, intervalMs: 1000 } : undefined,
            maxConcurrent: this.options.engineMaxConcurrent,
          })
        : noLimit;
    const verifier = limitedVerifier(base, engineLimiter);
    this.workerVerifier = verifier;
    const connection = this.redis.duplicate({ maxRetriesPerRequest: null });
    const common = {
      connection,
      prefix: this.keys.queuePrefix,
      autorun: true,
      maxStalledCount: this.opts.maxStalledCount,
      ...(this.options.lockDurationMs ? { lockDuration: this.options.lockDurationMs } : {}),
      ...(this.options.stalledIntervalMs ? { stalledInterval: this.options.stalledIntervalMs } : {}),
    };
    const runs = new Worker(QUEUE.runs, (job, token) => this.handleRunsJob(job, token), { ...common, concurrency: 2 });
    const chunks: Worker = new Worker(QUEUE.chunks, (job, token) => this.handleChunksJob(job, token, chunks, verifier), { ...common, concurrency: this.opts.chunkConcurrency });
    const events: Worker = new Worker(QUEUE.events, (job, token) => this.handleEventJob(job as Job<EventJobData>, token, events, verifier), { ...common, concurrency: this.opts.chunkConcurrency });
    chunks.on('failed', (job, error) => void this.onChunkFailed(job, error).catch((e: Error) => this.log.warn({ err: e.message }, 'counting a failed chunk failed; the reconciler will')));
    runs.on('failed', (job, error) => void this.onPagerFailed(job, error).catch((e: Error) => this.log.warn({ err: e.message }, 'ending a failed run failed; the reconciler will')));
    events.on('failed', (job, error) => void this.onEventFailed(job, error));
    for (const w of [runs, chunks, events]) {
      w.on('error', (error) => this.log.error({ err: error.message, queue: w.name }, 'worker error'));
      w.on('stalled', (jobId) => this.log.warn({ jobId, queue: w.name }, 'job stalled (its worker died or missed its lock): given to another worker'));
    }
    const workers = [runs, chunks, events];
    // On start (what a dead process left behind) and then periodically: no run sits with nothing queued.
    const reconcile = () => void this.reconciler.reconcileAll().catch((e: Error) => this.log.warn({ err: e.message }, 'reconciling runs failed'));
    reconcile();
    const timer = setInterval(reconcile, this.opts.reconcileIntervalMs);
    timer.unref();
    return {
      verifier,
      close: async () => {
        clearInterval(timer);
        await Promise.all(workers.map((w) => w.close()));
        await connection.quit().catch(() => undefined);
      },
      kill: async () => {
        clearInterval(timer);
        await Promise.all(workers.map((w) => w.close(true)));
        connection.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    for (const u of this.untrack) u();
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
    if (this.subscriber) await this.subscriber.quit().catch(() => undefined);
    await this.redis.quit().catch(() => undefined);
  }

  /** Drops the Redis connections at once (when Redis does not answer, a graceful close would wait). */
  disconnect(): void {
    for (const u of this.untrack) u();
    this.subscriber?.disconnect();
    this.redis.disconnect();
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

  // ------------------------------------------------------------------ jobs

  private jobDefaults(): JobsOptions {
    // The job layer's one retry policy: exponential from 1 s with jitter, so jobs that failed together do not come back together.
    return { attempts: this.opts.attempts, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 }, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 7 * 86_400 } };
  }

  /**
   * Hands paging on to a new `page` job. Its id carries a per-run sequence number (a job cannot
   * re-add its own id); a pager that crashes is re-run as the same job, from the saved cursor.
   */
  private async enqueuePager(runId: string, pageIndex: number, delay = 0): Promise<void> {
    const data: PageJobData = { runId };
    const seq = await this.redis.hincrby(this.keys.run(runId), 'pagerSeq', 1);
    const jobId = jobIds.pager(runId, pageIndex, seq);
    await this.queues.runs.add('page', data, { ...this.jobDefaults(), jobId, delay, removeOnComplete: true });
    // The reconciler looks here to tell a run whose paging has a job from one whose paging was lost.
    await this.store.setFields(runId, { pagerJob: jobId });
  }

  private async handleRunsJob(job: Job, _token?: string): Promise<void> {
    if (job.name === 'auto-resume') {
      const run = await this.store.get((job.data as PageJobData).runId);
      if (run?.status === 'paused' && run.resumeAt !== undefined && run.resumeAt <= Date.now()) await this.resume(run.id);
      return;
    }
    if (job.name === SCHEDULED_JOB) {
      const request = await this.schedules.requestToStart(job.repeatJobKey, job.data as ScheduledJobData);
      if (!request) return; // paused while this firing waited
      const run = await this.start(request);
      this.log.info({ runId: run.id, scheduler: job.repeatJobKey }, 'scheduled run started');
      return;
    }
    const { runId } = job.data as PageJobData;
    try {
      await this.page(runId);
    } catch (error) {
      const stop = platformStop(error);
      if (!stop) throw permanentAsUnrecoverable(error);
      if (stop.reason === 'rate') return this.enqueuePager(runId, (await this.store.progress(runId)).pages, stop.waitMs);
      await this.pauseFor(runId, stop.stopped);
    }
  }

  /** Pages the source from the saved cursor: one chunk job per page, the cursor saved after each. */
  private async page(runId: string): Promise<void> {
    const run = await this.store.get(runId);
    if (!run || (run.status !== 'queued' && run.status !== 'running')) return;
    if (run.status === 'queued') await this.store.transition(runId, 'running', ['queued']);
    // A run paused while queued is resumed to `running` without passing here as `queued`.
    if (!run.startedAt) await this.store.setFields(runId, { startedAt: new Date().toISOString() });
    const connector = await this.connectorFor(run.platform, run.connectionId);
    const saved = await this.store.progress(runId);
    let { pages: pageIndex, cursor, pagesDone } = saved;
    if (saved.pagingDone) return void (await this.completeIfDone(runId));
    if (pageIndex === 0 && !run.options.dryRun && !run.scope.startsWith('recheck:')) {
      const schema = await connector.ensureSchema();
      if (schema.problems.length) {
        await this.finishAs(runId, 'failed', `the platform refused the fields verify-hub needs: ${schema.problems.join('; ')}`);
        return;
      }
    }
    if (isSingleWriter(connector)) {
      connector.bindRun?.(run.id); // a re-check of a file names its new outputs after its run
      return this.runInOneJob(run, connector);
    }
    for (let n = 0; n < this.opts.pagesPerPagerJob; n++) {
      if (pageIndex - pagesDone >= this.opts.maxOutstandingPages) {
        // Backpressure: wait for chunks to drain instead of filling Redis with pages.
        return this.enqueuePager(runId, pageIndex, 250);
      }
      // Paused (by a user, a quota...) or cancelled: paging stops here; `resume` enqueues a pager from the saved page.
      const status = (await this.store.progress(runId)).status;
      if (status !== 'running') return;
      const page = await this.pullPage(run, connector, cursor);
      // Where this page came from, so the reconciler can pull it again if its chunk job is ever lost.
      await this.store.savePageCursor(runId, pageIndex, cursor);
      const data: ChunkJobData = { runId, pageIndex, contacts: page.contacts };
      if (page.contacts.length) await this.queues.chunks.add('chunk', data, { ...this.jobDefaults(), jobId: jobIds.chunk(runId, pageIndex) });
      const skipped = Object.values(page.skipped ?? {}).reduce((a, b) => a + b, 0);
      // An empty page needs no chunk: it is counted done here.
      if (!page.contacts.length) await this.store.countPage(runId, pageIndex, {});
      // Another pager saved this page first (a pause and a quick resume started one): it carries on, this one stops.
      if (!(await this.store.savePage(runId, pageIndex, page.next, { pulled: page.contacts.length, skipped }))) return;
      pageIndex++;
      cursor = page.next;
      pagesDone = (await this.store.progress(runId)).pagesDone;
      if (cursor === undefined) return void (await this.completeIfDone(runId));
    }
    await this.enqueuePager(runId, pageIndex);
  }

  /**
   * A connector that writes one output through one instance (a file: rows in order, then a summary)
   * cannot be shared by chunk jobs on many workers: its whole run is done in this job by the
   * in-process executor, over the same chunk function, cache and engine limiter. Pages are recorded as
   * they finish (counted once). A pause or cancel is noticed between pages: the job drops its partial
   * output and ends. Resuming (or a retry after a crash) runs it again from the start and rewrites the
   * file: pages counted before are not counted again and the cache has every result bought, so nothing
   * is lost, counted twice or bought twice. A lease keeps a resumed run from having two writers while
   * the job it had before the pause is still winding down.
   */
  private async runInOneJob(run: RunRecord, connector: SingleWriter): Promise<void> {
    const lease = await RunLease.acquire(this.redis, this.keys.writer(run.id));
    if (!lease) return this.enqueuePager(run.id, (await this.store.progress(run.id)).pages, 500);
    try {
      await this.writeInOneJob(run, connector);
    } catch (error) {
      await connector.abort?.().catch(() => undefined);
      throw error;
    } finally {
      await lease.release();
    }
  }

  private async writeInOneJob(run: RunRecord, connector: SingleWriter): Promise<void> {
    const abort = new AbortController();
    // What earlier attempts spent counts against the cap (pages they counted cost nothing now: cache).
    const spent = (await this.store.get(run.id))?.counters.credits ?? 0;
    const cap = run.options.maxCredits;
    let capReached = false;
    const result = await runInProcess({
      connector,
      scope: parseScope(run.scope),
      verifier: this.workerVerifier!,
      cache: this.cache.withFreshness(run.options.freshnessDays ?? this.opts.freshnessDays),
      writeOptions: writeOptionsOf(run),
      creditCap: cap === undefined ? undefined : Math.max(0, cap - spent),
      purchaseScope: run.id,
      verifyConcurrency: this.opts.verifyConcurrency,
      collectReport: true,
      signal: abort.signal,
      onPage: async (page, outcome) => {
        if (outcome.stopped?.reason === 'credit_cap' || capReached) {
          // The credit limit is spent: this page's rows past it are not counted (a resume with a
          // higher limit verifies them); what it bought is. The run pauses below.
          capReached = true;
          abort.abort();
          if (outcome.counters.credits) await this.store.incrementCounters(run.id, { credits: outcome.counters.credits });
          return;
        }
        if (abort.signal.aborted && outcome.stopped?.reason === 'aborted') {
          // Cut short by the pause: its rows (the rest marked not_checked) are not counted; the next
          // attempt verifies them again from the cache. What it bought is counted now.
          if (outcome.counters.credits) await this.store.incrementCounters(run.id, { credits: outcome.counters.credits });
          return;
        }
        const counted = await this.store.countPage(run.id, page.index, { ...outcome.counters, pulled: page.contacts, skipped: page.skipped, unreadable: page.unreadable }, outcome.report);
        if (counted) await this.store.setFields(run.id, { pages: page.index + 1 });
        if ((await this.store.progress(run.id)).status !== 'running') abort.abort();
      },
    });
    if (abort.signal.aborted) {
      // Paused or cancelled meanwhile: the partial output goes; a resume writes it again whole.
      await connector.abort?.();
      if (capReached) await this.pauseAtCreditLimit(run.id, cap!);
      return;
    }
    const credits = (await this.store.get(run.id))?.counters.credits ?? result.counters.credits;
    await connector.finish({ credits });
    await this.store.setFields(run.id, { pages: result.pages, pagingDone: '1' });
    await this.completeIfDone(run.id);
    if (result.stopped) await this.store.setFields(run.id, { statusReason: `stopped early (${result.stopped.message}): the rows not verified are marked unknown (not_checked)` });
  }

  /** A run stopped by its credit limit is paused, never a green `completed` with rows left unchecked. */
  private async pauseAtCreditLimit(runId: string, cap: number): Promise<void> {
    const spent = (await this.store.get(runId))?.counters.credits ?? 0;
    const reason = `stopped at the credit limit of ${cap} (${spent} credits spent): raise it with \`verify-hub runs resume ${runId} --max-credits N\` to verify the rest`;
    if (await this.store.transition(runId, 'paused', ['running', 'queued'], reason)) {
      syncMetrics.errors.inc({ kind: 'credit_cap' });
      this.log.warn({ runId, reason: 'credit_cap' }, 'run paused');
    }
  }

  private pullPage(run: RunRecord, connector: Connector, cursor: string | undefined): Promise<Page> {
    return run.scope.startsWith('recheck:') ? this.recheckPage(run.scope.slice('recheck:'.length), connector, cursor) : connector.pull(parseScope(run.scope), cursor);
  }

  /** Pulls page `pageIndex` of a run again from its recorded cursor and enqueues its chunk (the reconciler's repair). */
  private async requeuePage(runId: string, pageIndex: number): Promise<boolean> {
    const run = await this.store.get(runId);
    const cursor = await this.store.pageCursor(runId, pageIndex);
    if (!run || cursor === null) return false;
    const connector = await this.connectorFor(run.platform, run.connectionId);
    if (isSingleWriter(connector)) return false;
    const page = await this.pullPage(run, connector, cursor);
    const jobId = jobIds.chunk(runId, pageIndex);
    // A job under the same id (completed without counting) would make the add a no-op.
    await (await this.queues.chunks.getJob(jobId))?.remove().catch(() => undefined);
    if (page.contacts.length) await this.queues.chunks.add('chunk', { runId, pageIndex, contacts: page.contacts } satisfies ChunkJobData, { ...this.jobDefaults(), jobId });
    else await this.store.countPage(runId, pageIndex, {});
    return true;
  }

  /** The pages of a `recheck:<run>` run: the unknown rows of that run's report, fresh from the platform when it can. */
  private async recheckPage(sourceRunId: string, connector: Connector, cursor?: string): Promise<Page> {
    const start = Number(cursor ?? 0);
    const rows = await this.redis.lrange(this.keys.report(sourceRunId), start, start + 499);
    const unknown = rows.map((r) => JSON.parse(r) as ReportRow).filter((r) => r.risk === 'unknown' && !r.erased);
    let contacts = unknown.map((r) => ({ id: r.contactId, email: r.email }));
    if (connector.pullByIds && contacts.length) contacts = await connector.pullByIds(contacts.map((c) => c.id));
    return { contacts, next: rows.length === 500 ? String(start + 500) : undefined };
  }

  private async handleChunksJob(job: Job, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    if (job.name === 'recheck') return this.recheck(job as Job<RecheckJobData>, token, worker, verifier);
    const data = job.data as ChunkJobData;
    const run = await this.store.get(data.runId);
    if (!run || run.status === 'cancelled' || run.status === 'failed' || run.status === 'completed') return;
    if (run.status === 'paused') return this.park(job, token);
    if (await this.store.isPageDone(data.runId, data.pageIndex)) return;
    const epoch = await this.store.resumeEpoch(data.runId);
    const connector = await this.runConnector(run);
    if (!connector) return;
    const unique = new Set(data.contacts.map((c) => normalizeEmail(c.email)).filter((n) => n.ok).map((n) => (n as { normalized: string }).normalized));
    const carriedBillable = (data.carry ?? []).filter((v) => v.billable).length;
    const cap = run.options.maxCredits;
    // Under a cap, the chunk reserves what it may buy (its page's own reservation, replaced by a replay).
    const want = Math.max(0, unique.size - carriedBillable);
    const grant = cap === undefined ? want : (await this.store.reserveCredits(data.runId, data.pageIndex, want, cap)).grant;
    // A write begun by an earlier attempt (killed mid-write) may have landed: compare with the platform's values.
    let writeBegunBefore = false;
    const verifiedAt = data.verifiedAt ?? Date.now();
    let outcome: ChunkOutcome;
    try {
      outcome = await processChunk(
        {
          contacts: data.contacts,
          connectionId: run.connectionId,
          writeOptions: writeOptionsOf(run),
          creditCap: cap === undefined ? undefined : grant,
          purchaseScope: data.runId,
          prior: data.carry,
          maxRateLimitWaitMs: 0,
          whenStopped: 'return',
          collectReport: true,
          rereadBeforeWrite: () => writeBegunBefore,
          now: new Date(verifiedAt),
          // The results go with the job before anything is written: a replay writes exactly these values
          // (an unknown result is not cached, and a new one would carry another time: a second write).
          beforeWrite: async (results) => {
            await job.updateData({ ...data, carry: results, verifiedAt });
            writeBegunBefore = await this.store.markWriteStarted(data.runId, data.pageIndex);
          },
        },
        { connector, verifier, ...this.runCache(run), concurrency: this.opts.verifyConcurrency },
      );
    } catch (error) {
      if (cap !== undefined) await this.store.releaseCredits(data.runId, data.pageIndex);
      const stop = platformStop(error);
      if (!stop) throw permanentAsUnrecoverable(error);
      // What was verified before the platform refused is in the cache: the retry buys nothing again.
      if (stop.reason === 'rate') {
        await worker.rateLimit(stop.waitMs);
        throw Worker.RateLimitError();
      }
      await this.pauseOrRetry(data.runId, stop.stopped, epoch);
      return this.park(job, token);
    }
    if (outcome.status === 'stopped') {
      // What this attempt bought is already in the run's credits (counted as it was cached): its reservation goes.
      if (cap !== undefined) await this.store.releaseCredits(data.runId, data.pageIndex);
      await job.updateData({ ...data, carry: outcome.results, verifiedAt });
      const stop = outcome.stopped!;
      if (stop.error instanceof RateLimitError && !(stop.error instanceof QuotaError)) {
        // Every worker of the queue waits for the reset; the job goes back without spending an attempt.
        await worker.rateLimit(Math.max(1, stop.error.waitMs()));
        throw Worker.RateLimitError();
      }
      if (stop.reason === 'credit_cap') return this.waitForCredits(job, token);
      await this.pauseOrRetry(data.runId, stop, epoch);
      return this.park(job, token);
    }
    // Re-checks first, with deterministic ids: a chunk retried after a crash adds them once.
    if (outcome.unknownContacts.length && this.opts.recheckDelaysMs.length) {
      const reasons = unknownReasons(outcome.report);
      await this.enqueueRecheck({ platform: run.platform, connectionId: run.connectionId, runId: run.id, attempt: 0, contacts: outcome.unknownContacts, writeOptions: writeOptionsOf(run), reasons }, jobIds.chunk(run.id, data.pageIndex));
    }
    // Credits are not added here: every purchase was counted as it was cached (runCache). Counting releases the page's reservation.
    await this.store.countPage(data.runId, data.pageIndex, { ...outcome.counters, credits: 0 }, outcome.report);
    await this.completeIfDone(data.runId);
  }

  /**
   * A chunk stopped by the run's credit cap (it kept what it bought with the job, and gave back its
   * reservation). While other chunks hold reservations, the credits they do not spend (cached or
   * duplicate addresses, unknown results) come back to the cap: the chunk waits and asks again
   * instead of pausing the run with credits left. Once nothing is held and the cap (read again: a
   * resume may have raised it) is spent, the run pauses at its limit and the chunk parks until a resume.
   */
  private async waitForCredits(job: Job, token: string | undefined): Promise<void> {
    const runId = (job.data as ChunkJobData).runId;
    const cap = (await this.store.get(runId))?.options.maxCredits;
    const { spent, reserved } = await this.store.creditState(runId);
    if (cap !== undefined && reserved === 0 && spent >= cap) {
      await this.pauseAtCreditLimit(runId, cap);
      return this.park(job, token);
    }
    // Held by others (or given back meanwhile): ask again shortly, no attempt spent.
    await job.moveToDelayed(Date.now() + Math.round(this.opts.creditWaitMs * (0.5 + Math.random())), token);
    throw new DelayedError();
  }

  /**
   * The cache a run's chunks and re-checks use: its freshness window, and each result stored the
   * moment it is bought together with the run's credits counter, so a replayed chunk never buys it
   * again and the run's credits equal what the engine billed, whatever dies when.
   */
  private runCache(run: Pick<RunRecord, 'id' | 'options'>): { cache: RedisVerificationCache; keepBought: (bought: Verification[]) => Promise<void> } {
    const cache = this.cache.withFreshness(run.options.freshnessDays ?? this.opts.freshnessDays);
    const credits = this.store.creditsCounter(run.id);
    return { cache, keepBought: (bought) => cache.keepBought(bought, credits) };
  }

  /**
   * The connector of a run's stored connection; a connection deleted meanwhile cancels the run (it
   * would go on using a platform the user disconnected), and undefined is returned.
   */
  private async runConnector(run: RunRecord): Promise<Connector | undefined> {
    if (run.connectionId && !(await this.connectionStore().get(run.connectionId))) {
      await this.finishAs(run.id, 'cancelled', `its connection ${run.connectionId} was deleted`);
      return undefined;
    }
    return this.connectorFor(run.platform, run.connectionId);
  }

  private async recheck(job: Job<RecheckJobData>, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    const data = job.data;
    const connector = await this.connectorFor(data.platform, data.connectionId);
    let contacts = data.contacts;
    // The address may have changed since: read the contacts again where the platform allows it.
    if (connector.pullByIds) contacts = await connector.pullByIds(contacts.map((c) => c.id));
    if (contacts.length === 0) return;
    // A re-check of a run's contacts counts what it buys in that run's credits (re-checks are billed too).
    const cache = data.runId ? this.runCache({ id: data.runId, options: {} }) : { cache: this.cache };
    const outcome = await processChunk(
      // Unknown answers are never kept under an idempotency key, so a re-check under its run's scope asks afresh.
      { contacts, connectionId: data.connectionId, writeOptions: data.writeOptions, purchaseScope: data.runId ?? String(job.id), maxRateLimitWaitMs: 0, whenStopped: 'return', collectReport: Boolean(data.runId) },
      { connector, verifier, ...cache, concurrency: this.opts.verifyConcurrency },
    );
    if (outcome.status === 'stopped') {
      const stop = outcome.stopped!;
      if (stop.error instanceof RateLimitError && !(stop.error instanceof QuotaError)) {
        await worker.rateLimit(Math.max(1, stop.error.waitMs()));
        throw Worker.RateLimitError();
      }
      // Quota or auth: try again when the quota resets (or in an hour).
      await job.moveToDelayed(stop.resumeAt ?? Date.now() + 3_600_000, token);
      throw new DelayedError();
    }
    if (data.runId && outcome.report.length) await this.store.appendReport(data.runId, outcome.report.map((r) => ({ ...r, outcome: `recheck_${r.outcome}` })), data.reasons);
    const next = data.attempt + 1;
    if (outcome.unknownContacts.length && next < this.opts.recheckDelaysMs.length) {
      const reasons = data.runId ? unknownReasons(outcome.report) : undefined;
      await this.enqueueRecheck({ ...data, attempt: next, contacts: outcome.unknownContacts, reasons }, String(job.id).replace(/-r\d+$/, ''));
    }
  }

  private async enqueueRecheck(data: RecheckJobData, origin: string): Promise<void> {
    await this.queues.chunks.add('recheck', data, { ...this.jobDefaults(), jobId: jobIds.recheck(origin, data.attempt), delay: this.opts.recheckDelaysMs[data.attempt]! });
  }

  private async handleEventJob(job: Job<EventJobData>, token: string | undefined, worker: Worker, verifier: Verifier): Promise<void> {
    const { event } = job.data;
    if (event.kind === 'unsubscribed' || event.kind === 'cleaned') return; // nothing to verify
    const connection = await this.connectionStore().get(event.connectionId);
    if (!connection) return this.dropEvent(job, 'unknown_connection', `no stored connection "${event.connectionId}"`);
    const connector = this.registry.create(connection, this.depsFor(connection));
    const writeOptions = (connection.settings?.writeOptions ?? {}) as WriteOptions;
    let outcome: ChunkOutcome;
    try {
      let contact = event.email ? { id: event.contactId, email: event.email } : undefined;
      if (connector.pullByIds) contact = (await connector.pullByIds([event.contactId]))[0] ?? contact;
      if (!contact?.email) return;
      outcome = await processChunk({ contacts: [contact], connectionId: connection.id, writeOptions, purchaseScope: `event:${job.id}`, maxRateLimitWaitMs: 0, whenStopped: 'return' }, { connector, verifier, cache: this.cache, concurrency: 1 });
    } catch (error) {
      const stop = platformStop(error);
      if (!stop) throw permanentAsUnrecoverable(error);
      if (stop.reason === 'rate') return this.eventWaits(job, token, worker, { rateMs: stop.waitMs });
      return this.eventWaits(job, token, worker, { until: stop.stopped.resumeAt, why: stop.stopped.message });
    }
    if (outcome.status === 'stopped') {
      const stop = outcome.stopped!;
      if (stop.error instanceof RateLimitError && !(stop.error instanceof QuotaError)) return this.eventWaits(job, token, worker, { rateMs: Math.max(1, stop.error.waitMs()) });
      return this.eventWaits(job, token, worker, { until: stop.resumeAt, why: stop.message });
    }
    if (outcome.unknownContacts.length && this.opts.recheckDelaysMs.length) {
      await this.enqueueRecheck({ platform: connection.platform, connectionId: connection.id, attempt: 0, contacts: outcome.unknownContacts, writeOptions }, String(job.id));
    }
  }

  /**
   * An event that cannot be handled now (a rate limit, the engine's quota, HubSpot's daily limit, a
   * refused key) waits instead of spending its attempts: a rate limit holds the events queue until the
   * reset; a quota or auth stop delays the job until the reset (or an hour, for a key to be fixed). An
   * event still waiting after EVENT_MAX_WAIT_MS is dropped, counted and logged.
   */
  private async eventWaits(job: Job<EventJobData>, token: string | undefined, worker: Worker, wait: { rateMs: number } | { until?: number; why: string }): Promise<void> {
    if ('rateMs' in wait) {
      await worker.rateLimit(wait.rateMs);
      throw Worker.RateLimitError();
    }
    if (Date.now() - job.timestamp > EVENT_MAX_WAIT_MS) return this.dropEvent(job, 'waited_too_long', wait.why);
    await job.moveToDelayed(Math.min(wait.until ?? Date.now() + 3_600_000, job.timestamp + EVENT_MAX_WAIT_MS + 1000), token);
    this.log.info({ jobId: job.id, until: wait.until, why: wait.why }, 'webhook event waits');
    throw new DelayedError();
  }

  private dropEvent(job: Job<EventJobData>, reason: string, detail: string): void {
    syncMetrics.eventsDropped.inc({ reason });
    this.log.warn({ jobId: job.id, connectionId: job.data.event.connectionId, kind: job.data.event.kind, reason, detail }, 'webhook event dropped');
  }

  private async onEventFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || (await job.getState().catch(() => 'unknown')) !== 'failed') return;
    this.dropEvent(job as Job<EventJobData>, 'failed', error.message);
  }

  /** A chunk of a paused run waits, with the results it already has, until `resume` promotes it. */
  private async park(job: Job, token: string | undefined): Promise<void> {
    const runId = (job.data as ChunkJobData).runId;
    if ((await this.store.progress(runId)).status !== 'paused') return; // cancelled meanwhile: nothing to keep
    await this.store.park(runId, String(job.id));
    await job.moveToDelayed(Date.now() + PARK_MS, token);
    // A resume that ran while this job was parking may have missed it: look again, and go back to work.
    if ((await this.store.progress(runId)).status !== 'paused') {
      await this.redis.srem(this.keys.parked(runId), String(job.id));
      await job.promote().catch(() => undefined); // already promoted by the resume
    }
    throw new DelayedError();
  }

  /**
   * Pauses the run for a stop seen by a chunk that started in resume epoch `epoch`. When the run was
   * resumed since (a user fixed the key or token meanwhile), the stop came from the old credentials:
   * the chunk is tried again with the new ones instead of pausing the run again.
   */
  private async pauseOrRetry(runId: string, stop: NonNullable<ChunkOutcome['stopped']>, epoch: number): Promise<void> {
    if ((await this.store.resumeEpoch(runId)) !== epoch) throw new Error(`${stop.message} (before the run was resumed; trying again)`);
    await this.pauseFor(runId, stop);
  }

  /** A pause the run cannot get past by itself: quota, a refused key or token, the credit cap (a quota's reset resumes it). */
  private async pauseFor(runId: string, stop: NonNullable<ChunkOutcome['stopped']>): Promise<void> {
    const resume = `\`verify-hub runs resume ${runId}\``;
    const error = stop.error;
    const reason =
      error instanceof AuthError
        ? authPauseReason(error, resume)
        : error instanceof QuotaError
          ? `${stop.message}; resume with ${resume} after the reset or a top-up`
          : stop.message;
    const source = error instanceof AuthError || error instanceof RateLimitError ? error.source : 'engine';
    syncMetrics.errors.inc({ kind: stop.reason === 'credit_cap' ? 'credit_cap' : error instanceof AuthError ? `${source}_auth` : `${source}_quota` });
    if (await this.store.transition(runId, 'paused', ['running', 'queued'], reason)) {
      if (stop.resumeAt) await this.store.setFields(runId, { resumeAt: stop.resumeAt });
      // A quota that resets resumes the run by itself then (a top-up can resume it sooner).
      if (error instanceof QuotaError && stop.resumeAt) {
        await this.queues.runs.add('auto-resume', { runId }, { jobId: `${runId}-resume-${stop.resumeAt}`, delay: Math.max(0, stop.resumeAt - Date.now()) + 1000, removeOnComplete: true, removeOnFail: true });
      }
      this.log.warn({ runId, reason: stop.reason, source }, 'run paused');
    }
  }

  /**
   * A chunk job failed. Only a failure for good counts (attempts used up, unrecoverable, stalled past
   * `maxStalledCount`: its state is then `failed`); one that will be retried changes nothing. A
   * process that dies before counting leaves it to the reconciler.
   */
  private async onChunkFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || job.name !== 'chunk') return;
    syncMetrics.errors.inc({ kind: 'chunk_failed' });
    if ((await job.getState()) !== 'failed') return;
    await this.countFailedChunk(job.data as ChunkJobData, error.message);
  }

  /** A page whose chunk stopped for good is counted with every contact failed, so the run can still finish. */
  private async countFailedChunk(data: ChunkJobData, reason: string): Promise<void> {
    const rows: ReportRow[] = data.contacts.map((c) => ({ contactId: c.id, email: c.email, outcome: 'failed', error: reason }));
    await this.store.countPage(data.runId, data.pageIndex, { failed: data.contacts.length }, rows);
    await this.completeIfDone(data.runId);
  }

  private async onPagerFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!job || job.name !== 'page') return;
    syncMetrics.errors.inc({ kind: 'source_failed' });
    if ((await job.getState()) !== 'failed') return;
    await this.finishAs((job.data as PageJobData).runId, 'failed', `reading the source failed: ${error.message}`);
  }

  private async completeIfDone(runId: string): Promise<void> {
    if (await this.store.tryComplete(runId)) await this.announceFinished(runId);
  }

  private async finishAs(runId: string, status: 'failed' | 'cancelled', reason: string): Promise<void> {
    if (await this.store.transition(runId, status, ['queued', 'running', 'paused'], reason)) {
      await this.store.setFields(runId, { finishedAt: new Date().toISOString() });
      await this.announceFinished(runId);
    }
  }

  private async announceFinished(runId: string): Promise<void> {
    await this.redis.publish(`${this.keys.prefix}:${FINISHED_CHANNEL}`, runId);
  }

  // ------------------------------------------------------------------ connectors

  private connectionStore(): ConnectionStore {
    if (!this.connections) throw new InputError('connectionId', 'no connection store configured (set HUB_SECRET_KEY)');
    return this.connections;
  }

  private depsFor(connection: ConnectionRecord) {
    const store = this.connections;
    return {
      limiter: this.limiters,
      // Only the credentials, never the record the run started with: settings edited meanwhile stay,
      // and a connection deleted meanwhile is not brought back.
      saveCredentials: async (credentials: ConnectionRecord['credentials']) => {
        if (store) await saveCredentialsOnly(store, connection.id, credentials);
      },
    };
  }

  /** A stored connection's connector, with the pipeline's limiters (workflow-action callbacks use it). */
  openConnector(platform: string, connectionId: string): Promise<Connector> {
    return this.connectorFor(platform, connectionId);
  }

  private async connectorFor(platform: string, connectionId?: string): Promise<Connector> {
    const connection: ConnectionRecord = connectionId
      ? ((await this.connectionStore().get(connectionId)) ?? throwInput('connectionId', `no stored connection "${connectionId}"`))
      : { id: platform, platform, label: platform, createdAt: new Date(0).toISOString(), credentials: {} };
    return this.registry.create(connection, this.depsFor(connection));
  }

  private async mustGet(id: string): Promise<RunRecord> {
    const run = await this.store.get(id);
    if (!run) throw new InputError('id', `no run ${id}`);
    return run;
  }
}

/** Connectors with a `finish()` (the file connector) keep one output open for the whole run; `abort()` drops it unfinished. */
type SingleWriter = Connector & { finish(overrides?: { credits?: number }): Promise<unknown>; abort?(): Promise<void>; bindRun?(runId: string): void };

function isSingleWriter(connector: Connector): connector is SingleWriter {
  return typeof (connector as { finish?: unknown }).finish === 'function';
}

/** The reasons of the unknown results among report rows, by contact id (carried by re-check jobs for the breakdown; `failed:` when the write failed). */
function unknownReasons(rows: readonly ReportRow[]): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const row of rows) {
    const reason = row.risk === 'unknown' ? priorReason(row) : undefined;
    if (reason) reasons[row.contactId] = reason;
  }
  return reasons;
}

function writeOptionsOf(run: RunRecord): WriteOptions {
  return { dryRun: run.options.dryRun, actions: run.options.actions };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function throwInput(field: string, problem: string): never {
  throw new InputError(field, problem);
}



/** How long a webhook event may wait for a quota, a daily limit or a key to be fixed before it is dropped (and counted). */
const EVENT_MAX_WAIT_MS = 7 * 86_400_000;

/**
 * Control flow by kind, whoever raised it (the engine, HubSpot's daily limit or 10-second window, a
 * revoked platform token): a rate limit waits, a quota or auth error pauses the run.
 */
function platformStop(error: unknown): { reason: 'rate'; waitMs: number } | { reason: 'pause'; stopped: NonNullable<ChunkOutcome['stopped']> } | undefined {
  if (error instanceof QuotaError) return { reason: 'pause', stopped: { reason: 'quota', message: error.message, error, resumeAt: error.resetAt } };
  if (error instanceof RateLimitError) return { reason: 'rate', waitMs: Math.max(1, error.waitMs()) };
  if (error instanceof AuthError) return { reason: 'pause', stopped: { reason: 'auth', message: error.message, error } };
  return undefined;
}

/** Input or configuration that no retry can fix fails the job at once (BullMQ spends no more attempts on it). */
function permanentAsUnrecoverable(error: unknown): unknown {
  if (error instanceof InputError || error instanceof ConfigError) return new UnrecoverableError(error.message);
  return error;
}

const RECONNECT: Record<string, string> = {
  hubspot: 'reconnect HubSpot (`verify-hub hubspot connect`, or Connections in the dashboard)',
  mailchimp: 'reconnect Mailchimp (`verify-hub mailchimp connect`, or Connections in the dashboard)',
};

/** What a user must fix when a key or token is refused, naming where it lives; never the key itself. */
function authPauseReason(error: AuthError, resume: string): string {
  if (error.source === 'engine') return `the engine refused the API key: check ENGINE_API_KEY, then run ${resume}`;
  const fix = RECONNECT[error.source] ?? `reconnect ${error.source}`;
  return `${error.message}. To fix: ${fix}, then run ${resume}`;
}

/** A narrow credentials update where the store has one; otherwise a merge into the record as stored now. */
async function saveCredentialsOnly(store: ConnectionStore, id: string, credentials: ConnectionRecord['credentials']): Promise<void> {
  if (store.saveCredentials) return store.saveCredentials(id, credentials);
  const now = await store.get(id);
  if (now) await store.save({ ...now, credentials });
}
