import jwt from 'jsonwebtoken';
import request from 'supertest';
import { WRITE_BATCH_SIZE } from '@verify-hub/connector-pipedrive';
import { expectedRisk, until, useHub } from '../setup/hub-harness';
import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';

const PANEL_SECRET = 'pipedrive-panel-jwt-secret-0123456789';

/**
 * Pipedrive through `verify-hub serve` (real pipeline and workers, in process) against the fake: the
 * token form connects and sets up (fields, webhooks), a sync writes each person's primary verdict once
 * with one PATCH and never `marketing_status`, a second sync writes nothing, a webhook delivery of a
 * new person is verified while our own writes' deliveries are ignored, and a revoked token pauses.
 */
describe('Pipedrive through verify-hub serve', () => {
  let fake: FakePipedrive;
  const prefixes = ['', 'invalid.', 'risky.'];
  const connectionId = () => `pipedrive-${fake.companyId}`;
  const stack = useHub({
    platform: 'pipedrive',
    connectionId,
    fake: async () => {
      fake = await new FakePipedrive({ burstLimit: 400 }).start();
      fake.seed(250, (i) => (i % 10 === 0 ? [`${prefixes[i % 3]}person${i}@example.com`, `other${i}@example.org`] : [`${prefixes[i % 3]}person${i}@example.com`]));
      return fake;
    },
    settings: () => ({ PIPEDRIVE_API_BASE: fake.url, PIPEDRIVE_OAUTH_BASE: fake.url, PIPEDRIVE_CLIENT_ID: fake.oauth.clientId, PIPEDRIVE_CLIENT_SECRET: fake.oauth.clientSecret, PIPEDRIVE_PANEL_JWT_SECRET: PANEL_SECRET }),
  });
  const { auth, runToEnd } = stack;
  const fieldValue = (personId: number, name: string) => {
    const field = fake.field(name)!;
    const value = fake.persons.get(personId)!.custom_fields[field.field_code];
    return field.options ? field.options.find((o) => o.id === value)?.label : value;
  };

  it('connects with an API token; a wrong one is refused naming the field; the fields and webhooks are set up', async () => {
    const wrong = await request(stack.hub.url).post('/api/connections/pipedrive').set(auth).send({ apiToken: 'not-the-token' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiToken' });
    expect(wrong.text).not.toContain('not-the-token');
    const connected = await request(stack.hub.url).post('/api/connections/pipedrive').set(auth).send({ apiToken: fake.apiToken });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId(), platform: 'pipedrive' });
    for (const name of ['EV risk', 'EV score', 'EV reason', 'EV checked at']) expect(fake.field(name)?.field_code).toMatch(/^[0-9a-f]{40}$/);
    expect(fake.webhooks.map((h) => [h.event_action, h.event_object, h.version])).toEqual([['create', 'person', '2.0'], ['change', 'person', '2.0']]);
    expect(fake.webhooks.every((h) => h.http_auth_user === connectionId() && (h.http_auth_password ?? '').length >= 24)).toBe(true);
  });

  it('refuses a scope it cannot read, at start', async () => {
    const refused = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'pipedrive', connectionId: connectionId(), scope: 'list:1' });
    expect(refused.status).toBe(400);
  });

  it("syncs 250 persons: each primary verdict written once, one PATCH a person, a 503 tried again, never marketing_status", async () => {
    fake.failNext(503);
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 275, failed: 0 } });
    expect(run.counters.written).toBe(250);
    for (const person of fake.persons.values()) {
      expect(fieldValue(person.id, 'EV risk')).toBe(expectedRisk(person.emails[0]!.value));
      expect(typeof fieldValue(person.id, 'EV score')).toBe('number');
      expect(String(fieldValue(person.id, 'EV checked at'))).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect([...fake.writesPerPerson.values()].every((n) => n === 1)).toBe(true);
    expect(fake.writesPerPerson.size).toBe(250);
    expect(fake.callsTo('GET', '/api/v2/persons')).toBeGreaterThanOrEqual(1);
    expect(fake.marketingStatusWrites).toEqual([]);
    expect(WRITE_BATCH_SIZE).toBeGreaterThan(1);
  });

  it('a second sync writes nothing; the deliveries of our own writes started no verification', async () => {
    await fake.settled();
    const ownDeliveries = fake.deliveries.filter((d) => d.changeSource === 'api');
    expect(ownDeliveries.length).toBeGreaterThanOrEqual(250);
    expect(ownDeliveries.every((d) => d.status === 200)).toBe(true);
    const patches = fake.callsTo('PATCH', '/api/v2/persons/');
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { written: 0 } });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(patches);
  });

  it("serves the custom panel of a person with its stored verdict, only to Pipedrive's signed iframe request", async () => {
    const person = fake.persons.get(2)!;
    const query = { resource: 'person', view: 'details', userId: String(fake.userId), companyId: String(fake.companyId), selectedIds: String(person.id), id: 'iframe-1' };
    const token = jwt.sign({ userId: fake.userId, companyId: fake.companyId }, PANEL_SECRET, { algorithm: 'HS256', expiresIn: 300 });
    const shown = await request(stack.hub.url).get('/platforms/pipedrive/panel').query({ ...query, token });
    expect(shown.status).toBe(200);
    expect(shown.headers['content-type']).toMatch(/text\/html/);
    expect(shown.headers['content-security-policy']).toContain('frame-ancestors https://*.pipedrive.com');
    expect(shown.headers['referrer-policy']).toBe('no-referrer');
    expect(shown.text).toContain(`${person.emails[0]!.value}</strong>: <span class="risk ${expectedRisk(person.emails[0]!.value)}">`);
    const forged = await request(stack.hub.url).get('/platforms/pipedrive/panel').query({ ...query, token: jwt.sign({ userId: fake.userId, companyId: fake.companyId }, 'not-the-secret') });
    expect(forged.status).toBe(401);
  });

  it('a person added in Pipedrive is verified through its webhook; a delivery with a wrong password is refused', async () => {
    const forged = await fetch(`${stack.hub.url}/webhooks/pipedrive`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${connectionId()}:wrong`).toString('base64')}` }, body: '{}' });
    expect(forged.status).toBe(401);
    const added = fake.addPerson(['invalid.newcomer@example.com']);
    await until(async () => fieldValue(added.id, 'EV risk'), (risk) => risk === 'invalid', 30_000);
    expect(fake.marketingStatusWrites).toEqual([]);
  });

  it('pauses a run when the token is revoked, saying how to reconnect', async () => {
    fake.revokeToken();
    const run = await runToEnd();
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/Pipedrive refused the credentials/);
    expect(run.statusReason).toMatch(/reconnect Pipedrive/);
  });

  it("connects again through the Marketplace app: the sign-in's code exchanged by the SDK, runs then read with its bearer token", async () => {
    const start = await request(stack.hub.url).get('/api/oauth/pipedrive/start').set(auth).redirects(0);
    expect(start.status).toBe(302);
    const to = new URL(start.headers.location as string);
    expect(`${to.origin}${to.pathname}`).toBe(`${fake.url}/oauth/authorize`);
    expect(to.searchParams.get('client_id')).toBe(fake.oauth.clientId);
    const state = to.searchParams.get('state')!;
    expect(state).toBeTruthy();
    const back = await request(stack.hub.url).get(`/oauth/pipedrive/callback?code=${fake.oauth.issueCode()}&state=${encodeURIComponent(state)}`).redirects(0);
    expect(back.status).toBe(302);
    expect(back.headers.location).toContain(`connected=${connectionId()}`);
    const calls = fake.calls.length;
    const run = await runToEnd();
    expect(run.status).toBe('completed');
    const used = fake.calls.slice(calls);
    expect(used.length).toBeGreaterThan(0);
    expect(used.every((c) => c.auth === 'oauth')).toBe(true);
    expect(fake.marketingStatusWrites).toEqual([]);
  });
});
