/**
 * Fair shares bench (issue 22 item 3). Prints ratios against baselines measured in the same run:
 *  1. a small run's (500 contacts) completion time alone, then started behind a big run (6,000
 *     contacts, its backlog already queued) on another connection: the ratio is what sharing costs it;
 *  2. webhook event write-back latency p50/p95 idle, then while a 100,000-contact run of another
 *     connection keeps two worker sets busy: the ratio is what the bulk run costs an event.
 * Real Redis, the fake engine on loopback with a rate limit (the pipeline's shared limiter at it).
 * Every figure is a measurement; nothing fails on a number.
 */
import { ensureRedis } from '../test/setup/redis';
import { completionTimes, eventLatencies, fairStack, percentile, startRun } from '../test/sync-jobs/fair-shares-harness';
import { until } from '../test/setup/until';

const ENGINE_RATE = 400;

async function smallRunTimes(): Promise<{ alone: number; shared: number; big: number }> {
  const stack = await fairStack({ engineRate: ENGINE_RATE });
  try {
    await stack.addConnection('small-alone', 500);
    await stack.addConnection('small', 500);
    await stack.addConnection('big', 6000);
    stack.startWorkers();
    const [alone] = await completionTimes(stack.pipeline, [await startRun(stack.pipeline, 'small-alone')]);
    const big = await startRun(stack.pipeline, 'big');
    await until(async () => (await stack.pipeline.store.progress(big.id)).pages >= 15, 60_000, 'the big run to queue its backlog');
    const small = await startRun(stack.pipeline, 'small');
    const [shared, bigMs] = await completionTimes(stack.pipeline, [small, big], 240_000);
    return { alone: alone!, shared: shared!, big: bigMs! };
  } finally {
    await stack.done();
  }
}

async function eventTimes(withBulk: boolean): Promise<number[]> {
  const stack = await fairStack({ engineRate: 100 });
  try {
    await stack.addConnection('hooks', 1000);
    stack.startWorkers();
    stack.startWorkers();
    if (withBulk) {
      await stack.addConnection('bulk', 100_000);
      const bulk = await startRun(stack.pipeline, 'bulk');
      await until(async () => ((await stack.pipeline.get(bulk.id))?.counters.written ?? 0) >= 200, 60_000, 'the bulk run to be under way');
      const latencies = await eventLatencies(stack, 'hooks', 40, 100);
      await stack.pipeline.cancel(bulk.id);
      return latencies;
    }
    return await eventLatencies(stack, 'hooks', 40, 100);
  } finally {
    await stack.done();
  }
}

async function main(): Promise<void> {
  const redis = await ensureRedis();
  process.env.REDIS_URL = redis.url;
  try {
    await measure();
  } finally {
    redis.stop();
  }
}

async function measure(): Promise<void> {
  const runs = await smallRunTimes();
  console.log(`small run (500 contacts, engine ${ENGINE_RATE}/s): alone ${runs.alone} ms, behind a 6,000-contact run ${runs.shared} ms (x${(runs.shared / runs.alone).toFixed(2)}); the big run took ${runs.big} ms`);
  const idle = await eventTimes(false);
  const busy = await eventTimes(true);
  const p = (values: number[], n: number) => percentile(values, n);
  console.log(`event write-back (engine 100/s, 2 worker sets): idle p50 ${p(idle, 50)} ms p95 ${p(idle, 95)} ms; during a 100,000-contact run p50 ${p(busy, 50)} ms p95 ${p(busy, 95)} ms (p95 x${(p(busy, 95) / p(idle, 95)).toFixed(2)})`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
