import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis, metricsRegistry, trackQueueDepth } from '@verify-hub/sync-jobs';
import { setup, waitForStatus } from './helpers';

/** The value of one sample of a metric family, or undefined when the sample is absent. */
async function sample(metric: string, labels: string): Promise<number | undefined> {
  const text = await metricsRegistry.getSingleMetricAsString(metric);
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('metrics for operators', () => {
  it('reports the age of the oldest job waiting per queue, from when it became ready, and 0 once none waits', async () => {
    const redis = createRedis(process.env.REDIS_URL!);
    const name = `vhtest-age-${randomUUID().slice(0, 8)}`;
    const connection = redis.duplicate();
    const queue = new Queue(name, { connection });
    const untrack = trackQueueDepth(queue);
    try {
      expect(await sample('verify_hub_queue_oldest_waiting_seconds', `queue="${name}"`)).toBe(0);
      const now = Date.now();
      await queue.add('old', {}, { timestamp: now - 90_000 });
      await queue.add('new', {}, { timestamp: now - 5_000 });
      const age = await sample('verify_hub_queue_oldest_waiting_seconds', `queue="${name}"`);
      // The oldest (90 s) is reported, not the newest; the scrape itself takes a moment on a busy machine.
      expect(age).toBeGreaterThanOrEqual(90);
      expect(age).toBeLessThan(120);
      await queue.drain();
      expect(await sample('verify_hub_queue_oldest_waiting_seconds', `queue="${name}"`)).toBe(0);
    } finally {
      untrack();
      await queue.obliterate({ force: true });
      await queue.close();
      await connection.quit();
      await redis.quit();
    }
  });

  it('a queue no longer tracked drops out of the scrape', async () => {
    const name = `vhtest-untracked-${randomUUID().slice(0, 8)}`;
    const connection = createRedis(process.env.REDIS_URL!);
    const queue = new Queue(name, { connection });
    const untrack = trackQueueDepth(queue);
    expect(await sample('verify_hub_queue_oldest_waiting_seconds', `queue="${name}"`)).toBe(0);
    untrack();
    expect(await sample('verify_hub_queue_oldest_waiting_seconds', `queue="${name}"`)).toBeUndefined();
    await queue.obliterate({ force: true });
    await queue.close();
    await connection.quit();
  });

  it("counts each connection's contacts under its own id (throughput per account)", async () => {
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const redis = createRedis(process.env.REDIS_URL!);
    const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('z'.repeat(40)));
    const t = await setup({ size: 250, pageSize: 100 }, {}, { prefix, connections: store });
    const connection = `conn-${randomUUID().slice(0, 8)}`;
    await store.save({ id: connection, platform: 'fake', label: 'metrics', createdAt: new Date().toISOString(), credentials: {}, settings: {} });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', connectionId: connection, scope: 'all' });
      expect((await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'])).status).toBe('completed');
      expect(await sample('verify_hub_connection_contacts_total', `connection="${connection}"`)).toBe(250);
    } finally {
      await workers.close();
      await t.done();
      await redis.quit();
    }
  });
});
