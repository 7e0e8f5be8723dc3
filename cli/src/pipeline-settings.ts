import { createHash } from 'node:crypto';
import { createLogger, type Config, type Verifier } from '@verify-hub/core';
import { SyncPipeline, parseRecheckDelays, type SyncPipelineOptions } from '@verify-hub/sync-jobs';

/**
 * The sync pipeline's settings from configuration (Redis, prefix, limits, stored connections), in one
 * place for every process and thread that builds one. Loads no connector and no engine: serve's webhook
 * forwarder thread builds its pipeline from these alone.
 */
export function pipelineSettings(config: Config, verifier?: Verifier): SyncPipelineOptions {
  return {
    redisUrl: config.REDIS_URL,
    prefix: config.VERIFY_HUB_REDIS_PREFIX,
    verifier,
    // Workers sharing one engine key share one limiter; the key itself never leaves this process.
    engineKey: createHash('sha256').update(`${config.ENGINE_URL ?? 'local'}\n${config.ENGINE_API_KEY ?? ''}`).digest('hex').slice(0, 16),
    engineRatePerSecond: config.VERIFY_HUB_ENGINE_RATE,
    chunkConcurrency: config.VERIFY_HUB_WORKER_CONCURRENCY,
    verifyConcurrency: config.ENGINE_CONCURRENCY ?? 10,
    freshnessDays: config.VERIFY_HUB_FRESHNESS_DAYS,
    retentionDays: config.VERIFY_HUB_RETENTION_DAYS,
    eventCoalesceMs: config.VERIFY_HUB_EVENT_COALESCE_MS,
    lockDurationMs: config.VERIFY_HUB_JOB_LOCK_MS,
    stalledIntervalMs: config.VERIFY_HUB_STALLED_INTERVAL_MS,
    recheckDelaysMs: config.VERIFY_HUB_RECHECK_DELAYS ? parseRecheckDelays(config.VERIFY_HUB_RECHECK_DELAYS) : undefined,
    secretKey: config.HUB_SECRET_KEY,
    config,
    logger: createLogger({ name: 'verify-hub', level: config.LOG_LEVEL }),
  };
}

/** A pipeline on `settings` once Redis answers; fails fast, naming REDIS_URL, when none does. */
export async function readyPipeline(settings: SyncPipelineOptions): Promise<SyncPipeline> {
  const pipeline = new SyncPipeline(settings);
  try {
    await pipeline.ready();
  } catch (error) {
    pipeline.disconnect();
    throw error;
  }
  return pipeline;
}
