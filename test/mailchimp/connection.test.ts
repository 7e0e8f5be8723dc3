import { parseScope, type ConnectorDeps } from '@verify-hub/core';
import {
  MailchimpAuthError,
  MailchimpConnector,
  authorizeUrl,
  connectionFromOAuth,
  dataCenterFromApiKey,
  mailchimpConnectorFactory,
  readAuth,
  readSettings,
} from '@verify-hub/connector-mailchimp';
import { FakeMailchimp } from '../fakes/mailchimp';
import { sharedLocalLimiters } from './helpers';

const KEY = `${'f'.repeat(32)}-us7`;
let fake: FakeMailchimp;

beforeAll(async () => {
  fake = await new FakeMailchimp().start();
  fake.addAccount(KEY, { dc: 'us7', userId: '2a', accountName: 'Acme Shop' });
  fake.addList(KEY, 'oauthList');
  fake.addMembers('oauthList', [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
  fake.registerOAuthClient('client-1', 'client-secret-1', 'https://hub.example.com/oauth/mailchimp/callback');
});
afterAll(() => fake.close());

const client = () => ({ clientId: 'client-1', clientSecret: 'client-secret-1', redirectUri: 'https://hub.example.com/oauth/mailchimp/callback', loginBase: fake.loginBase });

test('the data center comes from the key suffix; a key without one is refused without echoing it', () => {
  expect(dataCenterFromApiKey('0123abcd-us21')).toBe('us21');
  expect(readAuth({ apiKey: KEY })).toEqual({ kind: 'apiKey', apiKey: KEY, dc: 'us7' });
  expect(readAuth({ accessToken: 'tok', dc: 'us3' })).toEqual({ kind: 'oauth', accessToken: 'tok', dc: 'us3' });
  expect(() => readAuth({ apiKey: 'secretwithoutdc' })).toThrow('credentials.apiKey: must end with the data center');
  expect(() => readAuth({ apiKey: 'secretwithoutdc' })).not.toThrow(/secretwithoutdc/);
  expect(() => readAuth({ accessToken: 'tok' })).toThrow(/credentials.dc/);
  expect(() => readAuth({})).toThrow('credentials: needs apiKey, or accessToken with dc');
});

test('settings are validated with messages naming the field; the API base defaults from the data center', () => {
  const auth = readAuth({ apiKey: KEY });
  expect(readSettings(undefined, auth).apiBase).toBe('https://us7.api.mailchimp.com/3.0');
  expect(readSettings({ names: { riskMergeField: 'MYRISK' } }, auth).names).toMatchObject({ riskMergeField: 'MYRISK', scoreMergeField: 'EVSCORE' });
  expect(() => readSettings({ names: { riskMergeField: 'much_too_long_tag' } }, auth)).toThrow(/^settings.names.riskMergeField: must be a merge tag/);
  expect(() => readSettings({ apiBase: 'ftp://x' }, auth)).toThrow(/^settings.apiBase: must be an http\(s\) URL/);
});

test('authorize URL, code exchange and metadata give an OAuth connection that works', async () => {
  const url = new URL(authorizeUrl(client(), 'state-123'));
  expect(`${url.origin}${url.pathname}`).toBe(`${fake.loginBase}/oauth2/authorize`);
  expect(Object.fromEntries(url.searchParams)).toEqual({ response_type: 'code', client_id: 'client-1', redirect_uri: client().redirectUri, state: 'state-123' });

  fake.issueCode('code-xyz', 'oauth-token-1');
  fake.alias('oauth-token-1', KEY);
  const record = await connectionFromOAuth(client(), 'code-xyz', { listId: 'oauthList', now: new Date('2026-11-21T00:00:00Z') });
  expect(record).toEqual({
    id: 'mailchimp-us7-42',
    platform: 'mailchimp',
    label: 'Mailchimp: Acme Shop',
    createdAt: '2026-11-21T00:00:00.000Z',
    credentials: { accessToken: 'oauth-token-1', dc: 'us7' },
    settings: { listId: 'oauthList', apiBase: `${fake.loginBase}/3.0` },
  });
  const deps: ConnectorDeps = sharedLocalLimiters();
  const connector = mailchimpConnectorFactory(record, deps) as MailchimpConnector;
  const page = await connector.pull(parseScope('all'));
  expect(page.contacts.map((c) => c.email)).toEqual(['a@example.com', 'b@example.com']);
  expect(fake.requests.at(-1)!.credential).toBe('oauth-token-1'); // sent as a Bearer token
});

test('a used or wrong code, or a wrong client secret, is an auth error without secrets in it', async () => {
  await expect(connectionFromOAuth(client(), 'code-xyz')).rejects.toThrow(MailchimpAuthError);
  const wrongSecret = { ...client(), clientSecret: 'nope-secret' };
  fake.issueCode('code-2', 'oauth-token-2');
  const error = await connectionFromOAuth(wrongSecret, 'code-2').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MailchimpAuthError);
  expect((error as Error).message).toMatch(/invalid_client/);
  expect((error as Error).message).not.toMatch(/nope-secret|code-2/);
});
