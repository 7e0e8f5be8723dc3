import { Client } from '@hubspot/api-client';
import { HubSpotApiError } from '@verify-hub/connector-hubspot';
import { parseScope, type ConnectionRecord } from '@verify-hub/core';
import { exchangeHubSpotCode, HubSpotAuthError, HubSpotConnector, hubspotInstallUrl, privateAppConnection, refreshHubSpotToken } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, drain, localDeps, noWait } from './helpers';

const fake = new FakeHubSpot();
const REDIRECT = 'https://hub.example.com/oauth/hubspot/callback';
let app: { clientId: string; clientSecret: string; apiBase: string };

beforeAll(async () => {
  await fake.start();
  app = { clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, apiBase: fake.url };
  fake.addPortal({ portalId: '601', timeZone: 'Europe/Berlin' });
  fake.addPortal({ portalId: '602', token: 'private-602' });
  fake.addContacts('601', [{ email: 'berlin@example.com' }]);
  fake.addContacts('602', [{ email: 'private@example.com' }, { email: 'private2@example.com' }]);
});
afterAll(() => fake.stop());

describe('OAuth', () => {
  it('builds the install URL with the scopes the connector needs', () => {
    const url = new URL(hubspotInstallUrl({ clientId: 'cid', redirectUri: REDIRECT, state: 's-123' }));
    expect(url.origin + url.pathname).toBe('https://app.hubspot.com/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe('cid');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('state')).toBe('s-123');
    expect(url.searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.contacts.write', 'crm.lists.read']));
    expect(() => hubspotInstallUrl({ clientId: '', redirectUri: REDIRECT })).toThrow(/clientId/);
  });

  it('exchanges the code for a connection per portal, with its time zone and tokens', async () => {
    const code = fake.issueAuthCode('601', REDIRECT);
    const record = await exchangeHubSpotCode({ ...app, code, redirectUri: REDIRECT, now: () => 1_000_000 });
    expect(record.id).toBe('hubspot-601');
    expect(record.settings).toMatchObject({ portalId: '601', timeZone: 'Europe/Berlin', rateTier: 'oauth' });
    expect(record.credentials.accessToken).toMatch(/^oauth-601-/);
    expect(record.credentials.refreshToken).toMatch(/^refresh-/);
    expect(record.credentials.expiresAt).toBe(1_000_000 + fake.oauth.accessTokenTtlSeconds * 1000);
    // A code works once; a wrong redirect URI is refused: both as auth errors that carry no secret.
    const reused = (await exchangeHubSpotCode({ ...app, code, redirectUri: REDIRECT }).catch((e: unknown) => e)) as Error;
    expect(reused).toBeInstanceOf(HubSpotAuthError);
    expect(reused.message).not.toContain(app.clientSecret);
    const other = fake.issueAuthCode('601', REDIRECT);
    await expect(exchangeHubSpotCode({ ...app, code: other, redirectUri: 'https://elsewhere.example.com/cb' })).rejects.toBeInstanceOf(HubSpotAuthError);
  });

  it('refreshes before expiry, saves the new tokens through deps, and stops using the old token', async () => {
    const record = await exchangeHubSpotCode({ ...app, code: fake.issueAuthCode('601', REDIRECT), redirectUri: REDIRECT });
    const oldToken = String(record.credentials.accessToken);
    // Expires in two minutes: inside the refresh margin.
    const expiring: ConnectionRecord = { ...record, credentials: { ...record.credentials, expiresAt: Date.now() + 120_000 } };
    const saved: ConnectionRecord['credentials'][] = [];
    const hub = new HubSpotConnector(expiring, localDeps({ saved }), { clientId: app.clientId, clientSecret: app.clientSecret, retry: noWait });
    fake.resetCalls();
    const page = await hub.pull(parseScope('all'));
    expect(page.contacts.map((c) => c.email)).toEqual(['berlin@example.com']);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.accessToken).not.toBe(oldToken);
    expect(saved[0]!.refreshToken).toBe(record.credentials.refreshToken);
    expect(Number(saved[0]!.expiresAt)).toBeGreaterThan(Date.now() + 20 * 60_000);
    expect(fake.calls.map((c) => c.path)).toEqual(['/oauth/v1/token', '/crm/v3/objects/contacts']);
    expect(fake.calls[1]!.token).toBe(saved[0]!.accessToken);
  });

  it('answers a 401 for an expired token with one refresh and a retry', async () => {
    const record = await exchangeHubSpotCode({ ...app, code: fake.issueAuthCode('601', REDIRECT), redirectUri: REDIRECT });
    fake.expireToken(String(record.credentials.accessToken));
    const saved: ConnectionRecord['credentials'][] = [];
    const hub = new HubSpotConnector(record, localDeps({ saved }), { clientId: app.clientId, clientSecret: app.clientSecret, retry: noWait });
    fake.resetCalls();
    await hub.pull(parseScope('all'));
    expect(fake.calls.map((c) => [c.path, c.status])).toEqual([['/crm/v3/objects/contacts', 401], ['/oauth/v1/token', 200], ['/crm/v3/objects/contacts', 200]]);
    expect(saved).toHaveLength(1);
  });

  it('turns a refused refresh token into an auth error (the run pauses for a reinstall)', async () => {
    await expect(refreshHubSpotToken({ ...app, refreshToken: 'refresh-nope' })).rejects.toBeInstanceOf(HubSpotAuthError);
    const hub = new HubSpotConnector(
      { id: 'hubspot-601', platform: 'hubspot', label: 'x', createdAt: '', credentials: { accessToken: 'dead', refreshToken: 'refresh-nope', expiresAt: Date.now() + 3600_000 }, settings: { apiBase: fake.url } },
      localDeps(), { clientId: app.clientId, clientSecret: app.clientSecret, retry: noWait },
    );
    const error = (await hub.pull(parseScope('all')).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(HubSpotAuthError);
    expect(error.message).not.toMatch(/refresh-nope|dead/);
  });

  it('stores a private app token as the connection of its portal', async () => {
    const record = await privateAppConnection({ accessToken: 'private-602', apiBase: fake.url });
    expect(record).toMatchObject({ id: 'hubspot-602', credentials: { accessToken: 'private-602' }, settings: { portalId: '602', rateTier: 'private-standard' } });
    await expect(privateAppConnection({ accessToken: 'wrong', apiBase: fake.url })).rejects.toBeInstanceOf(HubSpotAuthError);
  });
});

describe('two connections', () => {
  it('never share a token, even when built and used interleaved in one process', async () => {
    const oauthRecord = await exchangeHubSpotCode({ ...app, code: fake.issueAuthCode('601', REDIRECT), redirectUri: REDIRECT });
    const a = new HubSpotConnector(oauthRecord, localDeps(), { clientId: app.clientId, clientSecret: app.clientSecret, retry: noWait });
    // Built after `a`: a process-wide SDK setting would now point `a` at this token.
    const b = connector(fake, '602', 'private-602');
    fake.resetCalls();
    const [ra, rb, ra2] = await Promise.all([drain(a, 'all'), drain(b, 'all'), drain(a, 'all')]);
    expect(ra.contacts.map((c) => c.email)).toEqual(['berlin@example.com']);
    expect(ra2.contacts.map((c) => c.email)).toEqual(['berlin@example.com']);
    expect(rb.contacts.map((c) => c.email)).toEqual(['private@example.com', 'private2@example.com']);
    const tokens = new Map<string, Set<string>>();
    for (const call of fake.calls) tokens.set(call.portalId!, (tokens.get(call.portalId!) ?? new Set()).add(call.token!));
    expect([...tokens.get('601')!]).toEqual([oauthRecord.credentials.accessToken]);
    expect([...tokens.get('602')!]).toEqual(['private-602']);
  });

  it('is not retried by the SDK decorators another client in the process turns on: retries are the connector\'s', async () => {
    const hub = connector(fake, '602', 'private-602', { options: { retry: { ...noWait, maxAttempts: 1 } } });
    const other = new Client({ accessToken: 'someone-else', basePath: fake.url, numberOfApiCallRetries: 3 });
    expect(other.crm.contacts.basicApi).toBeDefined();
    fake.resetCalls();
    fake.inject({ kind: 'status', status: 502, count: 3 });
    await expect(hub.pull(parseScope('all'))).rejects.toBeInstanceOf(HubSpotApiError);
    expect(fake.calls).toHaveLength(1);
    // With its own retries on, the connector gets through the same trouble.
    fake.inject({ kind: 'status', status: 502, count: 2 });
    const page = await connector(fake, '602', 'private-602').pull(parseScope('all'));
    expect(page.contacts).toHaveLength(2);
  });
});
