import request from 'supertest';
import { PERMISSION_SET } from '@verify-hub/connector-salesforce';
import { expectedRisk, useHub } from '../setup/hub-harness';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import { fakeVariables } from './helpers';

/**
 * Salesforce installed as a platform (its folder and its line in cli/package.json), driven through
 * `verify-hub serve` with the real pipeline and workers against the fake org: listed with its connect
 * form, connected by the OAuth web-server flow with PKCE and by the JWT bearer flow, a run that sets
 * up the fields and their permission set and writes every verdict once, an unchanged re-run writing
 * nothing, a revoked sign-in pausing the run with reconnect words, and disconnect revoking the token.
 */
describe('Salesforce through verify-hub serve', () => {
  let fake: FakeSalesforce;
  let connectionId: string;
  const prefixes = ['', 'invalid.', 'risky.'];
  const stack = useHub({
    platform: 'salesforce',
    connectionId: () => connectionId,
    fake: async () => {
      fake = await new FakeSalesforce().start();
      for (let i = 0; i < 250; i++) fake.add(i % 5 ? 'Contact' : 'Lead', `${prefixes[i % 3]}person${i}@example.com`);
      return fake;
    },
    settings: () => fakeVariables(fake),
  });
  const { auth, runToEnd } = stack;

  it('is installed: GET /api/platforms lists it with its sign-in and its JWT key form', async () => {
    const res = await request(stack.hub.url).get('/api/platforms').set(auth);
    expect(res.status).toBe(200);
    expect(res.body.platforms.find((p: { id: string }) => p.id === 'salesforce')).toMatchObject({
      id: 'salesforce',
      label: 'Salesforce',
      connectable: true,
      connect: { oauth: true, keyFields: [{ name: 'username', secret: false }, { name: 'environment', choice: true }] },
    });
  });

  it('connects with the OAuth web-server flow: PKCE challenge in the sign-in link, verifier checked by the token endpoint', async () => {
    const start = await request(stack.hub.url).get('/api/oauth/salesforce/start?environment=production').set(auth);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location!);
    expect(authorize.origin + authorize.pathname).toBe(`${fake.url}/services/oauth2/authorize`);
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('scope')).toBe('api refresh_token');
    const callback = new URL(fake.approve(start.headers.location!));
    const back = await request(stack.hub.url).get(callback.pathname + callback.search);
    expect(back.status).toBe(302);
    expect(back.headers.location).toMatch(/connected=salesforce-00D5g00000FAKEORG/);
    connectionId = 'salesforce-00D5g00000FAKEORG';
    const listed = await request(stack.hub.url).get('/api/connections').set(auth);
    expect(JSON.stringify(listed.body)).not.toMatch(/rt-[0-9a-f]{24}/);
  });

  it('connects with the JWT bearer flow; an unknown user is refused naming the field', async () => {
    const wrong = await request(stack.hub.url).post('/api/connections/salesforce').set(auth).send({ username: 'nobody@example.com', environment: 'sandbox' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'username' });
    const connected = await request(stack.hub.url).post('/api/connections/salesforce').set(auth).send({ username: fake.jwtUser, environment: 'production' });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId, platform: 'salesforce' });
    // Back to the OAuth connection for what follows (its refresh token is revoked below).
    const start = await request(stack.hub.url).get('/api/oauth/salesforce/start').set(auth);
    const callback = new URL(fake.approve(start.headers.location!));
    await request(stack.hub.url).get(callback.pathname + callback.search);
  });

  it('refuses a scope it cannot read, at start', async () => {
    const refused = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'salesforce', connectionId, scope: 'contacts:Email != null LIMIT 5' });
    expect(refused.status).toBe(400);
  });

  it('a run sets up the fields and their permission set, then writes every verdict once', async () => {
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 250, failed: 0 } });
    expect(fake.customFields.size).toBe(18);
    expect(fake.assignments.has(PERMISSION_SET.name)).toBe(true);
    for (const record of [...fake.records.values()]) expect(record.EV_Risk__c).toBe(expectedRisk(String(record.Email)));
    expect([...fake.writesPerRecord.values()].every((n) => n === 1)).toBe(true);
    expect(fake.writesPerRecord.size).toBe(250);
    expect(fake.consentChanges).toEqual([]);
  });

  it('a second run writes nothing: every value read back is unchanged', async () => {
    const writes = fake.collectionSizes.length;
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 250, written: 0, unchanged: 250 } });
    expect(fake.collectionSizes).toHaveLength(writes);
  });

  it('pauses a run when the sign-in is revoked, saying how to reconnect', async () => {
    fake.revokeAccess();
    const run = await runToEnd();
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/refresh token revoked or expired/);
    expect(run.statusReason).toMatch(/reconnect Salesforce/);
  });
});
