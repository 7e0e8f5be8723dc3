import { createHubSpotConnectorFactory, exchangeHubSpotCode, HubSpotAppUninstalledError, HubSpotAuthError, refreshHubSpotToken } from '@verify-hub/connector-hubspot';
import { EngineClient, createLogger, parseScope } from '@verify-hub/core';
import { UNINSTALLED_RUN_REASON, disconnectUninstalled, isAppUninstalled, type SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitFor, waitForStatus } from '../sync-jobs/helpers';

/**
 * Uninstalling the app from a portal: HubSpot then refuses the install's refresh token as unknown,
 * which the connector reports as `HubSpotAppUninstalledError`, and the hub disconnects the connection
 * as `verify-hub disconnect` would (stored token and schedules gone), saying so in one log line.
 */
const fake = new FakeHubSpot();
const REDIRECT = 'https://hub.example.com/oauth/hubspot/callback';
let pipeline: SyncPipeline;
const logLines: string[] = [];
const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });

beforeAll(async () => {
  await fake.start();
  fake.addPortal({ portalId: '611' });
  fake.addPortal({ portalId: '612' });
  fake.addContacts('611', [{ email: 'a@example.com' }]);
  fake.addPortal({ portalId: '613' });
  fake.addContacts('613', Array.from({ length: 1500 }, (_, i) => ({ email: `user.${i}@uninstall${i % 5}.example.com` })));
  pipeline = platformPipeline('vhuninstall', { hubspot: createHubSpotConnectorFactory({ clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret }) });
});
afterAll(async () => {
  await pipeline.purge();
  await pipeline.close();
  await fake.stop();
});

async function install(portalId: string) {
  const record = await exchangeHubSpotCode({ clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, apiBase: fake.url, code: fake.issueAuthCode(portalId, REDIRECT), redirectUri: REDIRECT });
  await pipeline.connections!.save(record);
  return record;
}

describe('HubSpot app uninstall', () => {
  it('is told apart from other refusals: an unknown refresh token is an uninstall, a wrong client secret is not', async () => {
    const record = await install('612');
    const refreshToken = String(record.credentials.refreshToken);
    const wrongSecret = await refreshHubSpotToken({ clientId: fake.oauth.clientId, clientSecret: 'wrong', apiBase: fake.url, refreshToken }).catch((e: unknown) => e);
    expect(wrongSecret).toBeInstanceOf(HubSpotAuthError);
    expect(isAppUninstalled(wrongSecret)).toBe(false);
    fake.uninstallApp('612');
    const gone = await refreshHubSpotToken({ clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, apiBase: fake.url, refreshToken }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(HubSpotAppUninstalledError);
    expect(isAppUninstalled(gone)).toBe(true);
    expect((gone as Error).message).not.toContain(refreshToken);
  });

  it("disconnects the connection when the connector finds the app uninstalled, and only once", async () => {
    const record = await install('611');
    const schedule = await pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'hubspot', connectionId: record.id, scope: 'all' } });
    const other = await pipeline.schedules.saveSchedule({ cron: '0 4 * * *', request: { platform: 'hubspot', connectionId: 'hubspot-612', scope: 'all' } });
    const connector = await pipeline.openConnector('hubspot', record.id);
    await connector.pull(parseScope('all')); // installed: works
    fake.uninstallApp('611');
    // The access token is deleted with the install: the 401 leads to a refresh, which HubSpot refuses.
    const error = await connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(isAppUninstalled(error)).toBe(true);

    const outcome = await disconnectUninstalled(record.id, { connections: pipeline.connections!, runs: pipeline, schedules: pipeline.schedules, logger });
    expect(outcome).toMatchObject({ deleted: record.id, removedSchedules: [schedule.id], platformDeleted: [] });
    expect(outcome!.summary).toBe('Deleted: the stored token, 1 schedule. The app was uninstalled from the account: nothing to delete there.');
    expect(await pipeline.connections!.get(record.id)).toBeUndefined();
    expect((await pipeline.schedules.listSchedules()).map((s) => s.id)).toEqual([other.id]);
    const said = logLines.filter((line) => line.includes('app uninstalled: connection disconnected'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(record.id);
    expect(said[0]).not.toContain(String(record.credentials.refreshToken));
    // A second report of the same uninstall finds nothing to do.
    expect(await disconnectUninstalled(record.id, { connections: pipeline.connections!, runs: pipeline, schedules: pipeline.schedules, logger })).toBeUndefined();
  });

  it('a sync run that finds the app uninstalled ends cancelled, saying why, and the connection is disconnected', async () => {
    const engine = new FakeEngine({ latencyMs: 5 });
    await engine.start();
    const record = await install('613');
    const schedule = await pipeline.schedules.saveSchedule({ cron: '0 5 * * *', request: { platform: 'hubspot', connectionId: record.id, scope: 'all' } });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 }) });
    try {
      const run = await pipeline.start({ platform: 'hubspot', connectionId: record.id, scope: 'all' });
      await waitFor(async () => (await pipeline.store.progress(run.id)).pagesDone >= 2);
      fake.uninstallApp('613');
      const ended = await waitForStatus(pipeline, run.id, ['cancelled', 'completed', 'failed']);
      // Not a pause waiting for a reconnect that cannot come: the run ends, and says why.
      expect({ status: ended.status, reason: ended.statusReason }).toEqual({ status: 'cancelled', reason: UNINSTALLED_RUN_REASON });
      // The run is cancelled first, then the stored token goes (disconnect's order).
      await waitFor(async () => (await pipeline.connections!.get(record.id)) === undefined);
      expect((await pipeline.schedules.listSchedules()).map((s) => s.id)).not.toContain(schedule.id);
      // Every contact pulled before the uninstall was bought at most once.
      const asked = engine.requests.filter((r) => r.keyMatched).map((r) => r.email);
      expect(asked.length).toBe(new Set(asked).size);
    } finally {
      await workers.close();
      await engine.stop();
    }
  }, 60_000);
});
