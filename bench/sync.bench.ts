/**
 * Sync pipeline bench (issue 4). Prints ratios against baselines measured in the same run:
 *  1. end-to-end rate over the engine's limit R, with 200 ms engine latency (Redis queue, shared limiter);
 *  2. speed-up over a one-contact-at-a-time loop on 10,000 contacts (the loop is timed on a sample and
 *     extrapolated: 10,000 x 200 ms would take over half an hour);
 *  3. peak RSS over a 1,000,000-contact source (in-process executor, in-process fake engine), in its own
 *     process on the built packages (needs `npm run build`), without and with a capped heap;
 *  4. re-sync of an unchanged 100,000-contact list through the queue: engine calls, writes, contacts/s.
 * Loopback only; every figure is a measurement, nothing fails on a number.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EngineClient, createLogger, type Verifier } from '@verify-hub/core';
import { ConnectorRegistry, RedisVerificationCache, SyncPipeline, type RunRecord } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../test/fakes/engine';
import { FakeSource, InProcessFakeVerifier } from '../test/fakes/source';
import { ensureRedis } from '../test/setup/redis';
import { ensureBuilt, removeBuild } from './built/build';
import { runBuilt } from './built/run-built';

const silent = createLogger({ level: 'silent' });
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

function pipelineFor(redisUrl: string, source: FakeSource, options: Partial<ConstructorParameters<typeof SyncPipeline>[0]> = {}): SyncPipeline {
  return new SyncPipeline({ redisUrl, prefix: `vhbench-${randomUUID().slice(0, 8)}`, connectors: new ConnectorRegistry().register('fake', () => source), logger: silent, ...options });
}

async function runToEnd(pipeline: SyncPipeline, verifier: Verifier, timeoutMs = 240_000): Promise<{ run: RunRecord; ms: number }> {
  const workers = pipeline.startWorkers({ verifier });
  const started = Date.now();
  try {
    const { id } = await pipeline.start({ platform: 'fake', scope: 'all' });
    for (;;) {
      const run = (await pipeline.get(id))!;
      if (['completed', 'failed', 'paused', 'cancelled'].includes(run.status)) return { run, ms: Date.now() - started };
      if (Date.now() - started > timeoutMs) throw new Error(`run still ${run.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await workers.close();
  }
}

async function rateVersusLimit(redisUrl: string): Promise<void> {
  const R = 200;
  const n = 4_000;
  const engine = new FakeEngine({ latencyMs: 200, ratePerSecond: R });
  await engine.start();
  const source = new FakeSource({ size: n, pageSize: 100, track: false });
  const pipeline = pipelineFor(redisUrl, source, { engineRatePerSecond: R, chunkConcurrency: 8, verifyConcurrency: 12 });
  try {
    const { run } = await runToEnd(pipeline, new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }));
    const answered = engine.requests.filter((q) => q.keyMatched);
    const first = answered[0]!.at;
    const last = answered[answered.length - 1]!.at;
    const rate = ((n - 1) * 1000) / (last - first);
    const limited = answered.length - n;
    console.log(`1. rate vs engine limit: R = ${R}/s, latency 200 ms, ${n} contacts, ${run.status}: ${rate.toFixed(1)} verifications/s between first and last engine call`);
    console.log(`   ratio rate / R = ${(rate / R).toFixed(3)} (goal >= 0.95); ${limited} requests answered 429; written ${run.counters.written}`);
  } finally {
    await pipeline.purge();
    await pipeline.close();
    await engine.stop();
  }
}

async function speedUpOverLoop(redisUrl: string): Promise<void> {
  const n = 10_000;
  const sample = 40;
  const engine = new FakeEngine({ latencyMs: 200 });
  await engine.start();
  const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey });
  try {
    // Baseline: the naive integration, one contact at a time: pull, verify, write, next.
    const loopSource = new FakeSource({ size: n, pageSize: 1, track: false });
    const loopStart = Date.now();
    let cursor: string | undefined;
    for (let i = 0; i < sample; i++) {
      const page = await loopSource.pull({ kind: 'all' }, cursor);
      const contact = page.contacts[0]!;
      await loopSource.write([{ contact, verification: await client.verify(contact.email) }], {});
      cursor = page.next;
    }
    const loopMsPerContact = (Date.now() - loopStart) / sample;
    const loopMs = loopMsPerContact * n;

    const source = new FakeSource({ size: n, pageSize: 100, track: false });
    const pipeline = pipelineFor(redisUrl, source, { chunkConcurrency: 10, verifyConcurrency: 25 });
    try {
      const { run, ms } = await runToEnd(pipeline, client);
      console.log(`2. speed-up on ${n} contacts at 200 ms engine latency: loop ${loopMsPerContact.toFixed(0)} ms/contact (timed on ${sample}, extrapolated: ${(loopMs / 1000).toFixed(0)} s)`);
      console.log(`   pipeline ${(ms / 1000).toFixed(1)} s (${run.status}, ${run.counters.written} written): speed-up ${(loopMs / ms).toFixed(0)}x (goal >= 50x)`);
    } finally {
      await pipeline.purge();
      await pipeline.close();
    }
  } finally {
    await engine.stop();
  }
}

/** The 1,000,000-contact sync in its own process on the built packages (bench/scale/sync-memory.ts). */
async function peakRss(nodeArgs: string[] = []): Promise<void> {
  const run = await runBuilt(join(__dirname, 'scale', 'sync-memory.ts'), [], nodeArgs);
  const flags = nodeArgs.length > 0 ? `node ${nodeArgs.join(' ')}` : 'no heap flags';
  console.log(`3. memory over 1,000,000 contacts (in-process executor, in-process fake engine; built packages, plain node, ${flags}): peak RSS ${mb(run.peakRss)} (goal flat, < 200 MB)`);
  console.log(`   ${run.output.trim()}${run.status === 0 ? '' : ` (exit ${run.status})`}`);
}

