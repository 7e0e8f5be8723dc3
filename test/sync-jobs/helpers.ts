import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger, EngineClient, type ConnectorFactory, type PlatformModule } from '@verify-hub/core';
import { ConnectorRegistry, SyncPipeline, type RunRecord, type RunStatus, type SyncPipelineOptions } from '@verify-hub/sync-jobs';
import { FakeEngine, type FakeEngineOptions } from '../fakes/engine';
import { FakeSource, type FakeSourceOptions } from '../fakes/source';
import { until } from '../setup/until';

export const silentLogger = { level: 'silent' };

/** A pipeline under a unique prefix over a fake source and a running fake engine; `done` cleans everything. */
export async function setup(sourceOptions: FakeSourceOptions, engineOptions: FakeEngineOptions = {}, pipelineOptions: Partial<SyncPipelineOptions> = {}) {
  const engine = new FakeEngine(engineOptions);
  await engine.start();
  const source = new FakeSource(sourceOptions);
  const registry = new ConnectorRegistry().register('fake', () => source);
  const verifier = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 1, backoffBaseMs: 10 });
  const { createLogger } = await import('@verify-hub/core');
  const pipeline = new SyncPipeline({
    redisUrl: process.env.REDIS_URL,
    prefix: `vhtest-${randomUUID().slice(0, 8)}`,
    verifier,
    connectors: registry,
    chunkConcurrency: 4,
    verifyConcurrency: 10,
    logger: createLogger({ level: 'silent' }),
    ...pipelineOptions,
  });
  return {
    engine,
    source,
    pipeline,
    registry,
    async done() {
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
    },
  };
}

/**
 * A pipeline over real platform connectors (their fakes on loopback), under a unique prefix `<name>-…`
 * with a secret key of its own (stored connections are sealed with it); `options` add to or override.
 */
/** `connectors` by platform id: a bare factory, or the platform's module (its reconnect advice too). */
export function platformPipeline(name: string, connectors: Record<string, ConnectorFactory | PlatformModule>, options: Partial<SyncPipelineOptions> = {}): SyncPipeline {
  const registry = new ConnectorRegistry();
  for (const [platform, source] of Object.entries(connectors)) {
    if (typeof source === 'function') registry.register(platform, source);
    else registry.register(source);
  }
  return new SyncPipeline({
    redisUrl: process.env.REDIS_URL,
    prefix: `${name}-${randomUUID().slice(0, 8)}`,
    secretKey: randomBytes(32).toString('base64'),
    connectors: registry,
    logger: createLogger({ level: 'silent' }),
    ...options,
  });
}

/** Polls until the run reaches one of `statuses` (generous bound, a liveness one: counts, not timing, are asserted). */
export async function waitForStatus(pipeline: SyncPipeline, id: string, statuses: RunStatus[], timeoutMs = 120_000): Promise<RunRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await pipeline.get(id);
    if (run && statuses.includes(run.status)) return run;
    if (Date.now() > until) throw new Error(`run ${id} still ${run?.status} after ${timeoutMs} ms: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  return until(check, timeoutMs);
}
