import { randomUUID } from 'node:crypto';
import { InputError, SecretBox } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis, previewCron, type SyncPipeline } from '@verify-hub/sync-jobs';
import { InProcessFakeVerifier } from '../fakes/source';
import { setup, waitFor } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = { platform: 'fake', scope: 'all' };

async function refusal(work: Promise<unknown> | (() => unknown)): Promise<InputError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

/** Where a time falls in a zone: weekday and hh:mm. */
function inZone(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('weekday')} ${get('hour')}:${get('minute')}`;
}

describe('previewCron', () => {
  it('describes a pattern in words and gives its next occurrences in the time zone', () => {
    const preview = previewCron('0 3 * * 1', 'Europe/Paris');
    expect(preview.description).toBe('Every Monday at 03:00');
    expect(preview.next).toHaveLength(5);
    for (const iso of preview.next) {
      expect(iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(inZone(iso, 'Europe/Paris')).toBe('Mon 03:00');
    }
    expect(new Date(preview.next[0]!).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(preview.next[1]!).getTime() - new Date(preview.next[0]!).getTime()).toBeGreaterThanOrEqual(6 * 86_400_000);

    const everySecond = previewCron('* * * * * *', undefined, 3);
    expect(everySecond.description).toBe('Every second');
    expect(everySecond.next).toHaveLength(3);
    expect(new Date(everySecond.next[2]!).getTime() - new Date(everySecond.next[0]!).getTime()).toBe(2_000);
    expect(inZone(previewCron('30 9 * * *').next[0]!, 'UTC')).toMatch(/09:30$/); // UTC when no zone is given
  });

  it('names the field it cannot read', async () => {
    expect(await refusal(() => previewCron('every night'))).toMatchObject({ field: 'cron', message: expect.stringMatching(/^cron: it has 2 fields; a pattern has 5: minute, hour, day of month, month, day of week/) });
    expect(await refusal(() => previewCron('61 * * * *'))).toMatchObject({ field: 'cron' });
    expect(await refusal(() => previewCron(''))).toMatchObject({ field: 'cron' });
    expect(await refusal(() => previewCron('0 3 * * *', 'Mars/Olympus'))).toMatchObject({ field: 'timezone', message: expect.stringContaining('"Mars/Olympus" is not a known time zone') });
  });
});

describe('schedules', () => {
  let t: Awaited<ReturnType<typeof setup>>;
  let redis: ReturnType<typeof createRedis>;
  let pipeline: SyncPipeline;

  beforeEach(async () => {
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    redis = createRedis(process.env.REDIS_URL!);
    const connections = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('s'.repeat(40)));
    await connections.save({ id: 'fake-1', platform: 'fake', label: 'Fake', createdAt: new Date().toISOString(), credentials: {} });
    t = await setup({ size: 5, pageSize: 10 }, {}, { prefix, connections });
    pipeline = t.pipeline;
  });

  afterEach(async () => {
    await t.done();
    await redis.quit();
  });

  it('are created, listed with their description and next run, paused, resumed and removed', async () => {
    const created = await pipeline.schedules.saveSchedule({ cron: '0 3 * * 1', timezone: 'Europe/Paris', request: { platform: 'fake', connectionId: 'fake-1', scope: 'all', options: { maxCredits: 100 } } });
    expect(created.id).toMatch(/^fake-[a-z0-9]+$/);
    expect(created).toMatchObject({ cron: '0 3 * * 1', timezone: 'Europe/Paris', paused: false, description: 'Every Monday at 03:00', request: { platform: 'fake', connectionId: 'fake-1', scope: 'all', options: { maxCredits: 100 } } });
    expect(inZone(new Date(created.next!).toISOString(), 'Europe/Paris')).toBe('Mon 03:00');
    const nightly = await pipeline.schedules.saveSchedule({ id: 'nightly', cron: '0 2 * * *', request });
    expect(nightly).toMatchObject({ id: 'nightly', timezone: 'UTC', description: 'Every day at 02:00' });

    const listed = await pipeline.schedules.listSchedules();
    expect(listed.map((s) => s.id)).toEqual([created.id, 'nightly'].sort());
    expect(listed.find((s) => s.id === created.id)).toEqual(created);

    const paused = await pipeline.schedules.pauseSchedule(created.id);
    expect(paused).toMatchObject({ id: created.id, paused: true, description: 'Every Monday at 03:00' });
    expect(paused.next).toBeUndefined();
    expect(await pipeline.queues.runs.getJobScheduler(created.id)).toBeUndefined(); // the BullMQ scheduler is gone
    expect((await pipeline.schedules.listSchedules()).find((s) => s.id === created.id)).toEqual(paused); // the definition is kept

    // Saving a paused schedule changes it and keeps it paused.
    expect(await pipeline.schedules.saveSchedule({ id: created.id, cron: '0 4 * * 1', timezone: 'Europe/Paris', request: created.request })).toMatchObject({ paused: true, cron: '0 4 * * 1' });
    expect(await pipeline.queues.runs.getJobScheduler(created.id)).toBeUndefined();

    const resumed = await pipeline.schedules.resumeSchedule(created.id);
    expect(resumed).toMatchObject({ paused: false, cron: '0 4 * * 1' });
    expect(inZone(new Date(resumed.next!).toISOString(), 'Europe/Paris')).toBe('Mon 04:00');
    expect(await pipeline.queues.runs.getJobScheduler(created.id)).toMatchObject({ key: created.id, pattern: '0 4 * * 1', tz: 'Europe/Paris' });

    expect(await pipeline.schedules.removeSchedule(created.id)).toBe(true);
    expect(await pipeline.schedules.removeSchedule(created.id)).toBe(false);
    expect(await pipeline.queues.runs.getJobScheduler(created.id)).toBeUndefined();
    expect((await pipeline.schedules.listSchedules()).map((s) => s.id)).toEqual(['nightly']);
    expect(await refusal(pipeline.schedules.pauseSchedule(created.id))).toMatchObject({ field: 'id' });
    expect(await refusal(pipeline.schedules.resumeSchedule('nope'))).toMatchObject({ field: 'id' });
  });

  it('refuse bad input naming the field', async () => {
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: 'every night', request }))).toMatchObject({ field: 'cron', message: expect.stringMatching(/it has 2 fields/) });
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: '0 3 * * *', timezone: 'Nowhere/Town', request }))).toMatchObject({ field: 'timezone' });
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'nope', scope: 'all' } }))).toMatchObject({ field: 'platform' });
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'fake', connectionId: 'missing', scope: 'all' } }))).toMatchObject({ field: 'connectionId' });
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'fake', scope: ' ' } }))).toMatchObject({ field: 'scope' });
    expect(await refusal(pipeline.schedules.saveSchedule({ id: 'no:colons', cron: '0 3 * * *', request }))).toMatchObject({ field: 'id' });
    expect(await refusal(pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { ...request, options: { maxCredits: -1 } } }))).toMatchObject({ field: 'options.maxCredits' });
    expect(await pipeline.schedules.listSchedules()).toEqual([]);
    expect(await pipeline.queues.runs.getJobSchedulers()).toEqual([]);
  });

  it('list a job scheduler made without a definition, and adopt it when paused', async () => {
    await pipeline.queues.runs.upsertJobScheduler('older', { pattern: '0 5 * * *', tz: 'UTC' }, { name: 'scheduled', data: request });
    expect(await pipeline.schedules.listSchedules()).toEqual([expect.objectContaining({ id: 'older', cron: '0 5 * * *', paused: false, description: 'Every day at 05:00', request, next: expect.any(Number) })]);
    expect(await pipeline.schedules.pauseSchedule('older')).toMatchObject({ id: 'older', paused: true });
    expect(await pipeline.queues.runs.getJobScheduler('older')).toBeUndefined();
    expect(await pipeline.schedules.resumeSchedule('older')).toMatchObject({ id: 'older', paused: false, next: expect.any(Number) });
  });

  it('start runs when they fire, none while paused, none once removed', async () => {
    const workers = pipeline.startWorkers({ verifier: new InProcessFakeVerifier() });
    const runCount = async () => (await pipeline.list({ limit: 1_000 })).length;
    try {
      const s = await pipeline.schedules.saveSchedule({ id: 'every-second', cron: '* * * * * *', request: { platform: 'fake', connectionId: 'fake-1', scope: 'all' } });
      await waitFor(async () => (await pipeline.list()).some((r) => r.status === 'completed'), 15_000);
      const first = (await pipeline.list()).find((r) => r.status === 'completed')!;
      expect(first).toMatchObject({ platform: 'fake', connectionId: 'fake-1', scope: 'all', counters: { pulled: 5, written: 5 } });

      await pipeline.schedules.pauseSchedule(s.id);
      await sleep(1_500); // a firing already taken may still start
      const whilePaused = await runCount();
      await sleep(2_000);
      expect(await runCount()).toBe(whilePaused);

      await pipeline.schedules.resumeSchedule(s.id);
      await waitFor(async () => (await runCount()) > whilePaused, 15_000);

      // A firing that finds its schedule paused (a pause racing it) starts nothing, even with the scheduler still there.
      const key = pipeline.keys.schedules();
      await redis.hset(key, s.id, JSON.stringify({ ...JSON.parse((await redis.hget(key, s.id))!), paused: true }));
      await sleep(1_500);
      const racing = await runCount();
      await sleep(2_000);
      expect(await runCount()).toBe(racing);
      expect(await pipeline.queues.runs.getJobScheduler(s.id)).toBeDefined();

      expect(await pipeline.schedules.removeSchedule(s.id)).toBe(true);
      await sleep(1_500);
      const afterRemoval = await runCount();
      await sleep(2_000);
      expect(await runCount()).toBe(afterRemoval);
      expect(await pipeline.schedules.listSchedules()).toEqual([]);
    } finally {
      await workers.close();
    }
  }, 50_000);
});
