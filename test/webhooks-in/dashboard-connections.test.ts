import request from 'supertest';
import { EngineAuthError, createLocalLimiter, type ConnectionRecord } from '@verify-hub/core';
import { mailchimpConnectorFactory, parseWebhook } from '@verify-hub/connector-mailchimp';
import { HubSpotApiError } from '@verify-hub/connector-hubspot';
import { hubspotSetup } from '@verify-hub/connector-hubspot';
import { loadHubConfig, platformCatalog, platformSetups, registeredPlatforms } from '../../cli/src/platforms';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeMailchimp } from '../fakes/mailchimp';
import { createHarness, bearer, type Harness } from './harness';
import { MemoryConnectionStore } from './file-cleaning';
import { FakeOperations, FakeScheduleService } from './dashboard-fakes';

const DAY = 86_400_000;
const MAILCHIMP_KEY = `${'7'.repeat(32)}-us4`;

/** The dashboard's connection routes, with the CLI's real platform setups against the fake HubSpot and Mailchimp. */
describe('dashboard API: connections', () => {
  let h: Harness;
  let hubspot: FakeHubSpot;
  let mailchimp: FakeMailchimp;
  let connections: MemoryConnectionStore;
  let operations: FakeOperations;
  let schedules: FakeScheduleService;

  beforeAll(async () => {
    hubspot = new FakeHubSpot();
    await hubspot.start();
    hubspot.addPortal({ portalId: '801', token: 'portal-801-token' });
    hubspot.addPortal({ portalId: '802', token: 'portal-802-token' });
    mailchimp = await new FakeMailchimp().start();
    mailchimp.addAccount(MAILCHIMP_KEY, { dc: 'us4' });
    mailchimp.addList(MAILCHIMP_KEY, 'aud1');
    const config = loadHubConfig({
      HUBSPOT_API_BASE: hubspot.url,
      HUBSPOT_CLIENT_ID: hubspot.oauth.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret,
      MAILCHIMP_API_BASE: mailchimp.apiBase,
      MAILCHIMP_CLIENT_ID: 'mc-client',
      MAILCHIMP_CLIENT_SECRET: 'mc-secret',
    });
    connections = new MemoryConnectionStore();
    operations = new FakeOperations(connections);
    schedules = new FakeScheduleService();
    h = await createHarness({ catalog: platformCatalog(), connections, operations, schedules, platforms: platformSetups(config) });
  });
  afterAll(async () => {
    await h.close();
    await hubspot.stop();
    await mailchimp.close();
  });
  beforeEach(() => {
    connections.records.clear();
    schedules.schedules.clear();
  });

  const record = (id: string, platform: string, credentials: ConnectionRecord['credentials'], settings: Record<string, unknown> = {}): ConnectionRecord => ({
    id,
    platform,
    label: `Label ${id}`,
    createdAt: '2030-01-01T00:00:00.000Z',
    credentials,
    settings,
  });
  const runAt = async (connectionId: string, minute: number, status: 'completed' | 'failed' | 'paused', statusReason?: string) => {
    const run = await h.runs.start({ platform: 'hubspot', connectionId, scope: 'all' });
    h.runs.update(run.id, { status, statusReason, createdAt: `2030-01-01T00:${String(minute).padStart(2, '0')}:00.000Z` });
  };

  it('lists connections with their state (connected, token_expiring, failing) and the platforms, never credentials', async () => {
    const now = Date.now();
    await connections.save(record('hubspot-1', 'hubspot', { accessToken: 'SECRET-private' }, { portalId: '1', rateTier: 'private-standard' }));
    await connections.save(record('hubspot-2', 'hubspot', { accessToken: 'SECRET-oauth', refreshToken: 'SECRET-refresh', expiresAt: now + 60_000 }, { portalId: '2' }));
    await connections.save(record('hubspot-3', 'hubspot', { accessToken: 'SECRET-expiring', expiresAt: now + 3 * DAY }, { portalId: '3' }));
    await connections.save(record('hubspot-4', 'hubspot', { accessToken: 'SECRET-later', expiresAt: now + 30 * DAY }, { portalId: '4' }));
    await connections.save(record('mailchimp-us4-a', 'mailchimp', { apiKey: 'SECRET-key-us4', webhookSecret: 'SECRET-hook' }, { listId: 'a', webhookSecret: 'SECRET-hook', names: { riskMergeField: 'EVRISK' } }));
    await connections.save(record('mailchimp-us4-b', 'mailchimp', { accessToken: 'SECRET-mc-oauth', dc: 'us4' }, { listId: 'b' }));
    await connections.save(record('mailchimp-us4-c', 'mailchimp', { apiKey: 'SECRET-key2-us4' }, { listId: 'c' }));
    await connections.save(record('hubspot-5', 'hubspot', { accessToken: 'SECRET-5' }, { portalId: '5' }));
    await connections.save(record('file-00000000-0000-4000-8000-000000000000', 'file', {}, { input: '/tmp/x.csv' }));
    // hubspot-1: failed long ago, completed since -> connected. mailchimp-us4-a: its last run failed.
    await runAt('hubspot-1', 1, 'failed', 'old trouble');
    await runAt('hubspot-1', 2, 'completed');
    await runAt('mailchimp-us4-a', 3, 'failed', 'Mailchimp refused the API key');
    // Chosen pauses are not trouble; a refused token is.
    await runAt('mailchimp-us4-b', 4, 'paused', 'paused by a user');
    await runAt('mailchimp-us4-c', 5, 'paused', 'stopped at the credit limit of 10 (10 credits spent): raise it with `verify-hub runs resume x --max-credits N` to verify the rest');
    await runAt('hubspot-5', 6, 'paused', 'HubSpot rejected the access token (401); reconnect the portal: reconnect the platform, then run `verify-hub runs resume x`');

    const res = await request(h.hub.app).get('/api/connections').set(bearer);
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/SECRET/);
    const byId = Object.fromEntries((res.body.connections as { id: string; stateReason?: string }[]).map((c) => [c.id, c]));
    expect(Object.keys(byId).sort()).toEqual(['hubspot-1', 'hubspot-2', 'hubspot-3', 'hubspot-4', 'hubspot-5', 'mailchimp-us4-a', 'mailchimp-us4-b', 'mailchimp-us4-c']);
    expect(byId['hubspot-1']).toEqual({ id: 'hubspot-1', platform: 'hubspot', label: 'Label hubspot-1', createdAt: '2030-01-01T00:00:00.000Z', auth: 'token', state: 'connected', details: { portalId: '1', rateTier: 'private-standard' } });
    expect(byId['hubspot-2']).toMatchObject({ auth: 'oauth', state: 'connected', expiresAt: new Date(now + 60_000).toISOString() });
    expect(byId['hubspot-3']).toMatchObject({ auth: 'token', state: 'token_expiring', expiresAt: new Date(now + 3 * DAY).toISOString() });
    expect(byId['hubspot-3'].stateReason).toMatch(/^the access token expires on \d{4}-\d{2}-\d{2}: connect again before then$/);
    expect(byId['hubspot-4']).toMatchObject({ state: 'connected' });
    expect(byId['hubspot-5']).toMatchObject({ state: 'failing', stateReason: expect.stringMatching(/^HubSpot rejected the access token/) });
    expect(byId['mailchimp-us4-a']).toMatchObject({ auth: 'api_key', state: 'failing', stateReason: 'Mailchimp refused the API key', details: { listId: 'a' } });
    expect(byId['mailchimp-us4-b']).toMatchObject({ auth: 'oauth', state: 'connected' });
    expect(byId['mailchimp-us4-c']).toMatchObject({ auth: 'api_key', state: 'connected' });
    // Every installed platform with a key form or sign-in is there (a new one included), HubSpot's and Mailchimp's as they are.
    const connectable = registeredPlatforms().filter((module) => module.connectable !== false).map((module) => module.id);
    expect(Object.keys(res.body.platforms).sort()).toEqual(connectable.sort());
    expect(res.body.platforms).toMatchObject({
      hubspot: { oauth: true, keyFields: [{ name: 'accessToken', label: 'Private app token', secret: true, help: expect.any(String) }], webhookUrl: false },
      mailchimp: {
        oauth: true,
        keyFields: [
          { name: 'apiKey', label: 'API key', secret: true, help: expect.any(String) },
          { name: 'listId', label: 'Audience', secret: false, choice: true, help: expect.any(String) },
        ],
        webhookUrl: true,
      },
    });
  });

  it('connects HubSpot with a private app token: the portal read with it, stored; a refused token is PLATFORM_REJECTED naming the field, not echoed', async () => {
    const res = await request(h.hub.app).post('/api/connections/hubspot').set(bearer).send({ accessToken: 'portal-801-token', label: 'Marketing portal' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      connection: { id: 'hubspot-801', platform: 'hubspot', label: 'Marketing portal', createdAt: expect.any(String), auth: 'token', state: 'connected', details: { portalId: '801', timeZone: 'UTC', apiBase: hubspot.url, rateTier: 'private-standard' } },
    });
    expect(res.text).not.toContain('portal-801-token');
    expect(connections.records.get('hubspot-801')!.credentials).toEqual({ accessToken: 'portal-801-token' });

    const refused = await request(h.hub.app).post('/api/connections/hubspot').set(bearer).send({ accessToken: 'pat-na1-wrong-token' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'accessToken' });
    expect(refused.body.error).toMatch(/^accessToken: HubSpot refused this token/);
    expect(refused.text).not.toContain('pat-na1-wrong-token');

    const missing = await request(h.hub.app).post('/api/connections/hubspot').set(bearer).send({ label: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'INVALID_INPUT', field: 'accessToken', error: 'accessToken: is required' });
    const extra = await request(h.hub.app).post('/api/connections/hubspot').set(bearer).send({ accessToken: 'portal-801-token', apiBase: 'http://evil' });
    expect(extra.status).toBe(400);
    const platform = await request(h.hub.app).post('/api/connections/no-such-crm').set(bearer).send({});
    expect(platform.status).toBe(400);
    expect(platform.body.field).toBe('params.platform');
    expect([...connections.records.keys()]).toEqual(['hubspot-801']);
  });

  it('connects a Mailchimp audience with an API key: a webhook Mailchimp refuses is answered with why and its URL (with its secret) shown once; a refused key or audience names its field', async () => {
    const res = await request(h.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: MAILCHIMP_KEY, listId: 'aud1' });
    expect(res.status).toBe(201);
    // supertest's hub is gone once it answers, so Mailchimp's GET of the address finds nothing: saved all the same.
    expect(res.body.webhook).toEqual({ registered: false, problem: expect.stringMatching(/^Mailchimp did not register the webhook: The resource submitted could not be validated\. url: We couldn't verify the URL is working/) });
    expect(mailchimp.webhooks('aud1')).toEqual([]);
    expect(res.body.connection).toMatchObject({ id: 'mailchimp-us4-aud1', platform: 'mailchimp', auth: 'api_key', state: 'connected', details: { listId: 'aud1' } });
    const stored = connections.records.get('mailchimp-us4-aud1')!;
    const secret = String(stored.credentials.webhookSecret);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(res.body.webhookUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/webhooks/mailchimp/mailchimp-us4-aud1/${secret}$`));
    expect(res.text).not.toContain(MAILCHIMP_KEY);
    expect(JSON.stringify(res.body.connection)).not.toContain(secret);

    const wrongKey = `${'8'.repeat(32)}-us4`;
    const refused = await request(h.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: wrongKey, listId: 'aud1' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    expect(refused.text).not.toContain(wrongKey);
    const noAudience = await request(h.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: MAILCHIMP_KEY, listId: 'nope1' });
    expect(noAudience.status).toBe(400);
    expect(noAudience.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'listId' });
    const noDc = await request(h.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: 'abcdef', listId: 'aud1' });
    expect(noDc.status).toBe(400);
    expect(noDc.body).toMatchObject({ code: 'INVALID_INPUT', field: 'apiKey' });
    expect(noDc.text).not.toContain('abcdef');
    const missing = await request(h.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: MAILCHIMP_KEY });
    expect(missing.body).toMatchObject({ code: 'INVALID_INPUT', field: 'listId' });
  });

  it("lists a Mailchimp key's audiences for the picker (the key in the body only); a refused key names its field", async () => {
    mailchimp.addList(MAILCHIMP_KEY, 'news9', 'Newsletter');
    mailchimp.addMembers('news9', [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
    const listed = await request(h.hub.app).post('/api/platforms/mailchimp/choices/listId').set(bearer).send({ apiKey: MAILCHIMP_KEY });
    expect(listed.status).toBe(200);
    expect(listed.body.choices).toEqual(
      expect.arrayContaining([
        { value: 'aud1', label: 'List aud1', detail: '0 members' },
        { value: 'news9', label: 'Newsletter', detail: '2 members' },
      ]),
    );
    expect(listed.text).not.toContain(MAILCHIMP_KEY);

    const wrongKey = `${'8'.repeat(32)}-us4`;
    const refused = await request(h.hub.app).post('/api/platforms/mailchimp/choices/listId').set(bearer).send({ apiKey: wrongKey });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    expect(refused.text).not.toContain(wrongKey);
    const noKey = await request(h.hub.app).post('/api/platforms/mailchimp/choices/listId').set(bearer).send({});
    expect(noKey.body).toMatchObject({ code: 'INVALID_INPUT', field: 'apiKey' });
    expect((await request(h.hub.app).post('/api/platforms/mailchimp/choices/apiKey').set(bearer).send({})).status).toBe(404);
    expect((await request(h.hub.app).post('/api/platforms/mailchimp/choices/listId').send({ apiKey: MAILCHIMP_KEY })).status).toBe(401);
  });

  it('deletes a connection (404 for unknown ones and for uploads)', async () => {
    await connections.save(record('hubspot-9', 'hubspot', { accessToken: 't' }));
    await connections.save(record('file-00000000-0000-4000-8000-000000000000', 'file', {}, { input: '/tmp/x.csv' }));
    const deleted = await request(h.hub.app).delete('/api/connections/hubspot-9').set(bearer);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: 'hubspot-9', removedSchedules: [], cancelledRuns: [] });
    expect(deleted.body.summary).toMatch(/^Deleted: the stored token\./);
    expect(connections.records.has('hubspot-9')).toBe(false);
    expect((await request(h.hub.app).delete('/api/connections/hubspot-9').set(bearer)).status).toBe(404);
    expect((await request(h.hub.app).delete('/api/connections/file-00000000-0000-4000-8000-000000000000').set(bearer)).status).toBe(404);
    const bad = await request(h.hub.app).delete('/api/connections/a%20b').set(bearer);
    expect(bad.body.field).toBe('params.id');
  });

  it("deletes a connection's schedules and cancels its unfinished runs with it; other connections' stay", async () => {
    await connections.save(record('hubspot-7', 'hubspot', { accessToken: 't' }));
    await connections.save(record('hubspot-8', 'hubspot', { accessToken: 't' }));
    for (const [id, connectionId] of [['nightly-7', 'hubspot-7'], ['weekly-7', 'hubspot-7'], ['nightly-8', 'hubspot-8']]) {
      await schedules.saveSchedule({ id, cron: '0 3 * * *', request: { platform: 'hubspot', connectionId: connectionId!, scope: 'all' } });
    }
    const runOf = async (connectionId: string, status: 'queued' | 'running' | 'paused' | 'completed') => {
      const run = await h.runs.start({ platform: 'hubspot', connectionId, scope: 'all' });
      h.runs.update(run.id, { status });
      return run.id;
    };
    const queued7 = await runOf('hubspot-7', 'queued');
    const running7 = await runOf('hubspot-7', 'running');
    const paused7 = await runOf('hubspot-7', 'paused');
    const done7 = await runOf('hubspot-7', 'completed');
    const running8 = await runOf('hubspot-8', 'running');

    const deleted = await request(h.hub.app).delete('/api/connections/hubspot-7').set(bearer);
    expect(deleted.status).toBe(200);
    expect(deleted.body.removedSchedules.sort()).toEqual(['nightly-7', 'weekly-7']);
    expect(deleted.body.cancelledRuns.sort()).toEqual([queued7, running7, paused7].sort());
    expect(deleted.body.summary).toMatch(/^Deleted: the stored token, 2 schedules(, .*)?; cancelled 3 runs\./);
    for (const id of [queued7, running7, paused7]) expect((await h.runs.get(id))!.status).toBe('cancelled');
    expect((await h.runs.get(done7))!.status).toBe('completed');
    expect((await h.runs.get(running8))!.status).toBe('running');
    expect([...schedules.schedules.keys()]).toEqual(['nightly-8']);
    expect(connections.records.has('hubspot-8')).toBe(true);
  });

  it('sets up the platform fields through the operations; a refused credential is a 400, never a 401', async () => {
    await connections.save(record('hubspot-9', 'hubspot', { accessToken: 't' }));
    const res = await request(h.hub.app).post('/api/connections/hubspot-9/ensure-schema').set(bearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ created: ['ev_risk'], existing: ['ev_score'], problems: [] });
    expect(operations.schemas).toEqual(['hubspot-9']);
    try {
      operations.schemaError = new EngineAuthError('HubSpot rejected the access token (401); reconnect the portal', { status: 401 });
      const refused = await request(h.hub.app).post('/api/connections/hubspot-9/ensure-schema').set(bearer);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ code: 'PLATFORM_REJECTED', error: 'HubSpot refused the stored credentials: connect it again' });
      operations.schemaError = new HubSpotApiError('HubSpot is down', { status: 503, retryable: true });
      const down = await request(h.hub.app).post('/api/connections/hubspot-9/ensure-schema').set(bearer);
      expect(down.status).toBe(502);
      expect(down.body).toEqual({ code: 'PLATFORM_ERROR', error: 'HubSpot: HubSpot is down' });
    } finally {
      operations.schemaError = undefined;
    }
    expect((await request(h.hub.app).post('/api/connections/hubspot-404/ensure-schema').set(bearer)).status).toBe(404);
  });

  describe('OAuth', () => {
    const start = async (platform: string, query = '') => {
      const res = await request(h.hub.app).get(`/api/oauth/${platform}/start${query}`).set(bearer);
      expect(res.status).toBe(302);
      const url = new URL(res.headers.location!);
      return { url, state: url.searchParams.get('state')!, redirectUri: url.searchParams.get('redirect_uri')! };
    };
    const callback = (platform: string, query: Record<string, string>) => request(h.hub.app).get(`/oauth/${platform}/callback`).query(query);
    const fragment = (res: request.Response) => new URLSearchParams(res.headers.location!.replace(/^\/#\/connections\?/, ''));

    it('redirects to HubSpot with a single-use state kept 10 minutes, and the callback stores the portal', async () => {
      const { url, state, redirectUri } = await start('hubspot');
      expect(`${url.origin}${url.pathname}`).toBe('https://app.hubspot.com/oauth/authorize');
      expect(url.searchParams.get('client_id')).toBe(hubspot.oauth.clientId);
      expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/hubspot\/callback$/);
      expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const stateKeys = await h.redis.keys(`${h.prefix}oauth-state:*`);
      expect(stateKeys).toHaveLength(1);
      expect(stateKeys[0]).not.toContain(state);
      const ttl = await h.redis.ttl(stateKeys[0]!);
      expect(ttl).toBeGreaterThan(590);
      expect(ttl).toBeLessThanOrEqual(600);

      const code = hubspot.issueAuthCode('802', redirectUri);
      const res = await callback('hubspot', { code, state });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/#/connections?connected=hubspot-802');
      const stored = connections.records.get('hubspot-802')!;
      expect(stored).toMatchObject({ platform: 'hubspot', settings: { portalId: '802', rateTier: 'oauth', apiBase: hubspot.url } });
      expect(stored.credentials.refreshToken).toEqual(expect.any(String));
      const list = await request(h.hub.app).get('/api/connections').set(bearer);
      expect(list.body.connections).toEqual([expect.objectContaining({ id: 'hubspot-802', auth: 'oauth', state: 'connected' })]);

      // The state was used: a replay (or a forged one) connects nothing.
      const replay = await callback('hubspot', { code: hubspot.issueAuthCode('801', redirectUri), state });
      expect(fragment(replay).get('error')).toBe('The HubSpot sign-in link expired or was already used: start again');
      const forged = await callback('hubspot', { code: hubspot.issueAuthCode('801', redirectUri), state: 'made-up' });
      expect(fragment(forged).get('error')).toMatch(/expired or was already used/);
      expect(connections.records.has('hubspot-801')).toBe(false);
    });

    it('refuses a state issued for another platform, a cancelled sign-in and a code the platform refuses', async () => {
      const other = await start('hubspot');
      const crossed = await callback('mailchimp', { code: 'x', state: other.state });
      expect(fragment(crossed).get('error')).toMatch(/^The Mailchimp sign-in link expired/);
      // ...and that state is spent.
      const late = await callback('hubspot', { code: hubspot.issueAuthCode('802', other.redirectUri), state: other.state });
      expect(fragment(late).has('error')).toBe(true);

      const cancelled = await start('hubspot');
      const denied = await callback('hubspot', { error: 'access_denied', state: cancelled.state });
      expect(fragment(denied).get('error')).toBe('The HubSpot sign-in was cancelled or refused: start again');

      const badCode = await start('hubspot');
      const refused = await callback('hubspot', { code: 'code-never-issued', state: badCode.state });
      expect(fragment(refused).get('error')).toBe('HubSpot refused the sign-in: start again');
      expect(connections.records.size).toBe(0);
    });

    it('sends Mailchimp sign-ins to its authorize page with the audience kept for the callback; 404 NOT_CONFIGURED without an OAuth app', async () => {
      const { url } = await start('mailchimp', '?listId=aud1');
      expect(`${url.origin}${url.pathname}`).toBe('https://login.mailchimp.com/oauth2/authorize');
      expect(url.searchParams.get('client_id')).toBe('mc-client');
      const badList = await request(h.hub.app).get('/api/oauth/mailchimp/start?listId=a%20b').set(bearer);
      expect(badList.status).toBe(400);
      expect(badList.body.field).toBe('query.listId');
      expect((await request(h.hub.app).get('/api/oauth/hubspot/start')).status).toBe(401);

      const keysOnly = await createHarness({ catalog: platformCatalog(), platforms: { hubspot: hubspotSetup(loadHubConfig({ HUBSPOT_API_BASE: hubspot.url })) }, connections: new MemoryConnectionStore(), publicUrl: 'https://hub.example.com/' });
      try {
        const none = await request(keysOnly.hub.app).get('/api/oauth/hubspot/start').set(bearer);
        expect(none.status).toBe(404);
        expect(none.body.code).toBe('NOT_CONFIGURED');
        const noPlatform = await request(keysOnly.hub.app).post('/api/connections/mailchimp').set(bearer).send({ apiKey: MAILCHIMP_KEY, listId: 'aud1' });
        expect(noPlatform.status).toBe(404);
        const list = await request(keysOnly.hub.app).get('/api/connections').set(bearer);
        expect(list.body.platforms).toEqual({ hubspot: { oauth: false, keyFields: [expect.objectContaining({ name: 'accessToken' })], webhookUrl: false } });
      } finally {
        await keysOnly.close();
      }
    });

    it('connects a Mailchimp audience through OAuth end to end, and hands out its webhook URL on request (a new secret each time)', async () => {
      const store = new MemoryConnectionStore();
      const config = loadHubConfig({ MAILCHIMP_CLIENT_ID: 'mc-oauth-client', MAILCHIMP_CLIENT_SECRET: 'mc-oauth-secret', MAILCHIMP_LOGIN_BASE: mailchimp.loginBase });
      const hub = await createHarness({ catalog: platformCatalog(), connections: store, platforms: platformSetups(config), publicUrl: 'https://hub.example.com/' });
      try {
        const started = await request(hub.hub.app).get('/api/oauth/mailchimp/start?listId=aud1').set(bearer);
        const url = new URL(started.headers.location!);
        expect(`${url.origin}${url.pathname}`).toBe(`${mailchimp.loginBase}/oauth2/authorize`);
        const redirectUri = url.searchParams.get('redirect_uri')!;
        expect(redirectUri).toBe('https://hub.example.com/oauth/mailchimp/callback');
        // What Mailchimp does when the user grants access: the code it redirects back with trades for a token of that account.
        mailchimp.registerOAuthClient('mc-oauth-client', 'mc-oauth-secret', redirectUri);
        mailchimp.alias('mc-oauth-token', MAILCHIMP_KEY);
        mailchimp.issueCode('mc-code-1', 'mc-oauth-token');
        const back = await request(hub.hub.app).get('/oauth/mailchimp/callback').query({ code: 'mc-code-1', state: url.searchParams.get('state')! });
        const id = fragment(back).get('connected')!;
        expect(id).toMatch(/^mailchimp-us4-/);
        const stored = store.records.get(id)!;
        expect(stored).toMatchObject({ platform: 'mailchimp', credentials: { accessToken: 'mc-oauth-token', dc: 'us4' }, settings: { listId: 'aud1', apiBase: mailchimp.apiBase } });
        const firstSecret = String(stored.credentials.webhookSecret);
        expect(firstSecret).toMatch(/^[A-Za-z0-9_-]{32}$/);
        // The stored connection works: its token reads and writes the audience's merge fields.
        const connector = mailchimpConnectorFactory(stored, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });
        await expect(connector.ensureSchema()).resolves.toMatchObject({ problems: [] });
        const list = await request(hub.hub.app).get('/api/connections').set(bearer);
        expect(list.body.connections).toEqual([expect.objectContaining({ id, auth: 'oauth', state: 'connected' })]);
        expect(list.body.platforms.mailchimp.webhookUrl).toBe(true);
        expect(list.text).not.toContain(firstSecret);

        // The sign-in showed no webhook URL: one is handed out on request, with a new secret; the old address stops working.
        const renewed = await request(hub.hub.app).post(`/api/connections/${id}/webhook-url`).set(bearer);
        expect(renewed.status).toBe(200);
        const secret = String(store.records.get(id)!.credentials.webhookSecret);
        expect(secret).not.toBe(firstSecret);
        // Registered again with the new secret: Mailchimp cannot reach hub.example.com from here, and says so.
        expect(renewed.body).toEqual({ webhookUrl: `https://hub.example.com/webhooks/mailchimp/${id}/${secret}`, webhook: { registered: false, problem: expect.stringMatching(/url: /) } });
        const body = Buffer.from('type=subscribe&fired_at=2026-11-21+10%3A00%3A00&data%5Bemail%5D=new%40example.com&data%5Blist_id%5D=aud1&data%5Bid%5D=abc');
        const delivery = { method: 'POST', url: renewed.body.webhookUrl, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
        expect(parseWebhook(delivery, secret, secret)).toHaveLength(1);
        expect(() => parseWebhook(delivery, firstSecret, secret)).toThrow();
        expect(store.records.get(id)!.credentials.accessToken).toBe('mc-oauth-token');
      } finally {
        await hub.close();
      }
    });

    it('hands out webhook URLs only for platforms that take one', async () => {
      await connections.save(record('hubspot-9', 'hubspot', { accessToken: 't' }));
      const res = await request(h.hub.app).post('/api/connections/hubspot-9/webhook-url').set(bearer);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_SUPPORTED', error: 'HubSpot connections have no webhook address to paste in' });
      expect((await request(h.hub.app).post('/api/connections/mailchimp-us4-none/webhook-url').set(bearer)).status).toBe(404);
    });

    it('uses HUB_PUBLIC_URL for the redirect URI when set', async () => {
      const behindProxy = await createHarness({ catalog: platformCatalog(), platforms: platformSetups(loadHubConfig({ HUBSPOT_API_BASE: hubspot.url, HUBSPOT_CLIENT_ID: 'id', HUBSPOT_CLIENT_SECRET: 'secret' })), connections: new MemoryConnectionStore(), publicUrl: 'https://hub.example.com/' });
      try {
        const res = await request(behindProxy.hub.app).get('/api/oauth/hubspot/start').set(bearer);
        expect(new URL(res.headers.location!).searchParams.get('redirect_uri')).toBe('https://hub.example.com/oauth/hubspot/callback');
      } finally {
        await behindProxy.close();
      }
    });
  });
});
