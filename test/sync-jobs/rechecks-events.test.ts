import { randomUUID } from 'node:crypto';
import { SecretBox } from '@verify-hub/core';
import { DEFAULT_RECHECK_DELAYS_MS, Keys, RedisConnectionStore, createRedis, parseRecheckDelays } from '@verify-hub/sync-jobs';
import { setup, waitFor, waitForStatus } from './helpers';

describe('unknown results are re-checked on a growing schedule', () => {
  it('schedules the first re-check 30 minutes out for every page with unknowns', async () => {
    const t = await setup({ size: 300, pageSize: 100, unknownEvery: 10 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.counters).toMatchObject({ verified: 300, unknown: 30, credits: 270, written: 300 });
      const delayed = await t.pipeline.queues.chunks.getJobs(['delayed']);
      const rechecks = delayed.filter((j) => j.name === 'recheck');
      expect(rechecks).toHaveLength(3); // one per page
      for (const job of rechecks) {
        expect(job.opts.delay).toBe(30 * 60_000);
        expect(job.data.attempt).toBe(0);
        expect(job.data.contacts).toHaveLength(10);
        expect(job.data.contacts.every((c: { email: string }) => c.email.startsWith('unknown.'))).toBe(true);
      }
      expect(t.source.storedFor('c9')?.ev_risk).toBe('unknown'); // written as unknown meanwhile, never as invalid
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('re-checks until known, or gives up after the last delay and leaves the contact unknown', async () => {
    const t = await setup({ size: 2, pageSize: 10, emailOf: (i) => `later.${i}@example.com` }, {}, { recheckDelaysMs: [50, 100] });
    t.engine.script('later.0@example.com', { kind: 'result', risk: 'unknown' }, { kind: 'result', risk: 'unknown' }, { kind: 'result', risk: 'safe' });
    t.engine.script('later.1@example.com', { kind: 'result', risk: 'unknown' });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitForStatus(t.pipeline, run.id, ['completed']);
      await waitFor(async () => t.engine.callsFor('later.1@example.com') >= 3 && t.source.storedFor('c0')?.ev_risk === 'safe');
      await waitFor(async () => {
        const c = await t.pipeline.queues.chunks.getJobCounts('delayed', 'waiting', 'active');
        return c.delayed + c.waiting + c.active === 0;
      });
      expect(t.engine.callsFor('later.0@example.com')).toBe(3); // run + 2 re-checks, safe at the last
      expect(t.engine.callsFor('later.1@example.com')).toBe(3); // run + 2 re-checks, then left alone
      expect(t.source.storedFor('c1')?.ev_risk).toBe('unknown');
      const outcomes: string[] = [];
      for await (const row of t.pipeline.report(run.id)) outcomes.push(`${row.contactId}:${row.risk}:${row.outcome}`);
      expect(outcomes).toContain('c0:safe:recheck_written');
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('parses the schedule setting and names it on bad input', () => {
    expect(parseRecheckDelays('30m, 2h,8h,24h,5d')).toEqual(DEFAULT_RECHECK_DELAYS_MS);
    expect(parseRecheckDelays('1.5s')).toEqual([1500]);
    expect(() => parseRecheckDelays('30 minutes')).toThrow(/VERIFY_HUB_RECHECK_DELAYS: "30 minutes" is not a delay/);
    expect(() => parseRecheckDelays(' , ')).toThrow(/needs at least one delay/);
  });
});

describe('webhook events', () => {
  it('coalesce per contact, drop repeated deliveries, and verify the contact read fresh from the platform', async () => {
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const redis = createRedis(process.env.REDIS_URL!);
    const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('x'.repeat(40)));
    const t = await setup({ size: 10, pageSize: 10 }, {}, { prefix, connections: store, eventCoalesceMs: 200 });
    await store.save({ id: 'fake-1', platform: 'fake', label: 'Fake', createdAt: new Date().toISOString(), credentials: { accessToken: 'super-secret-token' } });
    let workers: ReturnType<typeof t.pipeline.startWorkers> | undefined;
    try {
      // Enqueued before the workers start: c3's event is still waiting when the next comes, however slow
      // the machine (with workers running, a 200 ms window could pass between two enqueues under load).
      const base = { platform: 'fake', kind: 'email_changed', accountId: 'a', connectionId: 'fake-1', occurredAt: Date.now() };
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e1' })).toEqual({ queued: true });
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e1' })).toEqual({ queued: false }); // same delivery again
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'e2' })).toEqual({ queued: false }); // coalesced
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c4', dedupeKey: 'e3', email: 'stale@example.com' })).toEqual({ queued: true });
      await expect(t.pipeline.enqueueEvent({ ...base, contactId: '', dedupeKey: 'e4' })).rejects.toThrow(/contactId/);
      workers = t.pipeline.startWorkers();
      await waitFor(async () => t.source.writeCounts.size === 2);
      expect(t.source.writeCounts.get('c3')).toBe(1);
      expect(t.engine.callsFor('user3@example.com')).toBe(1);
      expect(t.engine.callsFor('user4@example.com')).toBe(1); // read again by id: the current address, not the event's
      expect(t.engine.callsFor('stale@example.com')).toBe(0);
      // Credentials are sealed at rest and come back intact.
      const raw = await redis.hget(new Keys(prefix).connection('fake-1'), 'credentials');
      expect(raw).not.toContain('super-secret-token');
      expect((await store.get('fake-1'))?.credentials.accessToken).toBe('super-secret-token');
      expect((await store.list('fake')).map((c) => c.id)).toEqual(['fake-1']);
      expect(await store.delete('fake-1')).toBe(true);
    } finally {
      await workers?.close();
      await t.done();
      await redis.quit();
    }
  });
});

describe('webhook events that cannot be queued', () => {
  it('are not taken for duplicates when the caller retries', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    try {
      const event = { platform: 'fake', kind: 'created', accountId: 'a', connectionId: 'fake-1', contactId: 'c1', dedupeKey: 'once', occurredAt: Date.now() };
      const add = jest.spyOn(t.pipeline.queues.events, 'add').mockRejectedValueOnce(new Error('Redis write failed'));
      await expect(t.pipeline.enqueueEvent(event)).rejects.toThrow('Redis write failed');
      expect(await t.pipeline.enqueueEvent(event)).toEqual({ queued: true });
      expect(add).toHaveBeenCalledTimes(2);
      expect(await t.pipeline.queues.events.getJobCounts('delayed')).toEqual({ delayed: 1 });
    } finally {
      await t.done();
    }
  });
});

