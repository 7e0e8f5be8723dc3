import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis } from '@verify-hub/sync-jobs';
import { runView } from '../../webhooks-in/src/run-view';
import { until } from '../setup/until';
import { setup } from './helpers';

/** A pipeline with the file platform and a stored file connection over `csv`; `close` is the one teardown (after each test). */
async function fileRun(name: string, csv: string, engine: { latencyMs: number }, options: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vh-file-progress-'));
  const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
  const redis = createRedis(process.env.REDIS_URL!);
  const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('y'.repeat(40)));
  const t = await setup({ size: 1 }, engine, { prefix, connections: store, ...options });
  t.registry.register('file', fileConnectorFactory);
  const input = join(dir, name);
  writeFileSync(input, csv);
  await store.save({ id: `file-${name}`, platform: 'file', label: name, createdAt: new Date().toISOString(), credentials: {}, settings: { input, ...settings } });
  const workers = t.pipeline.startWorkers();
  teardown = async () => {
    await workers.close();
    await t.done();
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  };
  return { t, start: () => t.pipeline.start({ platform: 'file', connectionId: `file-${name}`, scope: `file:${input}` }) };
}

let teardown: (() => Promise<void>) | undefined;
afterEach(async () => {
  await teardown?.();
  teardown = undefined;
});

describe('a file run\'s progress', () => {
  it('has the file\'s 5,000 rows as its total from the first reading; the percentage never goes back and reaches 100 only at completion', async () => {
    // Every 100th row has no address: skipped by the source, still one of the file's rows.
    const rows = Array.from({ length: 5_000 }, (_, i) => (i % 100 === 50 ? `,blank ${i}` : `p${i}@example.com,row ${i}`));
    const { t, start } = await fileRun('big.csv', `email,note\n${rows.join('\n')}\n`, { latencyMs: 1 }, {}, { pageSize: 250 });
    const run = await start();
    expect(run.expectedTotal).toBe(5_000);
    const readings = [runView(run).progress];
    expect(readings[0]).toMatchObject({ total: 5_000, percent: 0 });
    for (;;) {
      const now = (await t.pipeline.get(run.id))!;
      readings.push(runView(now).progress);
      if (['completed', 'failed', 'paused', 'cancelled'].includes(now.status)) {
        expect(now.status).toBe('completed');
        break;
      }
      // A reading every 25 ms: the run takes seconds, and reading back to back (setImmediate) took the CPU
      // the workers in this process needed on a loaded machine (the run then outlasted the test).
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Contacts: the file's rows less the blank ones found so far: 5,000 first, never growing, 4,950 at the end.
    const totals = readings.map((r) => r.total!);
    for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeLessThanOrEqual(totals[i - 1]!);
    expect(totals.at(-1)).toBe(4_950);
    expect(readings.at(-1)!.done).toBe(4_950);
    const percents = readings.map((r) => r.percent!);
    for (let i = 1; i < percents.length; i++) expect(percents[i]).toBeGreaterThanOrEqual(percents[i - 1]!);
    expect(percents.slice(0, -1).every((p) => p < 100)).toBe(true);
    expect(percents.at(-1)).toBe(100);
    expect(percents.some((p) => p > 0 && p < 100)).toBe(true); // it was seen moving, not jumping 0 -> 100
  }, 240_000);

  it('moves as verifications complete, not per written 1,000-row page: a 2,000-row file moves within 2 s of its first verifications', async () => {
    // 50 ms per answer, 10 at a time per page: each 1,000-row page (the file connector's page) takes 5 s
    // at the very least before it is written, so a figure that moves per page sits at 0 for 5 s.
    const { t, start } = await fileRun('list.csv', `email\n${Array.from({ length: 2_000 }, (_, i) => `p${i}@example.com`).join('\n')}\n`, { latencyMs: 50 }, { verifyConcurrency: 10 });
    const run = await start();
    await until(() => t.engine.requests.length > 0, 30_000, 'the first verification');
    const firstAsked = t.engine.requests[0]!.at;
    let moved: { at: number; view: ReturnType<typeof runView> } | undefined;
    await until(async () => {
      const view = runView((await t.pipeline.get(run.id))!);
      if (view.progress.done > 0) moved = { at: Date.now(), view };
      return moved !== undefined;
    }, 30_000, 'the progress to move');
    // Nothing was written yet: the figure moved with the verifications, not with a page.
    expect(moved!.view.counters.written).toBe(0);
    // The bound; the figure is refreshed at most every 250 ms, so 2 s leaves room for a loaded machine.
    expect(moved!.at - firstAsked).toBeLessThan(2_000);
    const readings: { at: number; percent: number; etaSeconds?: number }[] = [];
    for (;;) {
      const now = (await t.pipeline.get(run.id))!;
      const { progress } = runView(now);
      readings.push({ at: Date.now(), percent: progress.percent!, etaSeconds: progress.etaSeconds });
      if (now.status !== 'running') {
        expect(now.status).toBe('completed');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const finishedAt = readings.at(-1)!.at;
    for (let i = 1; i < readings.length; i++) expect(readings[i]!.percent).toBeGreaterThanOrEqual(readings[i - 1]!.percent);
    expect(readings.filter((r) => r.percent > 0 && r.percent < 100).length).toBeGreaterThan(3);
    // The ETA once a tenth is done follows the time really left: within a factor of 4 (the rate is
    // steady here, set by the engine's latency; a loaded machine makes it uneven, not four times off).
    const early = readings.find((r) => r.percent >= 10 && r.percent < 90 && r.etaSeconds !== undefined)!;
    expect(early).toBeDefined();
    expect(early.etaSeconds!).toBeLessThanOrEqual(Math.ceil((4 * (finishedAt - early.at)) / 1000) + 1);
  }, 240_000);
});
