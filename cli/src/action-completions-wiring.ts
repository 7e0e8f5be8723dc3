import type { Logger } from '@verify-hub/core';
import { HubSpotConnector, actionOutputs } from '@verify-hub/connector-hubspot';
import { ActionCompletions, type SyncPipeline } from '@verify-hub/sync-jobs';
import type { Redis } from 'ioredis';

/**
 * Workflow actions (HubSpot's "Verify email address") completed by a durable job: the same wiring for
 * `serve` (which answers the calls) and `verify-hub worker` (which may be the only process running
 * jobs, when the hub is HTTP-only), so a blocked action completes whichever process is up.
 */
export function actionCompletionsFor(pipeline: SyncPipeline, redis: Redis, prefix: string, logger: Logger): ActionCompletions {
  return new ActionCompletions({
    redis,
    prefix,
    cache: pipeline.cache,
    logger,
    complete: async (job, result) => {
      const connector = await pipeline.openConnector(job.platform, job.connectionId);
      if (!(connector instanceof HubSpotConnector)) throw new Error(`no workflow action completes on ${job.platform}`);
      await connector.completeAction(job.callbackId, actionOutputs(result));
    },
  });
}
