import { createHmac } from 'node:crypto';
import { createHubSpotConnectorFactory, exchangeHubSpotCode, hubspotReceiver, HubSpotAuthError, refreshHubSpotToken } from '@verify-hub/connector-hubspot';
import { EngineClient, createLogger } from '@verify-hub/core';
import { UNINSTALLED_RUN_REASON, disconnectUninstalled, isAppUninstalled, type SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline, waitFor, waitForStatus } from '../sync-jobs/helpers';
import { localDeps } from './helpers';

/**
 * Uninstalling the app from a portal, known from HubSpot's published app lifecycle event (in a webhook
 * delivery here; the journal's is in journal-reader.test.ts), never from a refused refresh token (the
 * published token error says nothing of why): the hub disconnects the connection as `verify-hub
 * disconnect` would (stored token and schedules gone, runs cancelled), saying so in one log line. And
 * the other way: disconnecting an OAuth connection uninstalls the app through the published uninstall API.
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

const SECRET = fake.oauth.clientSecret;
const services = () => ({ connections: pipeline.connections!, runs: pipeline, schedules: pipeline.schedules, logger });

/** A webhook delivery as HubSpot signs it (v3), holding the app's uninstall lifecycle event for `portalId`. */
function uninstallDelivery(portalId: string) {
  const url = 'https://hub.example.com/webhooks/hubspot';
  const body = JSON.stringify([{ eventId: 1, subscriptionType: 'APP_LIFECYCLE_EVENT', eventTypeId: '4-1916193', portalId: Number(portalId), appId: 4242, occurredAt: Date.now() }]);
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
  return { method: 'POST', url, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp }, body: Buffer.from(body) };
}

describe('HubSpot app uninstall', () => {
  it('a refused refresh token is an auth failure (the run pauses), never taken for an uninstall', async () => {
    const record = await install('612');
    const refreshToken = String(record.credentials.refreshToken);
    const wrongSecret = await refreshHubSpotToken({ clientId: fake.oauth.clientId, clientSecret: 'wrong', apiBase: fake.url, refreshToken }).catch((e: unknown) => e);
    expect(wrongSecret).toBeInstanceOf(HubSpotAuthError);
    fake.uninstallApp('612');
    const gone = await refreshHubSpotToken({ clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, apiBase: fake.url, refreshToken }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(HubSpotAuthError);
    expect(isAppUninstalled(gone)).toBe(false);
    expect((gone as Error).message).not.toContain(refreshToken);
  });

  it('the uninstall event in a webhook delivery disconnects the connection, once, and the delivery is answered', async () => {
    const record = await install('611');
    const schedule = await pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'hubspot', connectionId: record.id, scope: 'all' } });
    const other = await pipeline.schedules.saveSchedule({ cron: '0 4 * * *', request: { platform: 'hubspot', connectionId: 'hubspot-612', scope: 'all' } });
    const outcomes: unknown[] = [];
    const receiver = hubspotReceiver(SECRET, async (connectionId) => outcomes.push(await disconnectUninstalled(connectionId, services())));
    fake.uninstallApp('611');
    expect(await receiver.receive(uninstallDelivery('611'), {}, Date.now())).toEqual([]);
    expect(outcomes[0]).toMatchObject({ deleted: record.id, removedSchedules: [schedule.id], platformDeleted: [] });
    expect((outcomes[0] as { summary: string }).summary).toBe('Deleted: the stored token, 1 schedule. The app was uninstalled from the account: nothing to delete there.');
    expect(await pipeline.connections!.get(record.id)).toBeUndefined();
    expect((await pipeline.schedules.listSchedules()).map((s) => s.id)).toEqual([other.id]);
    const said = logLines.filter((line) => line.includes('app uninstalled: connection disconnected'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(record.id);
    expect(said[0]).not.toContain(String(record.credentials.refreshToken));
    // HubSpot delivering the same event again finds nothing to do.
    await receiver.receive(uninstallDelivery('611'), {}, Date.now());
    expect(outcomes[1]).toBeUndefined();
    // Unsigned, it is refused like any delivery.
    await expect(receiver.receive({ ...uninstallDelivery('611'), headers: { 'content-type': 'application/json' } }, {}, Date.now())).rejects.toMatchObject({ status: 401 });
  });

  it('a sync run of an uninstalled app pauses on the refused token, and ends cancelled, saying why, when the uninstall event comes', async () => {
    const engine = new FakeEngine({ latencyMs: 5 });
    await engine.start();
    const record = await install('613');
    const schedule = await pipeline.schedules.saveSchedule({ cron: '0 5 * * *', request: { platform: 'hubspot', connectionId: record.id, scope: 'all' } });
    const workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 }) });
    try {
      const run = await pipeline.start({ platform: 'hubspot', connectionId: record.id, scope: 'all' });
      await waitFor(async () => (await pipeline.store.progress(run.id)).pagesDone >= 2);
      fake.uninstallApp('613');
      expect((await waitForStatus(pipeline, run.id, ['paused', 'cancelled', 'completed', 'failed'])).status).toBe('paused');
      await hubspotReceiver(SECRET, (connectionId) => disconnectUninstalled(connectionId, services())).receive(uninstallDelivery('613'), {}, Date.now());
      const ended = await waitForStatus(pipeline, run.id, ['cancelled', 'completed', 'failed']);
      expect({ status: ended.status, reason: ended.statusReason }).toEqual({ status: 'cancelled', reason: UNINSTALLED_RUN_REASON });
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

  it('disconnecting an OAuth connection uninstalls the app through the published uninstall API; a private token has none', async () => {
    fake.addPortal({ portalId: '614', token: 'private-614' });
    const record = await install('614');
    const connector = await pipeline.openConnector('hubspot', record.id);
    expect(await connector.disconnect!()).toMatchObject({ deleted: ["the app's install on HubSpot portal 614"] });
    expect(fake.externalUninstalls).toEqual(['614']);
    expect(fake.callsTo(/^\/appinstalls\/v3\/external-install$/, 'DELETE').map((c) => c.status)).toEqual([204]);
    // Already gone: said, not an error.
    expect((await connector.disconnect!()).notes).toEqual(expect.arrayContaining([expect.stringMatching(/already gone/)]));
    const privateOne = createHubSpotConnectorFactory()({ id: 'hubspot-614', platform: 'hubspot', label: 'p', createdAt: new Date().toISOString(), credentials: { accessToken: 'private-614' }, settings: { apiBase: fake.url, portalId: '614' } }, localDeps());
    expect(await privateOne.disconnect!()).toEqual({ deleted: [], notes: ["HubSpot's webhook subscriptions belong to the app, not to this connection: none deleted"] });
    expect(fake.externalUninstalls).toEqual(['614']);
  });
});
