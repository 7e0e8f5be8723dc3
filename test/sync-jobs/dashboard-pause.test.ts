import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { InputError, SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, USER_PAUSE_REASON, createRedis, type RunCounters, type SyncPipeline } from '@verify-hub/sync-jobs';
import { InProcessFakeVerifier } from '../fakes/source';
import { setup, waitFor, waitForStatus } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until no job of the run is at work (chunks that were verifying when it paused finish first), then reads its counters. */
async function settled(pipeline: SyncPipeline, id: string): Promise<RunCounters> {
  const idle = async () => {
    const [chunks, runs] = await Promise.all([pipeline.queues.chunks.getJobCounts('active', 'waiting'), pipeline.queues.runs.getJobCounts('active', 'waiting')]);
    return chunks.active + chunks.waiting + runs.active + runs.waiting === 0;
  };
  let last = '';
  for (;;) {
    await waitFor(idle);
    const now = JSON.stringify((await pipeline.get(id))!.counters);
    if (now === last) return JSON.parse(now) as RunCounters;
    last = now;
    await sleep(300);
  }
}

async function reportIds(pipeline: SyncPipeline, id: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of pipeline.report(id)) ids.push(row.contactId);
  return ids;
}

describe('a user pause of a paged run', () => {
  it('stops the pager and the chunks; resume finishes with every contact counted once', async () => {
    const t = await setup({ size: 2_000, pageSize: 100 }, {}, { chunkConcurrency: 2, verifyConcurrency: 5 });
    const verifier = new InProcessFakeVerifier(20);
    const workers = t.pipeline.startWorkers({ verifier });
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitFor(async () => (await t.pipeline.get(run.id))!.counters.written >= 200);
      const paused = await t.pipeline.pause(run.id);
      expect(paused).toMatchObject({ status: 'paused', statusReason: USER_PAUSE_REASON });
      expect(paused.resumeAt).toBeUndefined();

      const frozen = await settled(t.pipeline, run.id);
      expect(frozen.written).toBeLessThan(2_000);
      const pulls = t.source.pulls;
      await sleep(1_000); // no automatic resume, no paging, no verifying
      const later = (await t.pipeline.get(run.id))!;
      expect(later.status).toBe('paused');
      expect(later.counters).toEqual(frozen);
      expect(t.source.pulls).toBe(pulls);
      expect(await t.pipeline.queues.runs.getJobCounts('active', 'waiting')).toEqual({ active: 0, waiting: 0 });
      await expect(t.pipeline.pause(run.id)).rejects.toMatchObject({ field: 'id', message: expect.stringMatching(/is paused; only a queued or running run can be paused/) });

      expect((await t.pipeline.resume(run.id)).status).toBe('running');
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused', 'cancelled']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 2_000, skipped: 0, written: 2_000, unchanged: 0, failed: 0, credits: 2_000 });
      expect(done.counters.cached + done.counters.verified + (done.counters.rejected ?? 0)).toBe(2_000);
      expect(verifier.calls).toBe(2_000); // nothing bought twice
      expect(t.source.writeCounts.size).toBe(2_000);
      expect([...t.source.writeCounts.values()].every((n) => n === 1)).toBe(true);
      const ids = await reportIds(t.pipeline, run.id);
      expect(ids).toHaveLength(2_000);
      expect(new Set(ids).size).toBe(2_000);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 150_000);

  it('of a queued run keeps it from starting until resumed', async () => {
    const t = await setup({ size: 300, pageSize: 100 });
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      expect((await t.pipeline.pause(run.id)).status).toBe('paused');
      const workers = t.pipeline.startWorkers({ verifier: new InProcessFakeVerifier() });
      try {
        await sleep(500);
        expect((await t.pipeline.get(run.id))!).toMatchObject({ status: 'paused', counters: { pulled: 0 } });
        await t.pipeline.resume(run.id);
        const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed']);
        expect(done.counters).toMatchObject({ pulled: 300, written: 300 });
        expect(done.startedAt).toBeDefined();
      } finally {
        await workers.close();
      }
    } finally {
      await t.done();
    }
  });

  it('is refused, naming the id, for a finished or unknown run', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    const workers = t.pipeline.startWorkers({ verifier: new InProcessFakeVerifier() });
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitForStatus(t.pipeline, run.id, ['completed']);
      const refused = await t.pipeline.pause(run.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InputError);
      expect(refused).toMatchObject({ field: 'id', message: `id: run ${run.id} is completed; only a queued or running run can be paused` });
      await expect(t.pipeline.pause('run_nope')).rejects.toMatchObject({ field: 'id' });
    } finally {
      await workers.close();
      await t.done();
    }
  });
});

