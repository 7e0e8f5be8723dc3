import { redirectUriProblem } from '../../webhooks-in/src/mcp-client-registration';
import { deleteKeys, newPrefix, Redis, register, startHub, type TestHub } from './hub';

/**
 * Issue 37, defect 5: "`http://evil.example/steal` (plain http, not loopback) registered without
 * authentication, and /authorize then redirected errors to it". Registration now takes https or loopback
 * redirect URIs only, /authorize answers an unknown client or URI itself (never by redirect), and
 * registrations are counted in Redis per address.
 */
const ADMIN_TOKEN = 'registration-admin-token-0123456789';

describe('MCP dynamic client registration (OAuth 2.1, the MCP authorization spec)', () => {
  // Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  const prefixes: string[] = [];
  const hubs: TestHub[] = [];
  const hubOn = async (prefix = newPrefix(), overrides: Parameters<typeof startHub>[3] = {}) => {
    prefixes.push(prefix);
    const hub = await startHub(redis, prefix, ADMIN_TOKEN, overrides);
    hubs.push(hub);
    return hub;
  };
  const clientKeys = async (prefix: string) => redis.keys(`${prefix}mcp:client:*`);
  const authorizeUrl = (base: string, params: Record<string, string>) =>
    `${base}/authorize?${new URLSearchParams({ response_type: 'code', code_challenge: 'c'.repeat(43), code_challenge_method: 'S256', ...params })}`;

  afterAll(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('replays the attack: http://evil.example/steal is refused at registration, and /authorize never redirects to it', async () => {
    const prefix = newPrefix();
    const h = await hubOn(prefix);
    const res = await register(h.base, { redirect_uris: ['http://evil.example/steal'], client_name: 'Claude' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_redirect_uri', error_description: 'redirect_uris[0]: must be https, or http on a loopback address (localhost, 127.0.0.1 or [::1])' });
    expect(await clientKeys(prefix)).toEqual([]);

    // Errors at /authorize (an unknown client, a bad response_type) are answered here, not at evil.example.
    const attempts: Record<string, string>[] = [{ client_id: 'made-up', redirect_uri: 'http://evil.example/steal' }, { client_id: 'made-up', redirect_uri: 'http://evil.example/steal', response_type: 'token' }];
    for (const params of attempts) {
      const answer = await fetch(authorizeUrl(h.base, params), { redirect: 'manual' });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
    }
  });

  it('a client stored before these rules, with a plain-http redirect, is unknown: no redirect to it', async () => {
    const prefix = newPrefix();
    const h = await hubOn(prefix);
    const legacy = { client_id: 'legacy-client', client_id_issued_at: 1, redirect_uris: ['http://evil.example/steal'], token_endpoint_auth_method: 'none' };
    await redis.set(`${prefix}mcp:client:legacy-client`, JSON.stringify(legacy), 'EX', 600);
    const answer = await fetch(authorizeUrl(h.base, { client_id: 'legacy-client', redirect_uri: 'http://evil.example/steal', code_challenge_method: 'plain' }), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('takes https and loopback redirect URIs only, and matches them exactly (a loopback port may vary, RFC 8252)', async () => {
    const h = await hubOn();
    const refused = ['http://evil.example/steal', 'http://192.168.1.10/cb', 'https://app.example/cb#frag', 'https://user:pw@app.example/cb', 'cursor://anysphere/cb', 'javascript:alert(1)', 'not a url'];
    for (const uri of refused) {
      const res = await register(h.base, { redirect_uris: ['https://fine.example/cb', uri] });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
    }
    for (const uri of ['https://app.example/cb', 'http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb']) expect(redirectUriProblem(uri)).toBeNull();

    const ok = await register(h.base, { redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:4000/cb'], client_name: 'Good client' });
    expect(ok.status).toBe(201);
    const { client_id } = (await ok.json()) as { client_id: string };
    for (const near of ['https://app.example/cb/', 'https://app.example/cb?x=1', 'https://app.example/cb2', 'https://APP.example.evil/cb', 'http://app.example/cb', 'http://127.0.0.1:4000/other']) {
      const answer = await fetch(authorizeUrl(h.base, { client_id, redirect_uri: near, response_type: 'token' }), { redirect: 'manual' });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
    }
    // The registered URI (and the loopback one on another port): errors after validation go back to the client.
    for (const exact of ['https://app.example/cb', 'http://127.0.0.1:5999/cb']) {
      const answer = await fetch(authorizeUrl(h.base, { client_id, redirect_uri: exact, response_type: 'token' }), { redirect: 'manual' });
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')!.startsWith(`${exact}?error=`)).toBe(true);
    }
  });

  it('the sign-in page names the client and, in bold, the host the code goes to', async () => {
    const h = await hubOn();
    const named = (await (await register(h.base, { redirect_uris: ['https://assistant.example/oauth/cb'], client_name: 'Claude <b>' })).json()) as { client_id: string };
    const page = await (await fetch(authorizeUrl(h.base, { client_id: named.client_id }))).text();
    expect(page).toContain('calling itself “Claude &#60;b&#62;”');
    expect(page).toContain('<strong>assistant.example</strong>');
    const anonymous = (await (await register(h.base, { redirect_uris: ['http://localhost:7777/cb'] })).json()) as { client_id: string };
    const page2 = await (await fetch(authorizeUrl(h.base, { client_id: anonymous.client_id }))).text();
    expect(page2).toContain(`(client ${anonymous.client_id})`);
    expect(page2).toContain('<strong>localhost:7777</strong>');
  });

  it('registration is rate-limited in Redis: 20 an hour per address, counted by every hub process together', async () => {
    const prefix = newPrefix();
    const [a, b] = [await hubOn(prefix, { trustProxy: true }), await hubOn(prefix, { trustProxy: true })];
    const from = (hub: TestHub, address: string) => register(hub.base, { redirect_uris: ['https://app.example/cb'] }, { 'X-Forwarded-For': address });
    for (let i = 0; i < 20; i++) expect((await from(i % 2 ? a : b, '198.51.100.9')).status).toBe(201);
    const over = await from(a, '198.51.100.9');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(await over.json()).toMatchObject({ error: 'too_many_requests' });
    expect((await from(b, '198.51.100.9')).status).toBe(429);
    expect((await from(b, '198.51.100.10')).status).toBe(201);
    expect((await clientKeys(prefix)).length).toBe(21);
  });
});
