import { EngineUnavailableError, normalizeEmail, type Logger, type PlatformHost, type Verifier } from '@verify-hub/core';
import { JournalReader, disconnectUninstalled, type SyncPipeline } from '@verify-hub/sync-jobs';

/**
 * What `serve` and `worker` offer the platform modules' routes and tasks (core's PlatformHost), built
 * on the pipeline: the stored verdict is its cache (every run, event and action stores final results
 * there); a fresh check goes through `verifier` (the workers' rate-limited engine when they run);
 * journal readers keep their offset and lease in the pipeline's Redis, under its prefix.
 */
export function pipelineHost(pipeline: SyncPipeline, verifier: Verifier | undefined, logger: Logger, options: { journalIdleMs?: number } = {}): PlatformHost {
  return {
    async storedVerdict(email) {
      const address = normalizeEmail(email);
      return address.ok ? (await pipeline.cache.getMany([address.normalized])).get(address.normalized) : undefined;
    },
    async verifyNow(email) {
      if (!verifier) throw new EngineUnavailableError('the hub has no engine configured to verify with (ENGINE_URL)');
      const result = await verifier.verify(email);
      if (result.risk !== 'unknown') await pipeline.cache.setMany([result]);
      return result;
    },
    journalReader: ({ connectionId, journal, onUninstalled, idleMs }) =>
      new JournalReader({
        redis: pipeline.redis,
        offsetKey: `${pipeline.keys.prefix}:journal-offset:${connectionId}`,
        leaseKey: `${pipeline.keys.prefix}:journal-lease:${connectionId}`,
        connectionId,
        journal,
        enqueue: (event) => pipeline.enqueueEvent(event),
        onUninstalled,
        logger,
        idleMs: idleMs ?? options.journalIdleMs,
      }),
    disconnectUninstalled: async (connectionId) =>
      pipeline.connections ? disconnectUninstalled(connectionId, { connections: pipeline.connections, runs: pipeline, schedules: pipeline.schedules, logger }) : undefined,
    startRun: async (request) => ({ id: (await pipeline.start(request)).id }),
  };
}