describe('a user pause of a file run', () => {
  it('stops between pages, drops the partial output, and resume writes the whole file with every row counted once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vh-file-pause-'));
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const redis = createRedis(process.env.REDIS_URL!);
    const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('z'.repeat(40)));
    const t = await setup({ size: 1 }, {}, { prefix, connections: store, verifyConcurrency: 5 });
    t.registry.register('file', fileConnectorFactory);
    const input = join(dir, 'upload.csv');
    const rows = Array.from({ length: 2_500 }, (_, i) => `${i % 10 === 9 ? 'invalid.' : 'p'}${i}@example.com,row ${i}`);
    writeFileSync(input, `email,note\n${rows.join('\n')}\n`);
    await store.save({ id: 'file-1', platform: 'file', label: 'upload.csv', createdAt: new Date().toISOString(), credentials: {}, settings: { input, pageSize: 100 } });
    const verifier = new InProcessFakeVerifier(10);
    const workers = t.pipeline.startWorkers({ verifier });
    try {
      const run = await t.pipeline.start({ platform: 'file', connectionId: 'file-1', scope: `file:${input}` });
      await waitFor(async () => (await t.pipeline.get(run.id))!.counters.pulled >= 300);
      await t.pipeline.pause(run.id);
      const frozen = await settled(t.pipeline, run.id);
      expect(frozen.pulled).toBeLessThan(2_500);
      expect(frozen.written).toBe(frozen.pulled); // whole pages only: the page cut short is not counted
      await waitFor(async () => !(await redis.exists(new Keys(prefix).writer(run.id)))); // the job ended
      expect(readdirSync(dir).sort()).toEqual(['upload.csv']); // no half-written outputs left
      await sleep(800);
      expect((await t.pipeline.get(run.id))!).toMatchObject({ status: 'paused', counters: frozen });

      await t.pipeline.resume(run.id);
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused', 'cancelled']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 2_500, written: 2_500, unchanged: 0, failed: 0, credits: 2_500 });
      expect(done.counters.cached + done.counters.verified).toBe(2_500);
      expect(verifier.calls).toBe(2_500); // the rows verified before the pause came from the cache
      const ids = await reportIds(t.pipeline, run.id);
      expect(ids).toHaveLength(2_500);
      expect(new Set(ids).size).toBe(2_500);
      const cleaned = readFileSync(join(dir, 'upload.cleaned.csv'), 'utf8').trim().split('\n');
      expect(cleaned).toHaveLength(1 + 2_250);
      expect(cleaned[1]).toMatch(/^p0@example.com,row 0,safe/);
      expect(cleaned[2_250]).toMatch(/^p2498@example.com,row 2498,safe/);
      expect(readFileSync(join(dir, 'upload.removed.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 250);
      const summary = JSON.parse(readFileSync(join(dir, 'upload.summary.json'), 'utf8'));
      expect(summary).toMatchObject({ rows: 2_500, credits: 2_500, counts: { safe: 2_250, risky: 0, invalid: 250, unknown: 0 } });
      expect(existsSync(join(dir, 'upload.cleaned.csv.partial'))).toBe(false);
    } finally {
      await workers.close();
      await t.done();
      await redis.quit();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
