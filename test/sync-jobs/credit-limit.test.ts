import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { EngineClient, type Verifier } from '@verify-hub/core';
import type { SyncPipelineOptions } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitFor, waitForStatus } from './helpers';

const SIZE = 3_000;
const CAP = 500;
const addressOf = (i: number) => `user.${i}@cap.example.com`;

/** A HubSpot portal of SIZE contacts, the fake engine, and a pipeline whose chunks run several at once. */
async function setUp(portalId: string, options: Partial<SyncPipelineOptions> = {}) {
  const hubspot = new FakeHubSpot();
  hubspot.addPortal({ portalId, token: `token-${portalId}`, windowLimit: 1_000_000 });
  const ids = hubspot.addContacts(portalId, Array.from({ length: SIZE }, (_, i) => ({ email: addressOf(i) })));
  await hubspot.start();
  const engine = new FakeEngine({ latencyMs: 5 });
  await engine.start();
  const client = new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey });
  // Counts verifications in flight across the worker: above one chunk's concurrency means chunks ran in parallel.
  const flight = { now: 0, peak: 0 };
  const verifier: Verifier = {
    verify: async (email, opts) => {
      flight.peak = Math.max(flight.peak, ++flight.now);
      try {
        return await client.verify(email, opts);
      } finally {
        flight.now--;
      }
    },
  };
  const pipeline = platformPipeline('vhcap', { hubspot: hubspotConnectorFactory }, { chunkConcurrency: 4, verifyConcurrency: 5, creditWaitMs: 100, ...options });
  const connectionId = `hubspot-${portalId}`;
  await pipeline.connections!.save({ id: connectionId, platform: 'hubspot', label: 'p', createdAt: new Date().toISOString(), credentials: { accessToken: `token-${portalId}` }, settings: { apiBase: hubspot.url } });
  return {
    hubspot,
    ids,
    engine,
    pipeline,
    flight,
    connectionId,
    verifier,
    async done() {
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await hubspot.stop();
    },
  };
}

describe('credit limit on a multi-page platform run', () => {
  it(`a cap of ${CAP} on ${SIZE.toLocaleString('en')} HubSpot contacts in parallel chunks spends exactly ${CAP}, pauses saying so, and a resume with a higher cap completes buying nothing twice`, async () => {
    const t = await setUp('701');
    const workers = t.pipeline.startWorkers({ verifier: t.verifier });
    try {
      const run = await t.pipeline.start({ platform: 'hubspot', connectionId: t.connectionId, scope: 'all', options: { maxCredits: CAP } });
      const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(new RegExp(`^stopped at the credit limit of ${CAP} \\(${CAP} credits spent\\): raise it with \`verify-hub runs resume ${run.id} --max-credits N\``));
      await waitFor(async () => (await t.pipeline.queues.chunks.getJobCounts('active')).active === 0);
      expect(t.flight.peak).toBeGreaterThan(5); // several chunks verified at once
      expect(t.engine.billed).toBe(CAP);
      expect((await t.pipeline.get(run.id))!.counters.credits).toBe(CAP);
      expect(await t.pipeline.store.creditState(run.id)).toEqual({ spent: CAP, reserved: 0 });

      await t.pipeline.resume(run.id, { maxCredits: 10_000 });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: SIZE, verified: SIZE, cached: 0, written: SIZE, unchanged: 0, failed: 0, credits: SIZE });
      expect(t.engine.billed).toBe(SIZE);
      const askedTwice = Array.from({ length: SIZE }, (_, i) => addressOf(i)).filter((a) => t.engine.callsFor(a) !== 1);
      expect(askedTwice).toEqual([]);
      const counts = t.ids.map((id) => t.hubspot.writeCounts.get(id) ?? 0);
      expect(counts.every((n) => n === 1)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
  }, 300_000);

  it('credits reserved by a chunk that no longer runs (killed mid-way) go back to the cap: the run still spends exactly its limit', async () => {
    const t = await setUp('702', { reconcileIntervalMs: 300 });
    try {
      const run = await t.pipeline.start({ platform: 'hubspot', connectionId: t.connectionId, scope: 'all', options: { maxCredits: CAP } });
      // What a worker killed while verifying page 29 leaves behind: 400 credits reserved, no job to release them.
      await t.pipeline.redis.hset(t.pipeline.keys.reservations(run.id), '29', '400|killed');
      const workers = t.pipeline.startWorkers({ verifier: t.verifier });
      try {
        const paused = await waitForStatus(t.pipeline, run.id, ['paused', 'completed', 'failed']);
        expect(paused.statusReason).toMatch(new RegExp(`^stopped at the credit limit of ${CAP} \\(${CAP} credits spent\\)`));
        await waitFor(async () => (await t.pipeline.queues.chunks.getJobCounts('active')).active === 0);
        expect(t.engine.billed).toBe(CAP);
        expect(await t.pipeline.store.creditState(run.id)).toEqual({ spent: CAP, reserved: 0 });
      } finally {
        await workers.close();
      }
    } finally {
      await t.done();
    }
  }, 300_000);

  it('the same on Mailchimp (pages of 1,000 members): a cap of 1,500 on 4,000 spends exactly 1,500, and a resume completes the rest', async () => {
    const { FakeMailchimp } = await import('../fakes/mailchimp');
    const { mailchimpPlatform } = await import('@verify-hub/connector-mailchimp');
    const key = `${'c'.repeat(32)}-us1`;
    const mailchimp = await new FakeMailchimp({ latencyMs: 1 }).start();
    mailchimp.addAccount(key, { dc: 'us1' });
    mailchimp.addList(key, 'capl');
    mailchimp.addMembers('capl', Array.from({ length: 4000 }, (_, i) => ({ email: `member.${i}@cap.example.com` })));
    const engine = new FakeEngine({ latencyMs: 2 });
    await engine.start();
    const pipeline = platformPipeline('vhcapmc', { mailchimp: mailchimpPlatform }, { chunkConcurrency: 4, verifyConcurrency: 10, creditWaitMs: 100 });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }) });
    try {
      await pipeline.connections!.save({
        id: 'mailchimp-capl', platform: 'mailchimp', label: 'audience', createdAt: new Date().toISOString(), credentials: { apiKey: key },
        settings: { listId: 'capl', apiBase: mailchimp.apiBase, retry: { baseMs: 5, maxMs: 50 }, batchPolling: { initialMs: 10, maxMs: 50, timeoutMs: 60_000 } },
      });
      const run = await pipeline.start({ platform: 'mailchimp', connectionId: 'mailchimp-capl', scope: 'all', options: { maxCredits: 1_500 } });
      const paused = await waitForStatus(pipeline, run.id, ['paused', 'completed', 'failed']);
      expect(paused.statusReason).toMatch(/^stopped at the credit limit of 1500 \(1500 credits spent\)/);
      await waitFor(async () => (await pipeline.queues.chunks.getJobCounts('active')).active === 0);
      expect(engine.billed).toBe(1_500);
      await pipeline.resume(run.id, { maxCredits: 4_000 });
      const done = await waitForStatus(pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: 4_000, written: 4_000, failed: 0, credits: 4_000 });
      expect(engine.billed).toBe(4_000);
      expect(mailchimp.members('capl').filter((m) => m.merge_fields.EVRISK).length).toBe(4_000);
    } finally {
      await workers.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await mailchimp.close();
    }
  }, 300_000);
});
