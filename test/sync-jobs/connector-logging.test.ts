import { Writable } from 'node:stream';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { createLogger } from '@verify-hub/core';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline } from './helpers';

/**
 * The connectors write their call lines through the logger the pipeline hands them: without that
 * wiring a production hub logs no platform call at all (the connector tests give the logger directly).
 */
describe('platform calls made for a run are logged by the pipeline’s logger', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  let hubspot: FakeHubSpot;
  let pipeline: SyncPipeline;

  beforeAll(async () => {
    hubspot = new FakeHubSpot();
    hubspot.addPortal({ portalId: '902', token: 'token-902-secret' });
    hubspot.setList('902', '78', hubspot.addContacts('902', [{ email: 'a@example.com' }]), 'Webinar');
    await hubspot.start();
    pipeline = platformPipeline('vhconnlog', { hubspot: hubspotConnectorFactory }, { logger: createLogger({ level: 'debug', destination }) });
    await pipeline.connections!.save({ id: 'hubspot-902', platform: 'hubspot', label: 'Portal', createdAt: new Date().toISOString(), credentials: { accessToken: 'token-902-secret' }, settings: { apiBase: hubspot.url } });
  });

  afterAll(async () => {
    await pipeline.purge();
    await pipeline.close();
    await hubspot.stop();
  });

  it('a run that names its list from HubSpot leaves a debug call line naming the platform and connection, without the token', async () => {
    const run = await pipeline.start({ platform: 'hubspot', connectionId: 'hubspot-902', scope: 'list:78' });
    expect(run.name).toBe('Webinar');
    const calls = lines.map((line) => JSON.parse(line) as { level: number; platform?: string; connectionId?: string; call?: { method: string; path: string; status?: number } }).filter((entry) => entry.call);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toMatchObject({ level: 20, platform: 'hubspot', connectionId: 'hubspot-902', call: { status: 200 } });
    expect(lines.join('\n')).not.toContain('token-902-secret');
    await pipeline.cancel(run.id);
  });
});
