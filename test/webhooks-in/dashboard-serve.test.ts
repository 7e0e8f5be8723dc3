import request from 'supertest';
import { estimateText } from '@verify-hub/core';
import type { RunningHub } from '../../cli/src/commands/serve';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { startServeStack, until, type ServeStack } from './serve-stack';

const TOKEN = 'dashboard-serve-admin-token-0123456789';

/**
 * The dashboard's API as `verify-hub serve` wires it: the real pipeline (schedules, estimates,
 * ensureSchema), the CLI's platform setups against FakeHubSpot (HUBSPOT_API_BASE), the fake engine,
 * every call made the way the browser makes it (session cookie plus the CSRF header).
 */
describe('verify-hub serve: the dashboard API over the real pipeline', () => {
  let stack: ServeStack;
  let hubspot: FakeHubSpot;
  let hub: RunningHub;
  let cookie: string;
  const browser = () => ({ Cookie: cookie, 'X-VerifyHub-CSRF': '1' });

  beforeAll(async () => {
    hubspot = new FakeHubSpot();
    await hubspot.start();
    hubspot.addPortal({ portalId: '901', token: 'serve-portal-901-token' });
    hubspot.addPortal({ portalId: '902', token: 'serve-portal-902-token' });
    hubspot.addContacts('901', [{ email: 'ada@example.com' }, { email: 'invalid.bob@example.com' }, { email: 'risky.cy@example.com' }]);
    stack = await startServeStack('dash', TOKEN, {
      HUBSPOT_API_BASE: hubspot.url,
      HUBSPOT_CLIENT_ID: hubspot.oauth.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret,
    });
    hub = stack.hub;
    const signIn = await request(hub.url).post('/api/session').send({ token: TOKEN });
    expect(signIn.status).toBe(204);
    cookie = ([] as string[]).concat(signIn.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
  });
  afterAll(async () => {
    await stack?.close();
    await hubspot.stop();
  });

  it('connects a portal with its token, creates its properties (then finds them there), and lists it connected', async () => {
    const connected = await request(hub.url).post('/api/connections/hubspot').set(browser()).send({ accessToken: 'serve-portal-901-token', label: 'Portal 901' });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: 'hubspot-901', label: 'Portal 901', auth: 'token', state: 'connected' });

    const setup = await request(hub.url).post('/api/connections/hubspot-901/ensure-schema').set(browser());
    expect(setup.status).toBe(200);
    expect(setup.body.problems).toEqual([]);
    expect(setup.body.created).toEqual(expect.arrayContaining(['group:email_verification', 'ev_risk', 'ev_score', 'ev_checked_at']));
    const properties = hubspot.portal('901').properties;
    for (const name of ['ev_risk', 'ev_score', 'ev_reason', 'ev_checked_at']) expect(properties.has(name)).toBe(true);
    const again = await request(hub.url).post('/api/connections/hubspot-901/ensure-schema').set(browser());
    expect(again.body.created).toEqual([]);
    expect(again.body.existing).toEqual(expect.arrayContaining(['ev_risk', 'ev_score']));

    const list = await request(hub.url).get('/api/connections').set({ Cookie: cookie });
    expect(list.status).toBe(200);
    expect(list.body.connections).toEqual([expect.objectContaining({ id: 'hubspot-901', state: 'connected', details: expect.objectContaining({ portalId: '901' }) })]);
    expect(list.body.platforms.hubspot.oauth).toBe(true);
    expect(list.text).not.toContain('serve-portal-901-token');

    const refused = await request(hub.url).post('/api/connections/hubspot').set(browser()).send({ accessToken: 'not-a-token' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'accessToken' });
  });

  it('connects a portal through OAuth: start, the platform redirect with a code, the callback stores it sealed', async () => {
    const start = await request(hub.url).get('/api/oauth/hubspot/start').set({ Cookie: cookie });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location!);
    const redirectUri = authorize.searchParams.get('redirect_uri')!;
    expect(redirectUri).toBe(`${hub.url}/oauth/hubspot/callback`);
    const code = hubspot.issueAuthCode('902', redirectUri);
    const callback = await request(hub.url).get('/oauth/hubspot/callback').query({ code, state: authorize.searchParams.get('state')! });
    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe('/#/connections?connected=hubspot-902');
    const stored = await hub.pipeline.connections!.get('hubspot-902');
    expect(stored?.credentials.refreshToken).toEqual(expect.any(String));
    const raw = JSON.stringify(await hub.pipeline.redis.hgetall(`${stack.prefix}:connection:hubspot-902`));
    expect(raw).not.toContain(String(stored!.credentials.accessToken));
    const list = await request(hub.url).get('/api/connections').set({ Cookie: cookie });
    expect(list.body.connections.find((c: { id: string }) => c.id === 'hubspot-902')).toMatchObject({ auth: 'oauth', state: 'connected' });
  });

  it('previews a cron pattern and keeps a schedule for a connection: create, pause, resume, delete', async () => {
    const preview = await request(hub.url).get('/api/schedules/preview').query({ cron: '0 3 * * 1', timezone: 'UTC' }).set({ Cookie: cookie });
    expect(preview.status).toBe(200);
    expect(typeof preview.body.description).toBe('string');
    expect(preview.body.next).toHaveLength(5);
    for (const at of preview.body.next as string[]) {
      expect(new Date(at).getUTCDay()).toBe(1);
      expect(new Date(at).getUTCHours()).toBe(3);
    }
    const badCron = await request(hub.url).get('/api/schedules/preview').query({ cron: 'whenever' }).set({ Cookie: cookie });
    expect(badCron.status).toBe(400);
    expect(badCron.body.field).toBe('cron');

    const created = await request(hub.url).post('/api/schedules').set(browser()).send({ cron: '0 3 * * 1', timezone: 'Europe/Paris', platform: 'hubspot', connectionId: 'hubspot-901', scope: 'all' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ cron: '0 3 * * 1', timezone: 'Europe/Paris', paused: false, request: { platform: 'hubspot', connectionId: 'hubspot-901', scope: 'all' } });
    const id = created.body.id as string;
    const unknownConnection = await request(hub.url).post('/api/schedules').set(browser()).send({ cron: '0 3 * * 1', platform: 'hubspot', connectionId: 'hubspot-404', scope: 'all' });
    expect(unknownConnection.status).toBe(400);

    expect((await request(hub.url).post(`/api/schedules/${id}/pause`).set(browser())).body).toMatchObject({ id, paused: true });
    expect((await request(hub.url).post(`/api/schedules/${id}/resume`).set(browser())).body).toMatchObject({ id, paused: false });
    const list = await request(hub.url).get('/api/schedules').set({ Cookie: cookie });
    expect(list.body.schedules.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await request(hub.url).delete(`/api/schedules/${id}`).set(browser())).status).toBe(204);
    expect((await request(hub.url).get('/api/schedules').set({ Cookie: cookie })).body.schedules).toEqual([]);
  });

  it('cleans a file in two steps: preview with the pipeline estimate, start, and the run breakdown', async () => {
    const csv = 'email,name\nada@example.com,Ada\ninvalid.x@example.com,X\nrisky.y@example.com,Y\nada@example.com,Ada again\n';
    const preview = await request(hub.url).post('/api/files/preview').set(browser()).attach('file', Buffer.from(csv), 'list.csv');
    expect(preview.status).toBe(201);
    expect(preview.body.upload).toMatchObject({ name: 'list.csv', rows: 4, emailColumn: 'email', columns: ['email', 'name'] });
    expect(preview.body.estimate).toEqual({ contacts: 4, unique: 3, cached: 0, estimatedCredits: 3, cost: { credits: 3, text: estimateText(3) } });
    const uploadId = preview.body.upload.id as string;
    const unknownColumn = await request(hub.url).get(`/api/files/${uploadId}/estimate`).query({ column: 'Fax' }).set({ Cookie: cookie });
    expect(unknownColumn.status).toBe(400);
    expect(unknownColumn.body.field).toBe('column');
    // A column of names holds no address: nothing to pay for.
    const names = await request(hub.url).get(`/api/files/${uploadId}/estimate`).query({ column: 'name' }).set({ Cookie: cookie });
    expect(names.body).toMatchObject({ unique: 0, estimatedCredits: 0, cost: { credits: 0, text: estimateText(0) }, columnWarning: { column: 'name', percent: 0, suggestedColumn: 'email' } });

    const started = await request(hub.url).post(`/api/files/${uploadId}/start`).set(browser()).send({ column: 'email', removeRisky: true });
    expect(started.status).toBe(202);
    const runId = started.body.run.id as string;
    const run = await until(
      async () => (await request(hub.url).get(`/api/runs/${runId}`).set({ Cookie: cookie })).body,
      (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status),
    );
    expect(run).toMatchObject({ status: 'completed', progress: { percent: 100 } });
    const breakdown = await request(hub.url).get(`/api/runs/${runId}/breakdown`).set({ Cookie: cookie });
    expect(breakdown.status).toBe(200);
    expect(breakdown.body.risk).toEqual({ safe: 2, risky: 1, invalid: 1, unknown: 0 });
    expect(breakdown.body.failuresTotal).toBe(0);
    // The fake answers field set B as published: no reason code, so core reads it from smtp_check.
    expect(breakdown.body.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'mailbox_not_found', count: 1 })]));
    const removed = await request(hub.url).get(started.body.links.removed).set({ Cookie: cookie }).buffer(true);
    expect(removed.text).toContain('risky.y@example.com');
    const paused = await request(hub.url).post(`/api/runs/${runId}/pause`).set(browser());
    expect(paused.status).toBe(400);
    expect(paused.body.field).toBe('id');
    // The same address again is now in the cache: a new preview says so.
    const second = await request(hub.url).post('/api/files/preview').set(browser()).attach('file', Buffer.from(csv), 'again.csv');
    expect(second.body.estimate).toEqual({ contacts: 4, unique: 3, cached: 3, estimatedCredits: 0, cost: { credits: 0, text: estimateText(0) } });
  });
});