describe('webhook events whose forwarder died while queuing them', () => {
  it('are queued by the forwarder that takes the delivery over, however soon: the gate is no proof of a queued event', async () => {
    const t = await setup({ size: 10, pageSize: 10 });
    try {
      const event = { platform: 'fake', kind: 'created', accountId: 'a', connectionId: 'fake-1', contactId: 'c1', dedupeKey: 'taken-over', occurredAt: Date.now() };
      // The first forwarder gets past the gates and dies before its add reaches Redis (it never answers).
      const add = jest.spyOn(t.pipeline.queues.events, 'add').mockImplementationOnce(() => new Promise(() => undefined));
      void t.pipeline.enqueueEvent(event);
      await waitFor(async () => add.mock.calls.length === 1);
      expect(await t.pipeline.queues.events.getJobCounts('delayed', 'waiting')).toEqual({ delayed: 0, waiting: 0 });
      // Its delivery, taken over at once (a short hold), is forwarded again: queued, once; a third time is a repeat.
      expect(await t.pipeline.enqueueEvent(event)).toEqual({ queued: true });
      expect(await t.pipeline.queues.events.getJobCounts('delayed')).toEqual({ delayed: 1 });
      expect(await t.pipeline.enqueueEvent(event)).toEqual({ queued: false });
      expect(await t.pipeline.queues.events.getJobCounts('delayed')).toEqual({ delayed: 1 });
    } finally {
      await t.done();
    }
  });
});

describe('recurring runs', () => {
  it('are BullMQ job schedulers; a bad cron pattern is refused naming the field', async () => {
    const t = await setup({ size: 1 });
    try {
      const s = await t.pipeline.schedules.saveSchedule({ id: 'nightly', cron: '0 3 * * *', timezone: 'UTC', request: { platform: 'fake', scope: 'all' } });
      expect(s).toMatchObject({ id: 'nightly', cron: '0 3 * * *', request: { platform: 'fake', scope: 'all' } });
      expect(s.next).toBeGreaterThan(Date.now());
      await expect(t.pipeline.schedules.saveSchedule({ id: 'bad', cron: 'every night', request: { platform: 'fake', scope: 'all' } })).rejects.toThrow(/cron: it has 2 fields; a pattern has 5/);
      expect(await t.pipeline.schedules.removeSchedule('nightly')).toBe(true);
      expect(await t.pipeline.schedules.listSchedules()).toEqual([]);
    } finally {
      await t.done();
    }
  });

  it('a scheduler firing starts a run', async () => {
    const t = await setup({ size: 20, pageSize: 10 });
    const workers = t.pipeline.startWorkers();
    try {
      await t.pipeline.queues.runs.upsertJobScheduler('soon', { every: 60_000 }, { name: 'scheduled', data: { platform: 'fake', scope: 'all' } });
      await waitFor(async () => (await t.pipeline.list()).some((r) => r.status === 'completed'));
      expect((await t.pipeline.list())[0]!.counters.written).toBe(20);
    } finally {
      await workers.close();
      await t.done();
    }
  });
});
