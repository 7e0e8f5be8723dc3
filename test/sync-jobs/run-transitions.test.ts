import { setup } from './helpers';

/**
 * A run's status and the fields that go with it (a pause's `resumeAt`, an end's `finishedAt`) change
 * in one step: a reader (the run page, `runs get`, a waiting test) never sees a quota pause without
 * its reset time, or a cancelled run without its end.
 */
describe('run transitions', () => {
  it('a pause writes its resumeAt with the status; a resume or a pause without one clears it', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    const { store } = t.pipeline;
    try {
      const run = await store.create({ platform: 'fake', scope: 'all' });
      const resumeAt = Date.now() + 60_000;
      expect(await store.transition(run.id, 'paused', ['queued'], 'engine quota used up', { resumeAt })).toBe(true);
      expect(await store.get(run.id)).toMatchObject({ status: 'paused', statusReason: 'engine quota used up', resumeAt });

      expect(await store.transition(run.id, 'running', ['paused'])).toBe(true);
      const running = await store.get(run.id);
      expect(running?.status).toBe('running');
      expect(running?.resumeAt).toBeUndefined();
      expect(running?.statusReason).toBeUndefined();

      await store.transition(run.id, 'paused', ['running'], 'quota', { resumeAt });
      await store.transition(run.id, 'running', ['paused']);
      await store.transition(run.id, 'paused', ['running'], 'paused by a user');
      expect((await store.get(run.id))?.resumeAt).toBeUndefined(); // the old reset does not resume a user's pause
    } finally {
      await t.done();
    }
  });

  it('a refused transition writes nothing; cancelling writes finishedAt with the status', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    const { store } = t.pipeline;
    try {
      const run = await store.create({ platform: 'fake', scope: 'all' });
      expect(await store.transition(run.id, 'paused', ['running'], 'quota', { resumeAt: 1 })).toBe(false);
      expect(await store.get(run.id)).toMatchObject({ status: 'queued' });
      expect((await store.get(run.id))?.resumeAt).toBeUndefined();

      const cancelled = await t.pipeline.cancel(run.id);
      expect(cancelled.status).toBe('cancelled');
      expect(Date.parse(cancelled.finishedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
      await expect(store.transition('no-such-run', 'paused', ['running'])).rejects.toThrow(/not found/);
    } finally {
      await t.done();
    }
  });
  it('resume sends parked chunks back to work, and goes on past one its own parking already sent back', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    const { store, queues } = t.pipeline;
    try {
      const run = await store.create({ platform: 'fake', scope: 'all' });
      expect(await store.transition(run.id, 'paused', ['queued'], 'paused by a user')).toBe(true);
      const [parked, alreadyBack] = [`${run.id}-p0`, `${run.id}-p1`];
      for (const [pageIndex, jobId] of [parked, alreadyBack].entries()) {
        await queues.chunks.add('chunk', { runId: run.id, pageIndex }, { jobId, delay: 3_600_000 });
        await store.park(run.id, jobId);
      }
      // The chunk parked as the resume came, saw it, and promoted itself: still listed as parked, no longer delayed.
      await (await queues.chunks.getJob(alreadyBack))!.promote();

      expect((await t.pipeline.resume(run.id)).status).toBe('running');
      for (const jobId of [parked, alreadyBack]) expect(await queues.chunks.getJobState(jobId)).toBe('waiting');
      expect(await store.takeParked(run.id)).toEqual([]);
    } finally {
      await t.done();
    }
  });
});
