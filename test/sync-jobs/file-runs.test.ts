import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';
import { setup, waitForStatus } from './helpers';

describe('file runs through the queue', () => {
  it('are done whole in one job (one writer), with counters, report and the cleaned file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vh-file-run-'));
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const redis = createRedis(process.env.REDIS_URL!);
    const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('y'.repeat(40)));
    const t = await setup({ size: 1 }, {}, { prefix, connections: store });
    t.registry.register('file', fileConnectorFactory);
    const input = join(dir, 'upload.csv');
    const rows = Array.from({ length: 2_500 }, (_, i) => `${i % 10 === 9 ? 'invalid.' : 'p'}${i}@example.com,row ${i}`);
    writeFileSync(input, `email,note\n${rows.join('\n')}\n`);
    await store.save({ id: 'file-1', platform: 'file', label: 'upload.csv', createdAt: new Date().toISOString(), credentials: {}, settings: { input, pageSize: 200 } });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'file', connectionId: 'file-1', scope: `file:${input}` });
      // A few seconds idle; a CI run at load 11 on 2 cores passed 60 s: the bounds wait for the end, they do not time it.
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'], 150_000);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 2_500, verified: 2_500, written: 2_500, failed: 0, credits: 2_500 });
      const cleaned = readFileSync(join(dir, 'upload.cleaned.csv'), 'utf8').trim().split('\n');
      expect(cleaned).toHaveLength(1 + 2_250); // header + kept rows, in input order
      expect(cleaned[1]).toMatch(/^p0@example.com,row 0,safe/);
      expect(readFileSync(join(dir, 'upload.removed.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 250);
      expect(JSON.parse(readFileSync(join(dir, 'upload.summary.json'), 'utf8')).counts).toEqual({ safe: 2_250, risky: 0, invalid: 250, unknown: 0 });
      let reportRows = 0;
      for await (const row of t.pipeline.report(run.id)) if (row.outcome === 'written') reportRows++;
      expect(reportRows).toBe(2_500);
    } finally {
      await workers.close();
      await t.done();
      await redis.quit();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
