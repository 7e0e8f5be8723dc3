import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { EngineClient } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitForStatus } from './helpers';

const PORTAL = '945';
const PAIRS = 100;

/**
 * Record i and record i + 100 share an address: HubSpot's pages of 100 put them in two chunks that
 * run at once on two workers, each buying the address (same Idempotency-Key: one purchase, the engine
 * sends no `checked_at`, so each answer is timed by the hub on arrival).
 */
describe('one address on two records, in two chunks at once', () => {
  it('gets one result (one checked-at) in the run, and a re-sync writes nothing', async () => {
    const hubspot = new FakeHubSpot();
    hubspot.addPortal({ portalId: PORTAL, token: 'shared-token', windowLimit: 1_000_000 });
    const addressOf = (i: number) => `person.${i % PAIRS}@shared.example.com`;
    const ids = hubspot.addContacts(PORTAL, Array.from({ length: 2 * PAIRS }, (_, i) => ({ email: addressOf(i) })));
    await hubspot.start();
    const engine = new FakeEngine({ latencyMs: 15 });
    await engine.start();
    const pipeline = platformPipeline('vhshared', { hubspot: hubspotConnectorFactory }, { chunkConcurrency: 2, verifyConcurrency: 5 });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }) });
    try {
      await pipeline.connections!.save({ id: `hubspot-${PORTAL}`, platform: 'hubspot', label: 'p', createdAt: new Date().toISOString(), credentials: { accessToken: 'shared-token' }, settings: { apiBase: hubspot.url } });
      const first = await waitForStatus(pipeline, (await pipeline.start({ platform: 'hubspot', connectionId: `hubspot-${PORTAL}`, scope: 'all' })).id, ['completed', 'failed', 'paused']);
      expect(first.status).toBe('completed');
      expect(first.counters).toMatchObject({ pulled: 2 * PAIRS, written: 2 * PAIRS, failed: 0 });

      const checkedAt = (id: string) => hubspot.portal(PORTAL).contacts.get(id)!.properties.ev_checked_at;
      const differing = Array.from({ length: PAIRS }, (_, i) => i).filter((i) => checkedAt(ids[i]!) !== checkedAt(ids[i + PAIRS]!));
      expect(differing).toEqual([]);

      const again = await waitForStatus(pipeline, (await pipeline.start({ platform: 'hubspot', connectionId: `hubspot-${PORTAL}`, scope: 'all' })).id, ['completed', 'failed', 'paused']);
      expect(again.status).toBe('completed');
      expect(again.counters).toMatchObject({ pulled: 2 * PAIRS, written: 0, unchanged: 2 * PAIRS, failed: 0 });
      expect(ids.filter((id) => hubspot.writeCounts.get(id) !== 1)).toEqual([]);
    } finally {
      await workers.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await hubspot.stop();
    }
  }, 90_000);
});
