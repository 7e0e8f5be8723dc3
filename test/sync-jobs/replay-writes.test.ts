import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { EngineClient, type ConnectorFactory, type ContactResult, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitForStatus } from './helpers';

const PORTAL = '944';

/** Contact i: every 5th unknown (not cached, re-checked later), every 7th malformed (rejected locally), the rest safe. */
const addressOf = (i: number) => (i % 7 === 3 ? `broken-${i}.example.com` : i % 5 === 1 ? `unknown.${i}@replay.example.com` : `user.${i}@replay.example.com`);

describe('a chunk replayed after its write landed', () => {
  it('writes nothing twice, unknown and rejected contacts included (their results are not cached)', async () => {
    const hubspot = new FakeHubSpot();
    hubspot.addPortal({ portalId: PORTAL, token: 'replay-token', windowLimit: 1_000_000 });
    const ids = hubspot.addContacts(PORTAL, Array.from({ length: 300 }, (_, i) => ({ email: addressOf(i) })));
    await hubspot.start();
    const engine = new FakeEngine();
    await engine.start();
    let writes = 0;
    // The platform applies the second batch write, then the answer is lost (a worker dying right after it).
    const losesSecondAnswer: ConnectorFactory = (connection, deps) => {
      const real = hubspotConnectorFactory(connection, deps);
      return Object.assign(Object.create(real) as typeof real, {
        async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
          const report = await real.write(results, opts);
          if (++writes === 2) throw new Error('connection reset after the write was applied');
          return report;
        },
      });
    };
    const pipeline = platformPipeline('vhreplay', { hubspot: losesSecondAnswer }, { chunkConcurrency: 1 });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }) });
    try {
      await pipeline.connections!.save({ id: `hubspot-${PORTAL}`, platform: 'hubspot', label: 'p', createdAt: new Date().toISOString(), credentials: { accessToken: 'replay-token' }, settings: { apiBase: hubspot.url } });
      const run = await pipeline.start({ platform: 'hubspot', connectionId: `hubspot-${PORTAL}`, scope: 'all' });
      const done = await waitForStatus(pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(writes).toBeGreaterThanOrEqual(4); // the failed attempt was replayed
      const counts = ids.map((id) => hubspot.writeCounts.get(id) ?? 0);
      expect({ once: counts.filter((n) => n === 1).length, twice: counts.filter((n) => n > 1).length }).toEqual({ once: 300, twice: 0 });
      // the replayed page read its contacts again and found them written: all 100 unchanged
      expect(done.counters).toMatchObject({ pulled: 300, written: 200, unchanged: 100, failed: 0 });
      const unknown = ids.filter((_, i) => addressOf(i).startsWith('unknown.') && i >= 100 && i < 200);
      expect(unknown.length).toBeGreaterThan(0);
      for (const id of unknown) expect(engine.callsFor(addressOf(ids.indexOf(id)))).toBe(1); // carried, not asked again
    } finally {
      await workers.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await hubspot.stop();
    }
  }, 150_000);
});
