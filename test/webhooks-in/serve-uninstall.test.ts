import { createHmac, randomUUID } from 'node:crypto';
import { exchangeHubSpotCode } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { startServeStack, until, type ServeStack } from './serve-stack';

/**
 * An app uninstalled from a portal, found by `verify-hub serve` from HubSpot's published app lifecycle
 * event (eventTypeId 4-1916193) in a signed webhook delivery: the hub disconnects the connection as
 * `verify-hub disconnect` would (token and schedules gone). Using the portal's tokens in between (here:
 * completing a blocked workflow action) meets a refused refresh token, which is an auth failure and never
 * taken for an uninstall on its own: the connection stays until the event comes.
 */
const PORTAL = '838';
const REDIRECT = 'https://hub.example.com/oauth/hubspot/callback';
const hubspot = new FakeHubSpot();
const saved = { id: process.env.HUBSPOT_CLIENT_ID, secret: process.env.HUBSPOT_CLIENT_SECRET };

describe('HubSpot app uninstall found by verify-hub serve', () => {
  let stack: ServeStack;
  beforeAll(async () => {
    await hubspot.start();
    hubspot.addPortal({ portalId: PORTAL });
    // The connector refreshes OAuth tokens with the app's credentials from the environment.
    process.env.HUBSPOT_CLIENT_ID = hubspot.oauth.clientId;
    process.env.HUBSPOT_CLIENT_SECRET = hubspot.oauth.clientSecret;
    stack = await startServeStack('uninstall', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_ID: hubspot.oauth.clientId, HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret, HUBSPOT_API_BASE: hubspot.url });
  });
  afterAll(async () => {
    await stack.close();
    await hubspot.stop();
    for (const [name, value] of [['HUBSPOT_CLIENT_ID', saved.id], ['HUBSPOT_CLIENT_SECRET', saved.secret]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('disconnects the portal when the uninstall event arrives, not when a refused token is met', async () => {
    const record = await exchangeHubSpotCode({ clientId: hubspot.oauth.clientId, clientSecret: hubspot.oauth.clientSecret, apiBase: hubspot.url, code: hubspot.issueAuthCode(PORTAL, REDIRECT), redirectUri: REDIRECT });
    await stack.hub.pipeline.connections!.save({ ...record, settings: { ...record.settings, apiBase: hubspot.url } });
    const schedule = await stack.hub.pipeline.schedules.saveSchedule({ cron: '0 3 * * *', request: { platform: 'hubspot', connectionId: record.id, scope: 'all' } });
    hubspot.uninstallApp(PORTAL);

    const signedPost = (path: string, body: string) => {
      const url = `${stack.hub.url}${path}`;
      const timestamp = String(Date.now());
      const signature = createHmac('sha256', hubspot.oauth.clientSecret).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
      return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': signature } });
    };
    const action = JSON.stringify({ callbackId: hubspot.actions.issueCallback(PORTAL), origin: { portalId: Number(PORTAL), actionDefinitionId: 7 }, object: { objectId: 9, objectType: 'CONTACT' }, inputFields: { email: `someone-${randomUUID().slice(0, 6)}@example.com` } });
    expect((await signedPost('/actions/hubspot', action)).status).toBe(200);
    // The action's completion meets the refused refresh token: still connected.
    expect(await stack.hub.pipeline.connections!.get(record.id)).toBeDefined();

    const event = JSON.stringify([{ eventId: 1, subscriptionType: 'APP_LIFECYCLE_EVENT', eventTypeId: '4-1916193', portalId: Number(PORTAL), appId: 4242, occurredAt: Date.now() }]);
    expect((await signedPost('/webhooks/hubspot', event)).status).toBe(200);
    await until(async () => stack.hub.pipeline.connections!.get(record.id), (connection) => connection === undefined, 40_000);
    expect((await stack.hub.pipeline.schedules.listSchedules()).map((s) => s.id)).not.toContain(schedule.id);
    expect(hubspot.actions.completions).toEqual([]);
  }, 60_000);
});
