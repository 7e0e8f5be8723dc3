import { ActivecampaignConnector, activecampaignEnvironment } from '@verify-hub/connector-activecampaign';
import { EngineClient, type ConnectorFactory, type ContactResult, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { FakeActivecampaign } from '../fakes/activecampaign';
import { FakeEngine } from '../fakes/engine';
import { until } from '../setup/until';
import { platformPipeline, waitForStatus } from './helpers';

const CONTACTS = 40;

/**
 * A chunk whose attempt ends (its worker lost) after ActiveCampaign accepted its bulk import and while
 * the import still waits to be applied: the replay reads its contacts again and finds them as they
 * were, so it plans the same import. It must wait for the import already submitted, not send another.
 */
describe('a chunk replayed after its bulk import was submitted', () => {
  it('resumes that import: ActiveCampaign sees exactly one', async () => {
    const fake = await new FakeActivecampaign({ requestsPerSecond: 1000, importsPerMinute: 10_000 }).start();
    for (let i = 0; i < CONTACTS; i++) fake.store.addContact(`bulk.${i}@replay.example.com`);
    // Applied well after the replay reads the contacts again (the retry comes after about a second).
    fake.imports.delayMs = 3_000;
    const engine = new FakeEngine();
    await engine.start();
    const environment = activecampaignEnvironment.read({ ACTIVECAMPAIGN_API_BASE: fake.url, ACTIVECAMPAIGN_IMPORT_POLL_MS: '20', ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '1000' } as never);
    let lostAttempt: Promise<unknown> | undefined;
    const losesFirstAttempt: ConnectorFactory = (connection, deps) => {
      const real = new ActivecampaignConnector(connection, deps, { apiUrl: fake.accountUrl }, environment);
      return Object.assign(Object.create(real) as ActivecampaignConnector, {
        async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
          if (lostAttempt) return real.write(results, opts);
          // The first attempt goes on polling in the background; the host sees its worker gone once the import is in.
          lostAttempt = real.write(results, opts).catch(() => undefined);
          await until(() => fake.imports.records.sizes.length > 0, 10_000, 'the bulk import');
          throw new Error('worker lost after the bulk import was submitted');
        },
      });
    };
    const pipeline = platformPipeline('vhbulkreplay', { activecampaign: losesFirstAttempt }, { chunkConcurrency: 1 });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }) });
    try {
      await pipeline.connections!.save({ id: 'activecampaign-demo', platform: 'activecampaign', label: 'demo', createdAt: new Date().toISOString(), credentials: { apiToken: fake.token }, settings: { apiUrl: fake.accountUrl } });
      const run = await pipeline.start({ platform: 'activecampaign', connectionId: 'activecampaign-demo', scope: 'all' });
      const done = await waitForStatus(pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(lostAttempt).toBeDefined();
      expect(fake.imports.records.sizes).toEqual([CONTACTS]);
      expect([...fake.imports.records.writesPerContact.values()]).toEqual(Array(CONTACTS).fill(1));
      expect(done.counters).toMatchObject({ pulled: CONTACTS, written: CONTACTS, failed: 0 });
    } finally {
      await lostAttempt;
      await workers.close();
      await pipeline.purge();
      await pipeline.close();
      await engine.stop();
      await fake.stop();
    }
  }, 150_000);
});
