import type { Logger } from '@verify-hub/core';
import { ActionCompletions, disconnectUninstalled, isAppUninstalled, type SyncPipeline } from '@verify-hub/sync-jobs';
import type { Redis } from 'ioredis';
import { registeredPlatforms } from './platforms';

/**
 * Workflow actions (HubSpot's "Verify email address") completed by a durable job: the same wiring for
 * `serve` (which answers the calls) and `verify-hub worker` (which may be the only process running
 * jobs, when the hub is HTTP-only), so a blocked action completes whichever process is up. Each call
 * completes through its platform module's `workflowAction.complete`.
 */
export function actionCompletionsFor(pipeline: SyncPipeline, redis: Redis, prefix: string, logger: Logger): ActionCompletions {
  return new ActionCompletions({
    redis,
    prefix,
    cache: pipeline.cache,
    logger,
    complete: async (job, result) => {
      const action = registeredPlatforms().find((module) => module.id === job.platform)?.workflowAction;
      if (!action) throw new Error(`no workflow action completes on ${job.platform}`);
      try {
        await action.complete(await pipeline.openConnector(job.platform, job.connectionId), job.callbackId, result);
      } catch (error) {
        // The app was uninstalled from the account: nothing can be completed there any more.
        if (isAppUninstalled(error) && pipeline.connections) await disconnectUninstalled(job.connectionId, { connections: pipeline.connections, runs: pipeline, schedules: pipeline.schedules, logger });
        throw error;
      }
    },
  });
}
