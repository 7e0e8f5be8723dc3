import type { Queue, JobsOptions } from 'bullmq';
import { InputError, type Config, type ConnectionRecord, type ConnectionStore, type Connector, type LimiterFactory, type Logger, type Verification, type Verifier } from '@verify-hub/core';
import type { ConnectorRegistry } from './connector-registry';
import type { FairLanes } from './fair-lanes';
import type { RunRecord } from './contracts';
import type { Keys } from './keys';
import type { Redis } from './redis';
import type { RedisVerificationCache } from './redis-cache';
import type { RunStore } from './run-store';

/** The pipeline's tuning, defaults applied (see SyncPipelineOptions in pipeline.ts for each one's meaning). */
export interface PipelineSettings {
  chunkConcurrency: number;
  verifyConcurrency: number;
  recheckDelaysMs: number[];
  maxOutstandingPages: number;
  pagesPerPagerJob: number;
  eventCoalesceMs: number;
  attempts: number;
  freshnessDays: number;
  maxStalledCount: number;
  reconcileIntervalMs: number;
  creditWaitMs: number;
}

export const FINISHED_CHANNEL = 'run-finished';

/** Whose limiter lane a call takes: a run's chunk (`bulk`) yields to a webhook event or a single check (`interactive`). */
export type Work = 'bulk' | 'interactive';

/**
 * What every part of the pipeline (run commands, pager, chunk, event and re-check workers) shares:
 * the Redis handles, the stores, the queues, the connectors, and the few steps all of them take
 * (building a connector, ending a run, job defaults).
 */
export class PipelineContext {
  /** The engine as this process's workers use it (behind the shared limiter); set by `startWorkers`. */
  workerVerifier?: Verifier;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly store: RunStore,
    readonly cache: RedisVerificationCache,
    /** Platform and engine limiters as bulk work (run chunks) takes them, and as interactive work (events, single checks) does: same keys, interactive first. */
    readonly limiters: { bulk: LimiterFactory; interactive: LimiterFactory },
    readonly lanes: FairLanes,
    readonly queues: { runs: Queue; chunks: Queue; events: Queue },
    readonly registry: ConnectorRegistry,
    readonly connections: ConnectionStore | undefined,
    readonly settings: PipelineSettings,
    readonly log: Logger,
    /** Where the connectors' module variables are read from (`PlatformRegistry.create`). */
    readonly config?: Config,
  ) {}

  /** A logger for one run's work: every line names the run, its connection and platform. */
  runLog(run: { id: string; connectionId?: string; platform?: string }): Logger {
    return this.log.child({ runId: run.id, connectionId: run.connectionId, platform: run.platform });
  }

  /** `runLog` for a run known by its id only (a failure seen by a worker event, a pause). */
  async runLogById(runId: string): Promise<Logger> {
    return this.runLog(await this.store.identity(runId).catch(() => ({ id: runId })));
  }

  jobDefaults(): JobsOptions {
    // The job layer's one retry policy: exponential from 1 s with jitter, so jobs that failed together do not come back together.
    return { attempts: this.settings.attempts, backoff: { type: 'exponential', delay: 1000, jitter: 0.5 }, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 7 * 86_400 } };
  }

  connectionStore(): ConnectionStore {
    if (!this.connections) throw new InputError('connectionId', 'no connection store configured (set HUB_SECRET_KEY)');
    return this.connections;
  }

  depsFor(connection: ConnectionRecord, work: Work = 'bulk') {
    const store = this.connections;
    return {
      limiter: this.limiters[work],
      // The connector makes its child logger (platform, connection) from this one for its call lines.
      logger: this.log,
      // Only the credentials, never the record the run started with: settings edited meanwhile stay,
      // and a connection deleted meanwhile is not brought back.
      saveCredentials: async (credentials: ConnectionRecord['credentials']) => {
        if (store) await saveCredentialsOnly(store, connection.id, credentials);
      },
    };
  }

  connectorOf(connection: ConnectionRecord, work: Work = 'bulk'): Connector {
    return this.registry.create(connection, this.depsFor(connection, work), this.config);
  }

  async connectorFor(platform: string, connectionId?: string, work: Work = 'bulk'): Promise<Connector> {
    const connection: ConnectionRecord = connectionId
      ? ((await this.connectionStore().get(connectionId)) ?? throwInput('connectionId', `no stored connection "${connectionId}"`))
      : { id: platform, platform, label: platform, createdAt: new Date(0).toISOString(), credentials: {} };
    return this.connectorOf(connection, work);
  }

  /**
   * The connector of a run's stored connection. A connection deleted meanwhile cancels the run (it would
   * go on using a platform the user disconnected) and gives undefined: the pager and the chunks ask
   * here alike, so whichever meets the deletion first cancels, and none fails the run for it.
   */
  async runConnector(run: Pick<RunRecord, 'id' | 'platform' | 'connectionId'>): Promise<Connector | undefined> {
    if (!run.connectionId) return this.connectorFor(run.platform);
    const connection = await this.connectionStore().get(run.connectionId);
    if (!connection) {
      await this.finishAs(run.id, 'cancelled', `its connection ${run.connectionId} was deleted`);
      return undefined;
    }
    return this.connectorOf(connection);
  }

  /**
   * The cache a run's chunks and re-checks use: its freshness window, and each result stored the
   * moment it is bought together with the run's credits counter, so a replayed chunk never buys it
   * again and the run's credits equal what the engine billed, whatever dies when.
   */
  runCache(run: Pick<RunRecord, 'id' | 'options'>, options: { oneAnswerPerAddress?: boolean } = {}): { cache: RedisVerificationCache; keepBought: (bought: Verification[]) => Promise<Verification[]> } {
    const cache = this.cache.withFreshness(run.options.freshnessDays ?? this.settings.freshnessDays);
    const credits = this.store.creditsCounter(run.id);
    // The run's chunks: an address bought by two of them at once keeps the first answer (run-answers.ts).
    // Not re-checks: their new answer is meant to replace the run's unknown one.
    const answers = options.oneAnswerPerAddress ? this.store.answers(run.id) : undefined;
    return { cache, keepBought: (bought) => cache.keepBought(bought, credits, answers) };
  }

  async completeIfDone(runId: string): Promise<void> {
    if (await this.store.tryComplete(runId)) await this.announceFinished(runId);
  }

  async finishAs(runId: string, status: 'failed' | 'cancelled', reason: string): Promise<void> {
    if (await this.store.transition(runId, status, ['queued', 'running', 'paused'], reason, { finishedAt: new Date().toISOString() })) {
      await this.announceFinished(runId);
    }
  }

  async announceFinished(runId: string): Promise<void> {
    // The run's answers only serve its chunks while it runs (a late chunk keeps its own, set to expire).
    await this.redis.del(this.keys.answers(runId));
    await this.redis.publish(`${this.keys.prefix}:${FINISHED_CHANNEL}`, runId);
  }
}

export function throwInput(field: string, problem: string): never {
  throw new InputError(field, problem);
}

/** A narrow credentials update where the store has one; otherwise a merge into the record as stored now. */
async function saveCredentialsOnly(store: ConnectionStore, id: string, credentials: ConnectionRecord['credentials']): Promise<void> {
  if (store.saveCredentials) return store.saveCredentials(id, credentials);
  const now = await store.get(id);
  if (now) await store.save({ ...now, credentials });
}
