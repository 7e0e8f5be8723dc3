import jwt from 'jsonwebtoken';
import { AuthError, createLogger, type ConnectionRecord, type ConnectionStore, type PlatformContext, type PlatformHost, type RawWebhookRequest, type Verification } from '@verify-hub/core';
import { PANEL_PATH, WEBHOOK_PASSWORD, pipedrivePlatform, pipedriveReceiver } from '@verify-hub/connector-pipedrive';
import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';
import { riskyCatchAll } from '../fakes/verification/risky-catch-all';
import { connectorFor, tokenRecord } from './helpers';

const PASSWORD = 'a-webhook-password-of-the-connection-0123';
const PANEL_SECRET = 'panel-jwt-secret-0123456789abcdef';

function store(records: ConnectionRecord[]): ConnectionStore {
  const byId = new Map(records.map((r) => [r.id, r]));
  return { get: async (id) => byId.get(id), save: async (r) => void byId.set(r.id, r), list: async () => [...byId.values()], delete: async (id) => byId.delete(id) };
}

const delivery = (body: unknown, user: string, password: string): RawWebhookRequest => ({
  method: 'POST',
  url: 'https://hub.example/webhooks/pipedrive',
  headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

/**
 * The webhooks v2 receiver (basic auth in constant time, the company checked, only new persons and
 * changed emails verified: our own writes never come back), the custom panel (Pipedrive's JWT
 * verified, the verdict shown, "verify again" written back), and OAuth tokens refreshed or refused.
 */
describe('Pipedrive receivers', () => {
  let fake: FakePipedrive;
  let record: ConnectionRecord;
  beforeEach(async () => {
    fake = await new FakePipedrive({ burstLimit: 1000 }).start();
    record = tokenRecord(fake);
    record.credentials[WEBHOOK_PASSWORD] = PASSWORD;
  });
  afterEach(() => fake.stop());

  const meta = (over: Record<string, unknown> = {}) => ({ action: 'change', entity: 'person', entity_id: '12', company_id: String(fake.companyId), user_id: String(fake.userId), timestamp: 1760000000, change_source: 'app', version: '2.0', ...over });
  const receive = (body: unknown, password = PASSWORD, user = record.id) => pipedriveReceiver(() => store([record])).receive(delivery(body, user, password), {}, Date.now());

  it('takes deliveries with the connection\'s basic auth only, for its own company', async () => {
    const created = { meta: meta({ action: 'create' }), data: { id: 12, emails: [{ value: 'new@example.com', primary: true }] }, previous: null };
    await expect(receive(created)).resolves.toEqual([expect.objectContaining({ kind: 'created', contactId: '12', email: 'new@example.com', accountId: String(fake.companyId) })]);
    await expect(receive(created, 'wrong-password')).rejects.toMatchObject({ status: 401 });
    await expect(receive(created, PASSWORD, 'pipedrive-1')).rejects.toMatchObject({ status: 401 });
    await expect(receive({ ...created, meta: meta({ action: 'create', company_id: '1' }) })).rejects.toMatchObject({ status: 401 });
    await expect(pipedriveReceiver(() => store([record])).receive({ ...delivery(created, record.id, PASSWORD), headers: {} }, {}, Date.now())).rejects.toMatchObject({ status: 401 });
    await expect(receive({ meta: {} })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^body\.meta\./) });
  });

  it('verifies a change of emails; a change of anything else (our own writes among them) gives no event', async () => {
    const emails = { meta: meta(), data: { id: 12, emails: [{ value: 'moved@example.com', primary: true }] }, previous: { emails: [{ value: 'old@example.com', primary: true }] } };
    expect(await receive(emails)).toEqual([expect.objectContaining({ kind: 'email_changed', email: 'moved@example.com' })]);
    const ours = { meta: meta({ change_source: 'api' }), data: { id: 12, emails: [{ value: 'moved@example.com', primary: true }] }, previous: { custom_fields: { ['a'.repeat(40)]: null } } };
    expect(await receive(ours)).toEqual([]);
    expect(await receive({ ...ours, previous: null })).toEqual([]);
    expect(await receive({ ...ours, meta: meta({ change_source: 'app' }), previous: { name: 'Old name' } })).toEqual([]);
    expect(await receive({ ...emails, meta: meta({ entity: 'deal' }) })).toEqual([]);
  });

  describe('custom panel', () => {
    const verdicts = new Map<string, Verification>();
    let saved: ConnectionRecord;
    const context = (): PlatformContext => {
      const host: Partial<PlatformHost> = {
        storedVerdict: async (email) => verdicts.get(email),
        verifyNow: async (email) => riskyCatchAll({ email, normalized: email, risk: 'invalid', reason: 'mailbox_not_found', checkedAt: new Date().toISOString() }),
      };
      return {
        config: { PIPEDRIVE_PANEL_JWT_SECRET: PANEL_SECRET, PIPEDRIVE_API_BASE: fake.url } as never,
        connections: store([saved]),
        openConnector: async () => connectorFor(fake, saved).connector,
        logger: createLogger({ level: 'silent' }),
        host: host as PlatformHost,
      };
    };
    const route = (method: string) => pipedrivePlatform.routes!(context()).find((r) => r.method === method && r.path.startsWith(PANEL_PATH))!;
    const call = (method: string, query: Record<string, string>) => route(method).handle({ method, url: `https://hub.example/platforms/pipedrive${PANEL_PATH}`, headers: {}, body: Buffer.alloc(0), params: {}, query });
    const signed = (claims: Record<string, unknown>, secret = PANEL_SECRET) => jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: 60 });

    beforeEach(async () => {
      const { connector } = connectorFor(fake);
      const { keys } = await connector.resolveFields(true);
      saved = tokenRecord(fake, { fieldKeys: keys });
    });

    it("shows the person's addresses with their verdicts when Pipedrive's JWT checks out, and refuses it otherwise", async () => {
      const person = fake.addPerson(['ann@example.com', 'ann.home@example.org'], { deliver: false });
      verdicts.set('ann@example.com', riskyCatchAll());
      const query = { resource: 'person', view: 'details', companyId: String(fake.companyId), userId: String(fake.userId), selectedIds: String(person.id), id: 'frame-1' };
      const shown = await call('GET', { ...query, token: signed({ companyId: fake.companyId, userId: fake.userId }) });
      expect(shown.status).toBe(200);
      expect(String(shown.body)).toContain('ann@example.com</strong>: <span class="risk risky">risky</span>, score 87');
      expect(String(shown.body)).toContain('ann.home@example.org</strong>: not checked yet');
      expect(String(shown.body)).toContain('Verify again');
      await expect(call('GET', { ...query, token: signed({ companyId: fake.companyId, userId: fake.userId }, 'another-secret') })).rejects.toMatchObject({ status: 401 });
      await expect(call('GET', { ...query, token: signed({ companyId: 1, userId: fake.userId }) })).rejects.toMatchObject({ status: 401 });
      await expect(call('GET', query)).rejects.toMatchObject({ status: 401 });
      const expired = jwt.sign({ companyId: fake.companyId, userId: fake.userId, exp: Math.floor(Date.now() / 1000) - 10 }, PANEL_SECRET);
      await expect(call('GET', { ...query, token: expired })).rejects.toMatchObject({ status: 401 });
    });

    it('"verify again" checks the primary address afresh and writes its verdict to the person', async () => {
      const person = fake.addPerson(['bob@example.com'], { deliver: false });
      const query = { resource: 'person', companyId: String(fake.companyId), userId: String(fake.userId), selectedIds: String(person.id), token: signed({ companyId: fake.companyId, userId: fake.userId }) };
      const answer = await call('POST', query);
      expect(answer.body).toEqual({ verified: 1, risk: 'invalid' });
      const risk = fake.field('EV risk')!;
      expect(fake.persons.get(person.id)!.custom_fields[risk.field_code]).toBe(risk.options!.find((o) => o.label === 'invalid')!.id);
      expect(fake.marketingStatusWrites).toEqual([]);
    });
  });

  it('an expired OAuth token is refreshed through the SDK and saved; a revoked refresh token pauses with words to reconnect', async () => {
    const token = await fetch(`${fake.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${fake.oauth.clientId}:${fake.oauth.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: fake.oauth.issueCode(), redirect_uri: 'https://hub.example/cb' }),
    }).then((r) => r.json() as Promise<{ access_token: string; refresh_token: string }>);
    const oauthRecord: ConnectionRecord = { ...tokenRecord(fake), credentials: { accessToken: token.access_token, refreshToken: token.refresh_token, expiresAt: Date.now() - 1000 } };
    const app = { PIPEDRIVE_CLIENT_ID: fake.oauth.clientId, PIPEDRIVE_CLIENT_SECRET: fake.oauth.clientSecret };
    const { connector, saved } = connectorFor(fake, oauthRecord, app);
    await connector.api.persons({});
    expect(fake.oauth.refreshes).toBe(1);
    expect(saved.at(-1)).toMatchObject({ accessToken: expect.stringMatching(/^at-/), refreshToken: expect.stringMatching(/^rt-/) });
    expect(saved.at(-1)!.refreshToken).not.toBe(token.refresh_token);

    fake.revokeToken();
    const stale = connectorFor(fake, { ...oauthRecord, credentials: { ...saved.at(-1)!, expiresAt: Date.now() - 1000 } }, app).connector;
    const refused = await stale.api.persons({}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthError);
    expect((refused as Error).message).toMatch(/reconnect Pipedrive/);
  });
});
