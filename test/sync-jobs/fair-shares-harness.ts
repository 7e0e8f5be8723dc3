import { randomBytes, randomUUID } from 'node:crypto';
import { EngineClient, createLogger, type ConnectionRecord } from '@verify-hub/core';
import { ConnectorRegistry, SyncPipeline, type RunRecord, type SyncPipelineOptions, type SyncWorkers } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeSource } from '../fakes/source';
import { until } from '../setup/until';

/**
 * Several stored connections (each its own fake source: `addConnection`) over one pipeline and one
 * fake engine whose plan allows `engineRate` requests per second (the pipeline's shared limiter is set
 * to it; the engine itself refuses beyond a quarter more). Used by fair-shares.test.ts and
 * bench/fair-shares.bench.ts.
 */
export async function fairStack(options: { engineRate: number; engineLatencyMs?: number; pipeline?: Partial<SyncPipelineOptions> }) {
  const engine = new FakeEngine({ latencyMs: options.engineLatencyMs ?? 5, ratePerSecond: Math.ceil(options.engineRate * 1.25) });
  await engine.start();
  const sources = new Map<string, FakeSource>();
  const registry = new ConnectorRegistry().register('fake', (connection: ConnectionRecord) => sources.get(connection.id)!);
  const pipeline = new SyncPipeline({
    redisUrl: process.env.REDIS_URL,
    prefix: `vhfair-${randomUUID().slice(0, 8)}`,
    secretKey: randomBytes(32).toString('base64'),
    verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 1, backoffBaseMs: 10 }),
    connectors: registry,
    engineRatePerSecond: options.engineRate,
    eventCoalesceMs: 20,
    logger: createLogger({ level: 'silent' }),
    ...options.pipeline,
  });
  const workerSets: SyncWorkers[] = [];
  return {
    engine,
    pipeline,
    sources,
    /** Stores connection `id` over a fake source of `size` contacts (100 per page). */
    async addConnection(id: string, size: number): Promise<FakeSource> {
      const source = new FakeSource({ size, pageSize: 100 });
      sources.set(id, source);
      await pipeline.connections!.save({ id, platform: 'fake', label: id, createdAt: new Date().toISOString(), credentials: {} });
      return source;
    },
    /** One more set of workers, as another process would run (closed by `done`). */
    startWorkers(): SyncWorkers {
      const workers = pipeline.startWorkers();
      workerSets.push(workers);
      return workers;
    },
    async done() {
      await Promise.all(workerSets.map((w) => w.close()));
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
    },
  };
}

export type FairStack = Awaited<ReturnType<typeof fairStack>>;

/** Waits for every run to complete; returns how long each took, from `startedAt` (epoch ms) to its `finishedAt`. */
export async function completionTimes(pipeline: SyncPipeline, runs: { id: string; startedAt: number }[], timeoutMs = 120_000): Promise<number[]> {
  const finished: RunRecord[] = [];
  await until(
    async () => {
      finished.length = 0;
      for (const { id } of runs) {
        const run = await pipeline.get(id);
        if (run?.status !== 'completed') return false;
        finished.push(run);
      }
      return true;
    },
    timeoutMs,
    'the runs to complete',
  );
  return finished.map((run, i) => Date.parse(run.finishedAt!) - runs[i]!.startedAt);
}

/** Starts a run of stored connection `connectionId` (scope all) and notes when. */
export async function startRun(pipeline: SyncPipeline, connectionId: string): Promise<{ id: string; startedAt: number }> {
  const startedAt = Date.now();
  const { id } = await pipeline.start({ platform: 'fake', connectionId, scope: 'all' });
  return { id, startedAt };
}

/**
 * Sends `count` webhook events for connection `connectionId` (contacts c0, c1, ...), one every
 * `spacingMs`, and returns each one's latency: from `enqueueEvent` until its contact is written back.
 */
export async function eventLatencies(stack: FairStack, connectionId: string, count: number, spacingMs = 100): Promise<number[]> {
  const source = stack.sources.get(connectionId)!;
  const pending = Array.from({ length: count }, async (_, i) => {
    await new Promise((resolve) => setTimeout(resolve, i * spacingMs));
    const contactId = `c${i}`;
    const sent = Date.now();
    await stack.pipeline.enqueueEvent({ platform: 'fake', kind: 'email_changed', accountId: 'a', connectionId, contactId, email: source.emailOf(i), occurredAt: sent, dedupeKey: `${contactId}-${sent}` });
    await until(() => (source.writeCounts.get(contactId) ?? 0) > 0, 60_000, `event ${contactId} to be written back`);
    return Date.now() - sent;
  });
  return Promise.all(pending);
}

export { percentile } from '../setup/percentile';