async function unchangedResync(redisUrl: string): Promise<void> {
  const n = 100_000;
  const source = new FakeSource({ size: n, pageSize: 250 });
  const verifier = new InProcessFakeVerifier();
  const pipeline = pipelineFor(redisUrl, source, { chunkConcurrency: 8, verifyConcurrency: 10 });
  try {
    // The state after a first sync: every result cached, every contact holding its values.
    const cache = new RedisVerificationCache(pipeline.redis, pipeline.keys);
    let cursor: string | undefined;
    do {
      const page = await source.pull({ kind: 'all' }, cursor);
      const results = await Promise.all(page.contacts.map(async (contact) => ({ contact, verification: await verifier.verify(contact.email) })));
      await cache.setMany(results.map((r) => r.verification));
      await source.write(results, {});
      cursor = page.next;
    } while (cursor !== undefined);
    const callsBefore = verifier.calls;
    const writtenBefore = source.written;
    const { run, ms } = await runToEnd(pipeline, verifier);
    console.log(`4. re-sync of an unchanged ${n.toLocaleString('en')}-contact list through the queue: ${run.status} in ${(ms / 1000).toFixed(1)} s = ${Math.round((n * 1000) / ms)} contacts/s`);
    console.log(`   engine calls ${verifier.calls - callsBefore}, writes ${source.written - writtenBefore}, unchanged ${run.counters.unchanged}, served from cache ${run.counters.cached}`);
  } finally {
    await pipeline.purge();
    await pipeline.close();
  }
}

async function main(): Promise<void> {
  const built = ensureBuilt();
  try {
    await peakRss();
    await peakRss(['--max-old-space-size=96']); // as a deployment with a capped heap would run it
    const redis = await ensureRedis();
    try {
      await rateVersusLimit(redis.url);
      await speedUpOverLoop(redis.url);
      await unchangedResync(redis.url);
    } finally {
      redis.stop();
    }
  } finally {
    if (built) removeBuild();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
