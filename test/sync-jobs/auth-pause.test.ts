import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import { EngineClient } from '@verify-hub/core';
import type { SyncWorkers } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitFor, waitForStatus } from './helpers';

const PORTAL = '931';
const CONTACTS = 3000;

/** A HubSpot portal and an engine on loopback, a pipeline with stored connections, workers in this process. */
async function world() {
  const hubspot = new FakeHubSpot();
  hubspot.addPortal({ portalId: PORTAL, token: 'token-1', windowLimit: 1_000_000 });
  const ids = hubspot.addContacts(PORTAL, Array.from({ length: CONTACTS }, (_, i) => ({ email: `${i % 10 === 9 ? 'invalid' : 'user'}.${i}@auth${i % 7}.example.com` })));
  await hubspot.start();
  const engine = new FakeEngine({ latencyMs: 5 });
  await engine.start();
  const pipeline = platformPipeline('vhauth', { hubspot: hubspotPlatform }, { chunkConcurrency: 2, verifyConcurrency: 5 });
  const connection = (token: string) => ({
    id: `hubspot-${PORTAL}`, platform: 'hubspot', label: 'portal', createdAt: new Date().toISOString(),
    credentials: { accessToken: token }, settings: { apiBase: hubspot.url, requestsPerTenSeconds: 100_000 },
  });
  await pipeline.connections!.save(connection('token-1'));
  const verifier = (key: string) => new EngineClient({ baseUrl: engine.url, apiKey: key, retries: 0 });
  let workers: SyncWorkers | undefined;
  return {
    hubspot, engine, pipeline, ids, connection,
    startWorkers(key: string) {
      workers = pipeline.startWorkers({ verifier: verifier(key) });
    },
    async stopWorkers() {
      await workers?.close();
      workers = undefined;
    },
    async start() {
      return pipeline.start({ platform: 'hubspot', connectionId: `hubspot-${PORTAL}`, scope: 'all' });
    },
    /** Once a few pages are counted, so the refusal lands mid-run. */
    async midRun(runId: string) {
      await waitFor(async () => (await pipeline.store.progress(runId)).pagesDone >= 3);
    },
    async done() {
      await workers?.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await hubspot.stop();
    },
  };
}

function expectEveryContactWrittenOnce(hubspot: FakeHubSpot, ids: string[]): void {
  const counts = ids.map((id) => hubspot.writeCounts.get(id) ?? 0);
  expect({ once: counts.filter((n) => n === 1).length, never: counts.filter((n) => n === 0).length, more: counts.filter((n) => n > 1).length }).toEqual({ once: ids.length, never: 0, more: 0 });
}

// Bounds are generous: a loaded 2-core CI machine once took over 60 s for the HubSpot case (chunks
// refused with the old token retry with backoff after the resume); counts, not timing, are asserted.
describe('a revoked key or token pauses the run, saying what to fix; resume completes it after the fix', () => {
  it('HubSpot token revoked mid-run: paused naming HubSpot and how to reconnect; a new token and resume complete it', async () => {
    const w = await world();
    try {
      w.startWorkers(w.engine.apiKey);
      const run = await w.start();
      await w.midRun(run.id);
      w.hubspot.revokeToken('token-1');
      const paused = await waitForStatus(w.pipeline, run.id, ['paused', 'completed', 'failed'], 90_000);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toMatch(/HubSpot rejected the access token/);
      expect(paused.statusReason).toContain('reconnect HubSpot');
      expect(paused.statusReason).toContain(`verify-hub runs resume ${run.id}`);
      expect(paused.statusReason).not.toMatch(/ENGINE_API_KEY|token-1/);
      w.hubspot.grantToken(PORTAL, 'token-2');
      await w.pipeline.connections!.save(w.connection('token-2'));
      await w.pipeline.resume(run.id);
      const done = await waitForStatus(w.pipeline, run.id, ['completed', 'failed', 'paused'], 90_000);
      expect({ status: done.status, reason: done.statusReason }).toEqual({ status: 'completed', reason: undefined });
      expect(done.counters).toMatchObject({ pulled: CONTACTS, failed: 0 });
      expectEveryContactWrittenOnce(w.hubspot, w.ids);
      expect(done.counters.credits).toBe(w.engine.billed);
    } finally {
      await w.done();
    }
  }, 200_000);

  it('engine key revoked mid-run: paused naming ENGINE_API_KEY; workers with the new key and resume complete it, nothing bought twice', async () => {
    const w = await world();
    try {
      w.startWorkers(w.engine.apiKey);
      const run = await w.start();
      await w.midRun(run.id);
      w.engine.rotateKey('engine-key-2');
      const paused = await waitForStatus(w.pipeline, run.id, ['paused', 'completed', 'failed'], 90_000);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toBe(`the engine refused the API key: check ENGINE_API_KEY, then run \`verify-hub runs resume ${run.id}\``);
      // the fix: workers restarted with the new key (ENGINE_API_KEY), then resume
      await w.stopWorkers();
      w.startWorkers('engine-key-2');
      await w.pipeline.resume(run.id);
      const done = await waitForStatus(w.pipeline, run.id, ['completed', 'failed', 'paused'], 90_000);
      expect(done.status).toBe('completed');
      expect(done.counters).toMatchObject({ pulled: CONTACTS, failed: 0 });
      expectEveryContactWrittenOnce(w.hubspot, w.ids);
      const billedCalls = w.engine.requests.filter((r) => r.keyMatched).length;
      expect(billedCalls).toBe(new Set(w.engine.requests.filter((r) => r.keyMatched).map((r) => r.email)).size);
      expect(done.counters.credits).toBe(w.engine.billed);
    } finally {
      await w.done();
    }
  }, 200_000);
});

