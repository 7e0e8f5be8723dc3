import { randomUUID } from 'node:crypto';
import { SecretBox, type ConnectionRecord, type ConnectorDeps, type Page, type Scope } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis, metricsRegistry } from '@verify-hub/sync-jobs';
import { FakeSource } from '../fakes/source';
import { setup, waitFor, waitForStatus } from './helpers';

async function dropped(reason: string): Promise<number> {
  const text = await metricsRegistry.getSingleMetricAsString('verify_hub_events_dropped_total');
  return Number(new RegExp(`reason="${reason}"} (\\d+)`).exec(text)?.[1] ?? 0);
}

/** A pipeline whose connections live in its own Redis prefix, as the hub's do. */
async function setupWithStore(options: Parameters<typeof setup>[2] = {}, engine: Parameters<typeof setup>[1] = {}) {
  const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
  const redis = createRedis(process.env.REDIS_URL!);
  const store = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('y'.repeat(40)));
  const t = await setup({ size: 300, pageSize: 100 }, engine, { prefix, connections: store, eventCoalesceMs: 50, ...options });
  const record = (id: string, platform: string, settings: Record<string, unknown> = {}): ConnectionRecord => ({ id, platform, label: id, createdAt: new Date().toISOString(), credentials: { accessToken: 'old-token' }, settings });
  return {
    ...t, redis, store, record, prefix,
    async done() {
      await t.done();
      await redis.quit();
    },
  };
}

describe('webhook events wait instead of being dropped', () => {
  it('an event that meets the engine quota waits (no attempt spent) and is handled after the reset', async () => {
    const t = await setupWithStore({}, { quota: 0 });
    await t.store.save(t.record('fake-1', 'fake'));
    const workers = t.pipeline.startWorkers();
    try {
      const failedBefore = await dropped('failed');
      const base = { platform: 'fake', kind: 'email_changed', accountId: 'a', connectionId: 'fake-1', occurredAt: Date.now() };
      expect(await t.pipeline.enqueueEvent({ ...base, contactId: 'c3', dedupeKey: 'q1' })).toEqual({ queued: true });
      const [job] = (await t.pipeline.queues.events.getJobs(['delayed', 'waiting', 'active'])).filter((j) => j.data.event.contactId === 'c3');
      // Tried once, then delayed until the quota's reset (the delayed set's score is BullMQ's time x 4096), not a 1 s backoff.
      const delayedUntil = async () => Math.floor(Number((await t.redis.zscore(`${t.prefix}:events:delayed`, String(job!.id))) ?? 0) / 4096);
      await waitFor(async () => (await delayedUntil()) > Date.now() + 60_000);
      const waiting = (await t.pipeline.queues.events.getJob(String(job!.id)))!;
      expect(waiting.attemptsMade).toBe(0);
      expect(t.source.writeCounts.size).toBe(0);
      // the quota resets (or a top-up): the waiting event goes through
      t.engine.options.quota = undefined;
      await waiting!.promote();
      await waitFor(async () => t.source.writeCounts.get('c3') === 1);
      expect(await dropped('failed')).toBe(failedBefore);
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('an event for a connection that no longer exists is dropped, counted and logged', async () => {
    const t = await setupWithStore();
    const workers = t.pipeline.startWorkers();
    try {
      const before = await dropped('unknown_connection');
      await t.pipeline.enqueueEvent({ platform: 'fake', kind: 'created', accountId: 'a', connectionId: 'gone-1', contactId: 'c1', occurredAt: Date.now(), dedupeKey: 'g1' });
      await waitFor(async () => (await dropped('unknown_connection')) === before + 1);
      expect(t.engine.requests).toHaveLength(0);
    } finally {
      await workers.close();
      await t.done();
    }
  });
});

/** A source that refreshes its token on its first pull, once the test opens the gate. */
class RefreshingSource extends FakeSource {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  pulling = false;
  constructor(private readonly deps: ConnectorDeps) {
    super({ size: 300, pageSize: 100 });
  }
  release(): void {
    this.open();
  }
  override async pull(scope: Scope, cursor?: string): Promise<Page> {
    if (cursor === undefined) {
      this.pulling = true;
      await this.gate;
      await this.deps.saveCredentials({ accessToken: 'new-token', refreshToken: 'r2' });
    }
    return super.pull(scope, cursor);
  }
}

describe('connections during a run', () => {
  async function refreshingWorld() {
    const t = await setupWithStore();
    let source: RefreshingSource | undefined;
    t.registry.register('refreshing', (_connection, deps) => (source ??= new RefreshingSource(deps)));
    return { ...t, source: () => source! };
  }

  it('a token refresh saves only the credentials: settings edited meanwhile stay', async () => {
    const t = await refreshingWorld();
    await t.store.save(t.record('r-1', 'refreshing', { listId: 'old-list' }));
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'refreshing', connectionId: 'r-1', scope: 'all' });
      await waitFor(async () => t.source()?.pulling === true);
      await t.store.save({ ...(await t.store.get('r-1'))!, settings: { listId: 'edited-list' } }); // the user edits the connection meanwhile
      t.source().release();
      expect((await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
      const now = (await t.store.get('r-1'))!;
      expect(now.credentials).toEqual({ accessToken: 'new-token', refreshToken: 'r2' });
      expect(now.settings).toEqual({ listId: 'edited-list' });
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('a connection deleted before its run is paged cancels the run, whichever worker meets the deletion first', async () => {
    const t = await refreshingWorld();
    await t.store.save(t.record('r-3', 'refreshing'));
    const run = await t.pipeline.start({ platform: 'refreshing', connectionId: 'r-3', scope: 'all' });
    await t.store.delete('r-3'); // before any worker runs: the pager meets it, not a chunk
    const workers = t.pipeline.startWorkers();
    try {
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'cancelled']);
      expect({ status: done.status, reason: done.statusReason }).toEqual({ status: 'cancelled', reason: 'its connection r-3 was deleted' });
      expect(t.source().pulls).toBe(0); // nothing was read for the deleted connection
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('a connection deleted mid-run stays deleted (a refresh does not bring it back) and its run is cancelled', async () => {
    const t = await refreshingWorld();
    await t.store.save(t.record('r-2', 'refreshing'));
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'refreshing', connectionId: 'r-2', scope: 'all' });
      await waitFor(async () => t.source()?.pulling === true);
      await t.store.delete('r-2');
      t.source().release();
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'cancelled']);
      expect({ status: done.status, reason: done.statusReason }).toEqual({ status: 'cancelled', reason: 'its connection r-2 was deleted' });
      expect(await t.store.get('r-2')).toBeUndefined();
      expect(await t.redis.exists(new Keys(t.prefix).connection('r-2'))).toBe(0); // no half record left behind
      expect(t.source().writeCounts.size).toBe(0);
    } finally {
      await workers.close();
      await t.done();
    }
  });
});
