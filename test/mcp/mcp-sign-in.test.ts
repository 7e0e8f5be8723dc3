import { createHash, randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createMcpHttpHandler } from '@verify-hub/mcp';
import { FakeEngine } from '../fakes/engine';
import { ADMIN_TOKEN, createHarness, type Harness } from '../webhooks-in/harness';
import { startServeStack, type ServeStack } from '../webhooks-in/serve-stack';
import { callTool, textOf } from './helpers';

const REDIRECT = 'http://127.0.0.1:33418/callback';

/** The SDK's OAuthClientProvider, kept in memory; `redirectToAuthorization` records where the browser would go. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test <Assistant>', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

/** Plays the browser: opens the authorization URL, reads the sign-in form, posts it, returns where it redirects. */
async function signInAsBrowser(authorizationUrl: URL | string, token: string, action = 'allow'): Promise<{ status: number; location?: string; page: string }> {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  const formAction = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  const posted = await fetch(new URL(formAction, authorizationUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, token, action }).toString(),
  });
  return { status: posted.status, location: posted.headers.get('location') ?? undefined, page: posted.status === 302 ? '' : await posted.text() };
}

describe('MCP sign-in on the hub (OAuth 2.1: the SDK client against the hub and the fake engine)', () => {
  const engine = new FakeEngine();
  let harness: Harness;
  let server: Server;
  let base: string;
  let mcpUrl: URL;
  const clients: Client[] = [];

  beforeAll(async () => {
    await engine.start();
    // The issuer is the hub's public URL: listen first, then build the app for that address.
    let app: RequestListener = (_req, res) => res.end();
    server = createServer((req, res) => app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mcpUrl = new URL('/mcp', base);
    const mcp = createMcpHttpHandler({ engineUrl: engine.url });
    harness = await createHarness({
      publicUrl: base,
      mcpSignIn: { engineKey: engine.apiKey },
      mounts: [{ path: '/mcp', handler: (req, res) => void mcp(req, res) }],
    });
    app = harness.hub.app as unknown as RequestListener;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await new Promise((resolve) => server.close(resolve));
    await harness.close();
    await engine.stop();
  });

  test('no key and no sign-in: 401 a person can act on, with the protected-resource metadata to sign in', async () => {
    const res = await fetch(mcpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(res.status).toBe(401);
    const prmUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${prmUrl}", scope="verify"`);
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toMatch(/^Not signed in: .*sign.* in .*admin token.*"X-API-Key: <your key>"/);

    const prm = (await (await fetch(prmUrl)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [`${base}/`], scopes_supported: ['verify'] });
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: `${base}/`,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
  });

  test('the SDK client signs in (discovery, registration, PKCE, the sign-in page) and verify_email runs on the hub\'s engine key', async () => {
    const provider = new MemoryOAuthProvider();
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.href.startsWith(`${base}/authorize?`)).toBe(true);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/mcp`);

    // The sign-in page names the client (escaped) and where the person returns to.
    const pageHtml = await (await fetch(authorizationUrl)).text();
    expect(pageHtml).toContain('Test &#60;Assistant&#62;');
    expect(pageHtml).toContain('127.0.0.1:33418');

    const wrong = await signInAsBrowser(authorizationUrl, 'not-the-admin-token');
    expect(wrong.status).toBe(401);
    expect(wrong.page).toContain('Wrong admin token');

    const signedIn = await signInAsBrowser(authorizationUrl, ADMIN_TOKEN);
    expect(signedIn.status).toBe(302);
    const callback = new URL(signedIn.location!);
    expect(callback.href.startsWith(REDIRECT)).toBe(true);
    expect(callback.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    await first.finishAuth(callback.searchParams.get('code')!);
    const tokens = provider.saved!;
    expect(tokens.access_token.startsWith('vhmcp_at_')).toBe(true);
    expect(tokens.refresh_token!.startsWith('vhmcp_rt_')).toBe(true);
    expect(JSON.stringify(tokens)).not.toContain(engine.apiKey);

    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    clients.push(client);
    const result = await callTool(client, 'verify_email', { email: 'signed.in@oauth.test' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ email: 'signed.in@oauth.test', risk: 'safe' });
    expect(textOf(result)).not.toContain(engine.apiKey);
    const seen = engine.requests.filter((r) => r.email === 'signed.in@oauth.test');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.keyMatched).toBe(true);

    // Stored hashed, with an expiry; the engine key is not in Redis.
    const keys = await harness.redis.keys(`${harness.prefix}mcp:*`);
    expect(keys.some((k) => k.includes(tokens.access_token))).toBe(false);
    const accessKey = `${harness.prefix}mcp:access:${createHash('sha256').update(tokens.access_token).digest('hex')}`;
    expect(keys).toContain(accessKey);
    const ttl = await harness.redis.ttl(accessKey);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    for (const key of keys) {
      const value = (await harness.redis.type(key)) === 'string' ? await harness.redis.get(key) : '';
      expect(value).not.toContain(engine.apiKey);
    }
  });

  /** Registers a client and gets a code by hand, to test the token endpoint's refusals. */
  async function codeFor(verifier: string): Promise<{ clientId: string; code: string }> {
    const registered = (await (await fetch(`${base}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'raw' }) })).json()) as { client_id: string };
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL('/authorize', base);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', resource: `${base}/mcp` }).toString();
    const signedIn = await signInAsBrowser(authorize, ADMIN_TOKEN);
    return { clientId: registered.client_id, code: new URL(signedIn.location!).searchParams.get('code')! };
  }

  const token = (body: Record<string, string>) => fetch(`${base}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });

  test('PKCE is enforced, a code works once, and a refresh token rotates', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const { clientId, code } = await codeFor(verifier);
    const wrongVerifier = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: randomBytes(32).toString('base64url'), redirect_uri: REDIRECT });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });

    const ok = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(ok.status).toBe(200);
    const issued = (await ok.json()) as OAuthTokens;
    expect(issued).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'verify' });

    const replay = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(replay.status).toBe(400);

    const refreshed = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.refresh_token! });
    expect(refreshed.status).toBe(200);
    const again = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.refresh_token! });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });

    // Revoked: the access token no longer opens /mcp, and the 401 says how to get a new one.
    const fresh = (await refreshed.json()) as OAuthTokens;
    const revoke = await fetch(`${base}/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, token: fresh.access_token }).toString() });
    expect(revoke.status).toBe(200);
    const denied = await fetch(mcpUrl, { method: 'POST', headers: { Authorization: `Bearer ${fresh.access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]*sign in again", scope="verify", resource_metadata="/);
  });

  test('Cancel on the sign-in page returns access_denied to the client', async () => {
    const registered = (await (await fetch(`${base}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) })).json()) as { client_id: string };
    const authorize = new URL('/authorize', base);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's2' }).toString();
    const cancelled = await signInAsBrowser(authorize, '', 'deny');
    expect(cancelled.status).toBe(302);
    const back = new URL(cancelled.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('s2');
    expect(back.searchParams.get('code')).toBeNull();
  });

  test('S256 only: a "plain" PKCE request is refused', async () => {
    const registered = (await (await fetch(`${base}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) })).json()) as { client_id: string };
    const authorize = new URL('/authorize', base);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }).toString();
    const res = await fetch(authorize, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  test('the API-key path stays: X-API-Key or an engine key as a bearer token reach the engine with that key', async () => {
    const ways: Record<string, string>[] = [{ 'X-API-Key': engine.apiKey }, { Authorization: `Bearer ${engine.apiKey}` }];
    for (const headers of ways) {
      const client = new Client({ name: 'key-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }));
      clients.push(client);
      const result = await callTool(client, 'verify_email', { email: `key.${Object.keys(headers)[0]}@oauth.test`.toLowerCase() });
      expect(result.structuredContent).toMatchObject({ risk: 'safe' });
    }
    const bad = new Client({ name: 'bad-key', version: '1.0.0' });
    await bad.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { 'X-API-Key': 'wrong-key-0000000000' } } }));
    clients.push(bad);
    expect(textOf(await callTool(bad, 'verify_email', { email: 'bad.key@oauth.test' }))).toMatch(/^UNAUTHORIZED/);
  });
});

describe('verify-hub serve turns sign-in on with HUB_PUBLIC_URL, ENGINE_URL and ENGINE_API_KEY', () => {
  let stack: ServeStack;
  const publicUrl = 'https://hub.example.test';

  beforeAll(async () => {
    stack = await startServeStack('mcp-sign-in', ADMIN_TOKEN, { HUB_PUBLIC_URL: publicUrl });
  });

  afterAll(async () => {
    await stack.close();
  });

  test('/mcp without a key asks to sign in, and the metadata names the public URL', async () => {
    const res = await fetch(`${stack.hub.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp", scope="verify"`);
    const prm = (await (await fetch(`${stack.hub.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${publicUrl}/mcp`, authorization_servers: [`${publicUrl}/`] });
    const withKey = await fetch(`${stack.hub.url}/mcp`, {
      method: 'POST',
      headers: { 'X-API-Key': stack.engine.apiKey, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(withKey.status).toBe(200);
  });
});
