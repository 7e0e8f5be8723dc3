import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createMcpHttpHandler } from '@verify-hub/mcp';
import type { HubApp, HubAppDeps } from '@verify-hub/webhooks-in';
import type { FakeRunService } from '../webhooks-in/fake-run-service';
import { captureLogs, testHubApp } from '../webhooks-in/harness';

export { captureLogs };

/**
 * A hub listening on an ephemeral port, with MCP sign-in on (its public URL is its own address), over the
 * test Redis under a key prefix the test chooses: two of these on one prefix are two hub processes, or one
 * hub before and after a restart. Everything it logs is kept, to look for leaked secrets.
 */
export interface TestHub {
  hub: HubApp;
  base: string;
  runs: FakeRunService;
  logs: string[];
  close(): Promise<void>;
}

export const newPrefix = (): string => `test:security:${randomUUID()}:`;

export async function startHub(redis: Redis, prefix: string, adminToken: string, overrides: Partial<HubAppDeps> & { engineUrl?: string; engineKey?: string } = {}): Promise<TestHub> {
  const { engineUrl, engineKey, ...deps } = overrides;
  let app: RequestListener = (_req, res) => res.end();
  const server: Server = createServer((req, res) => app(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logs = captureLogs();
  const mcp = createMcpHttpHandler({ engineUrl: engineUrl ?? 'http://127.0.0.1:9' });
  const { hub, runs, dispose } = testHubApp(redis, prefix, {
    adminToken,
    logger: logs.logger,
    publicUrl: base,
    ingest: { queueName: `test-security-ingest-${randomUUID()}`, worker: false },
    mcpSignIn: { engineKey: engineKey ?? 'engine-key-of-the-hub-000000' },
    mounts: [{ path: '/mcp', handler: (req, res) => void mcp(req, res) }],
    ...deps,
  });
  app = hub.app as unknown as RequestListener;
  return {
    hub,
    base,
    runs,
    logs: logs.lines,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await dispose();
    },
  };
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
}

export const REDIRECT = 'http://127.0.0.1:33418/callback';

/** POST /register as an assistant does it (unauthenticated JSON). */
export function register(base: string, metadata: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }) });
}

export function tokenRequest(base: string, body: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() });
}

/** A JSON-RPC call to /mcp with `headers` (tools/list: no engine call). */
export function mcpCall(base: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'security-test', version: '1' } } }),
  });
}

/** The whole MCP sign-in as an assistant and a person do it: register, authorize, the sign-in page, the code exchange. */
export async function mcpSignIn(base: string, adminToken: string): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const registered = (await (await register(base, { redirect_uris: [REDIRECT], client_name: 'security test' })).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/authorize', base);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    resource: `${base}/mcp`,
  }).toString();
  const page = await (await fetch(authorize)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
  if (!request) throw new Error(`no sign-in form in ${page.slice(0, 300)}`);
  const posted = await fetch(`${base}/mcp-sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, token: adminToken, action: 'allow' }).toString(),
  });
  const code = new URL(posted.headers.get('location') ?? 'http://x/').searchParams.get('code');
  if (!code) throw new Error(`sign-in answered ${posted.status}`);
  const tokens = (await (await tokenRequest(base, { grant_type: 'authorization_code', client_id: registered.client_id, code, code_verifier: verifier, redirect_uri: REDIRECT })).json()) as { access_token: string; refresh_token: string };
  return { clientId: registered.client_id, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

export { Redis };
