import request from 'supertest';
import { DEFAULT_VERIFICATION_FIELD_NAMES as EV } from '@verify-hub/core';
import { FLOW_SECRET_HEADER, REQUIRED_SCOPES, flowWebhookBody } from '@verify-hub/connector-klaviyo';
import { expectedRisk, until, useHub } from '../setup/hub-harness';
import { FakeKlaviyo } from '../fakes/klaviyo';

/**
 * Klaviyo through `verify-hub serve` (in process, with its workers) against the fake: the key form
 * (scopes checked, missing ones named), OAuth with PKCE, a sync of 250 profiles and an unchanged re-sync,
 * the flow webhook (a new list member verified in real time; a forged secret refused), the changed-since
 * fallback, a revoked key pausing the run, disconnect revoking the sign-in. No consent is ever touched.
 */
describe('Klaviyo through verify-hub serve', () => {
  let fake: FakeKlaviyo;
  let list: string;
  const connectionId = () => `klaviyo-${fake.accountId}`;
  const stack = useHub({
    platform: 'klaviyo',
    connectionId,
    fake: async () => {
      fake = await new FakeKlaviyo({ pollsToComplete: 2 }).start();
      list = fake.addList('Newsletter');
      const prefixes = ['', 'invalid.', 'risky.'];
      for (let i = 0; i < 250; i++) fake.addProfile(`${prefixes[i % 3]}person${i}@example.com`, { lists: [list] });
      return fake;
    },
    settings: () => ({
      KLAVIYO_API_BASE: fake.url,
      KLAVIYO_AUTHORIZE_URL: `${fake.url}/oauth/authorize`,
      KLAVIYO_CLIENT_ID: fake.oauth.clientId,
      KLAVIYO_CLIENT_SECRET: fake.oauth.clientSecret,
      KLAVIYO_JOB_POLL_MS: '50',
      KLAVIYO_CHANGES_POLL_SECONDS: '1',
      VERIFY_HUB_EVENT_COALESCE_MS: '100',
    }),
  });
  const { auth, runToEnd } = stack;

  it('is installed: listed with its key form and OAuth', async () => {
    const res = await request(stack.hub.url).get('/api/platforms').set(auth);
    expect(res.body.platforms.find((p: { id: string }) => p.id === 'klaviyo')).toMatchObject({
      id: 'klaviyo',
      label: 'Klaviyo',
      connect: { oauth: true, keyFields: [{ name: 'apiKey', secret: true }] },
      webhook: true,
    });
  });

  it('connects with a private key once its scopes are checked: a key lacking some is refused naming each, a wrong key refused, never echoed', async () => {
    const narrow = fake.createKey(['accounts:read', 'profiles:read', 'lists:read', 'segments:read']);
    const lacking = await request(stack.hub.url).post('/api/connections/klaviyo').set(auth).send({ apiKey: narrow });
    expect(lacking.status).toBe(400);
    expect(lacking.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    expect(lacking.body.error).toMatch(/profiles:write.*lists:write/);
    expect(lacking.text).not.toContain(narrow);
    const wrong = await request(stack.hub.url).post('/api/connections/klaviyo').set(auth).send({ apiKey: 'pk_0123456789abcdef0123456789abcdef01' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    const connected = await request(stack.hub.url).post('/api/connections/klaviyo').set(auth).send({ apiKey: fake.apiKey });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId(), platform: 'klaviyo', label: 'Klaviyo Demo Store' });
    expect(Object.keys(REQUIRED_SCOPES)).toContain('lists:write');
    // The flow webhook to make in Klaviyo, shown once by the dashboard: the address, the header with
    // this connection's secret as stored (sealed), and the body naming the connection.
    const stored = await stack.hub.pipeline.connections!.get(connectionId());
    expect(connected.body.webhookUrl).toBe(`${stack.hub.url}/webhooks/klaviyo`);
    expect(connected.body.webhookRequest).toEqual({ headers: { [FLOW_SECRET_HEADER]: stored!.credentials.flowSecret }, body: flowWebhookBody(connectionId()) });
    expect(String(stored!.credentials.flowSecret)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  it('syncs 250 profiles: every verdict written once as ev_* properties through bulk import jobs; a second sync writes nothing', async () => {
    fake.failNext('bulk_import_profiles', 503);
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 250, failed: 0 } });
    for (const profile of fake.store.profiles.values()) {
      expect(profile.properties[EV.risk]).toBe(expectedRisk(profile.email));
      expect(typeof profile.properties[EV.score]).toBe('number');
      expect(Number.isNaN(Date.parse(String(profile.properties[EV.checkedAt])))).toBe(false);
    }
    expect([...fake.writesPerProfile.values()].every((n) => n === 1)).toBe(true);
    expect(fake.writesPerProfile.size).toBe(250);
    const jobs = fake.callsOf('bulk_import_profiles').length;
    const again = await runToEnd();
    expect(again).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 0, unchanged: 250 } });
    expect(fake.callsOf('bulk_import_profiles')).toHaveLength(jobs);
  });

  it('a list member who joins is verified through the flow webhook; a forged secret is refused', async () => {
    const stored = await stack.hub.pipeline.connections!.get(connectionId());
    const secret = String(stored!.credentials.flowSecret);
    const forged = await fetch(`${stack.hub.url}/webhooks/klaviyo`, { method: 'POST', headers: { 'content-type': 'application/json', [FLOW_SECRET_HEADER]: 'not-the-secret' }, body: flowWebhookBody(connectionId()).replace('{{ person.KlaviyoID }}', 'X1').replace('{{ person.email }}', 'x@example.com') });
    expect(forged.status).toBe(401);
    await forged.arrayBuffer();
    fake.addFlowWebhook({ listId: list, url: `${stack.hub.url}/webhooks/klaviyo`, headers: { [FLOW_SECRET_HEADER]: secret }, body: flowWebhookBody(connectionId()) });
    const joined = await fake.joinList('invalid.joiner@example.com', list);
    expect(fake.flowDeliveries.at(-1)!.status).toBe(200);
    await until(async () => fake.store.profiles.get(joined.id)!.properties[EV.risk], (risk) => risk === 'invalid', 30_000);
  });

  it('a new webhook secret from the dashboard: shown with its header and body, the old secret refused from then on', async () => {
    const before = String((await stack.hub.pipeline.connections!.get(connectionId()))!.credentials.flowSecret);
    const renewed = await request(stack.hub.url).post(`/api/connections/${connectionId()}/webhook-url`).set(auth);
    expect(renewed.status).toBe(200);
    const header = renewed.body.webhookRequest.headers[FLOW_SECRET_HEADER] as string;
    expect(header).not.toBe(before);
    expect(renewed.body).toEqual({ webhookUrl: `${stack.hub.url}/webhooks/klaviyo`, webhookRequest: { headers: { [FLOW_SECRET_HEADER]: header }, body: flowWebhookBody(connectionId()) } });
    // A flow made with what the dashboard showed: the old secret is refused, the new one verifies the profile.
    const profile = fake.addProfile('risky.renewed@example.com');
    const post = (secret: string) =>
      fetch(`${stack.hub.url}/webhooks/klaviyo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [FLOW_SECRET_HEADER]: secret },
        body: renewed.body.webhookRequest.body.replace('{{ person.KlaviyoID }}', profile.id).replace('{{ person.email }}', profile.email),
      });
    const old = await post(before);
    expect(old.status).toBe(401);
    await old.arrayBuffer();
    const fresh = await post(header);
    expect(fresh.status).toBe(200);
    await fresh.arrayBuffer();
    await until(async () => fake.store.profiles.get(profile.id)!.properties[EV.risk], (risk) => risk === 'risky', 30_000);
  });

  it('a profile made outside any list is caught by the scheduled changed-since pull', async () => {
    const added = fake.addProfile('risky.outsider@example.com');
    await until(async () => fake.store.profiles.get(added.id)!.properties[EV.risk], (risk) => risk === 'risky', 30_000);
    // The hub's own writes come back as changes: they are left out (nothing written twice). Two more
    // pulls after the write have read it back, and the event path has nothing left to do.
    const writtenAt = Date.now();
    await until(async () => fake.callsOf('get_profiles').filter((call) => call.status === 200 && call.at > writtenAt).length, (pulls) => pulls >= 2, 30_000);
    await until(async () => Object.values(await stack.hub.pipeline.queues.events.getJobCounts('delayed', 'waiting', 'active')).reduce((sum, n) => sum + n, 0), (left) => left === 0, 30_000);
    expect(fake.writesPerProfile.get(added.id)).toBe(1);
  });

  it('signs in with OAuth and PKCE; disconnect revokes the sign-in', async () => {
    const start = await request(stack.hub.url).get('/api/oauth/klaviyo/start').set(auth);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')).toContain('profiles:write');
    const consent = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location')!);
    await consent.arrayBuffer();
    const done = await request(stack.hub.url).get(`${callback.pathname}${callback.search}`);
    expect(done.headers.location).toBe(`/#/connections?connected=${connectionId()}`);
    const stored = await stack.hub.pipeline.connections!.get(connectionId());
    expect(stored!.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    // An expired access token is refreshed by the connector and saved.
    fake.oauth.expireAccessTokens();
    const run = await runToEnd('list:' + list);
    expect(run.status).toBe('completed');
    expect(fake.oauth.refreshes.length).toBeGreaterThan(0);
    const removed = await request(stack.hub.url).delete(`/api/connections/${connectionId()}`).set(auth);
    expect(removed.status).toBe(200);
    expect(fake.oauth.revoked).toEqual([stored!.credentials.refreshToken]);
  });

  it('pauses a run when the key is revoked, saying how to reconnect; no consent was touched anywhere', async () => {
    const connected = await request(stack.hub.url).post('/api/connections/klaviyo').set(auth).send({ apiKey: fake.apiKey });
    expect(connected.status).toBe(201);
    fake.revokeKey();
    const run = await runToEnd();
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/Klaviyo refused the credentials/);
    expect(run.statusReason).toMatch(/reconnect Klaviyo/);
    expect(fake.consentAttempts).toEqual([]);
    expect(fake.listRelationshipAttempts).toEqual([]);
  });
});
