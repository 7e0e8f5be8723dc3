import { createHash } from 'node:crypto';
import { createLogger, type Config, type Verifier } from '@verify-hub/core';
import { SyncPipeline, parseRecheckDelays } from '@verify-hub/sync-jobs';
import { engineFromConfig } from './engine-from-config';
import { loadHubConfig, registerPlatformConnectors } from './platforms';

registerPlatformConnectors();

/**
 * The sync pipeline as the commands use it, from configuration: Redis at REDIS_URL under
 * VERIFY_HUB_REDIS_PREFIX, stored connections when HUB_SECRET_KEY is set, and (for workers) the engine.
 * Fails fast, naming REDIS_URL, when no Redis answers.
 */
export async function pipelineFromConfig(options: { withEngine?: boolean; config?: Config } = {}): Promise<{ pipeline: SyncPipeline; config: Config; engineLabel?: string; verifier?: Verifier }> {
  const config = options.config ?? loadHubConfig();
  const engine = options.withEngine ? engineFromConfig(config) : undefined;
  const prefix = config.VERIFY_HUB_REDIS_PREFIX;
  const pipeline = new SyncPipeline({
    redisUrl: config.REDIS_URL,
    prefix,
    verifier: engine?.verifier,
    // Workers sharing one engine key share one limiter; the key itself never leaves this process.
    engineKey: createHash('sha256').update(`${config.ENGINE_URL ?? 'local'}\n${config.ENGINE_API_KEY ?? ''}`).digest('hex').slice(0, 16),
    engineRatePerSecond: config.VERIFY_HUB_ENGINE_RATE,
    chunkConcurrency: config.VERIFY_HUB_WORKER_CONCURRENCY,
    verifyConcurrency: config.ENGINE_CONCURRENCY ?? 10,
    freshnessDays: config.VERIFY_HUB_FRESHNESS_DAYS,
    retentionDays: config.VERIFY_HUB_RETENTION_DAYS,
    recheckDelaysMs: config.VERIFY_HUB_RECHECK_DELAYS ? parseRecheckDelays(config.VERIFY_HUB_RECHECK_DELAYS) : undefined,
    secretKey: config.HUB_SECRET_KEY,
    logger: createLogger({ name: 'verify-hub', level: config.LOG_LEVEL }),
  });
  try {
    await pipeline.ready();
  } catch (error) {
    pipeline.disconnect();
    throw error;
  }
  return { pipeline, config, engineLabel: engine?.label, verifier: engine?.verifier };
}
