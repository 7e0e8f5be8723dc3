import type { Config, Verifier } from '@verify-hub/core';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import { engineFromConfig } from './engine-from-config';
import { pipelineSettings, readyPipeline } from './pipeline-settings';
import { loadHubConfig } from './platforms';

/**
 * The sync pipeline as the commands use it, from configuration: Redis at REDIS_URL under
 * VERIFY_HUB_REDIS_PREFIX, stored connections when HUB_SECRET_KEY is set, and (for workers) the engine.
 * Fails fast, naming REDIS_URL, when no Redis answers.
 */
export async function pipelineFromConfig(options: { withEngine?: boolean; config?: Config } = {}): Promise<{ pipeline: SyncPipeline; config: Config; engineLabel?: string; verifier?: Verifier }> {
  const config = options.config ?? loadHubConfig();
  const engine = options.withEngine ? engineFromConfig(config) : undefined;
  const pipeline = await readyPipeline(pipelineSettings(config, engine?.verifier));
  // Re-checks may run in another worker process: the in-process engine keeps its temporary "user unknown"
  // refusals in the pipeline's Redis, so the re-check hours later sees the first one.
  engine?.local?.shareRefusals(pipeline.redis, `${config.VERIFY_HUB_REDIS_PREFIX}:engine:`);
  return { pipeline, config, engineLabel: engine?.label, verifier: engine?.verifier };
}