describe('a revoked Mailchimp key', () => {
  it('pauses the run naming Mailchimp and how to reconnect; a new key and resume complete it', async () => {
    const { FakeMailchimp } = await import('../fakes/mailchimp');
    const { mailchimpPlatform } = await import('@verify-hub/connector-mailchimp');
    const oldKey = `${'a'.repeat(32)}-us1`;
    const newKey = `${'b'.repeat(32)}-us1`;
    const mailchimp = await new FakeMailchimp({ latencyMs: 1 }).start();
    mailchimp.addAccount(oldKey, { dc: 'us1' });
    mailchimp.alias(newKey, oldKey); // a second key of the same account, which the user will paste when reconnecting
    mailchimp.addList(oldKey, 'mcl1');
    mailchimp.addMembers('mcl1', Array.from({ length: 4000 }, (_, i) => ({ email: `member.${i}@mc${i % 5}.example.com` })));
    const engine = new FakeEngine({ latencyMs: 5 });
    await engine.start();
    const pipeline = platformPipeline('vhauth', { mailchimp: mailchimpPlatform }, { chunkConcurrency: 1, verifyConcurrency: 5 });
    const connection = (apiKey: string) => ({
      id: 'mailchimp-mcl1', platform: 'mailchimp', label: 'audience', createdAt: new Date().toISOString(), credentials: { apiKey },
      settings: { listId: 'mcl1', apiBase: mailchimp.apiBase, retry: { baseMs: 5, maxMs: 50 }, batchPolling: { initialMs: 10, maxMs: 50, timeoutMs: 60_000 } },
    });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }) });
    try {
      await pipeline.connections!.save(connection(oldKey));
      const run = await pipeline.start({ platform: 'mailchimp', connectionId: 'mailchimp-mcl1', scope: 'all' });
      await waitFor(async () => (await pipeline.store.progress(run.id)).pagesDone >= 1);
      mailchimp.revoke(oldKey);
      const paused = await waitForStatus(pipeline, run.id, ['paused', 'completed', 'failed'], 90_000);
      expect(paused.status).toBe('paused');
      expect(paused.statusReason).toContain('reconnect Mailchimp');
      expect(paused.statusReason).toContain(`verify-hub runs resume ${run.id}`);
      expect(paused.statusReason).not.toMatch(/ENGINE_API_KEY|aaaa/);
      await pipeline.connections!.save(connection(newKey));
      await pipeline.resume(run.id);
      const done = await waitForStatus(pipeline, run.id, ['completed', 'failed', 'paused'], 90_000);
      expect({ status: done.status, reason: done.statusReason }).toEqual({ status: 'completed', reason: undefined });
      expect(done.counters).toMatchObject({ pulled: 4000, failed: 0 });
      expect(mailchimp.members('mcl1').filter((m) => m.merge_fields.EVRISK).length).toBe(4000);
    } finally {
      await workers.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await mailchimp.close();
    }
  }, 200_000);
});
