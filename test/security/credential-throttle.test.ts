import { clientAddressKey, CREDENTIAL_THROTTLE_DEFAULTS } from '@verify-hub/core';
import { deleteKeys, mcpCall, mcpSignIn, newPrefix, Redis, startHub, tokenRequest, type TestHub } from './hub';

/**
 * Issue 37, defect 1: "200 guesses took 0.43 s, and the right one still worked from the same address".
 * Every credential check of the hub (bearer on /api/*, Basic on the queue UI, POST /api/session, the MCP
 * sign-in page, MCP access and refresh tokens) goes through one throttle in Redis: 10 failures a minute
 * per address, then a 15-minute lock-out that refuses the right credential too.
 */
const ADMIN_TOKEN = 'security-admin-token-0123456789abcdef';
const GUESS = 'guess-';

describe('one credential throttle for every check of the hub, shared through Redis', () => {
  // Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  const hubs: TestHub[] = [];
  const prefixes: string[] = [];
  const hubOn = async (prefix: string, overrides: Parameters<typeof startHub>[3] = {}) => {
    const hub = await startHub(redis, prefix, ADMIN_TOKEN, overrides);
    hubs.push(hub);
    return hub;
  };
  const freshPrefix = () => {
    const prefix = newPrefix();
    prefixes.push(prefix);
    return prefix;
  };

  afterAll(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('the figures: 10 failures a minute per address, 100 per credential, a 15-minute lock-out, busy after 5 s, a check abandoned after 30 s', () => {
    expect(CREDENTIAL_THROTTLE_DEFAULTS).toEqual({ perAddress: 10, perCredential: 100, windowSeconds: 60, lockoutSeconds: 900, busyAfterMs: 5000, abandonedAfterMs: 30_000 });
  });

  it('replays the attack: 200 wrong bearer tokens on /api/* at once, then the right one from the same address, is refused', async () => {
    // The figures of the limits, but no "busy" refusals: on a loaded machine half the burst waited past
    // busyAfterMs (5 s) and was answered 503 instead of 429 (busy has its own test).
    const h = await hubOn(freshPrefix(), { throttle: { ...CREDENTIAL_THROTTLE_DEFAULTS, busyAfterMs: 120_000 } });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${GUESS}${i}` } })));
    const elapsed = Date.now() - started;
    const statuses = answers.map((a) => a.status);
    // At most 10 were compared at all (each attempt is counted before the comparison, atomically).
    expect(statuses.filter((s) => s === 401).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(190);
    const right = await fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(right.status).toBe(429);
    expect(await right.json()).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
    const retryAfter = Number(right.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(880);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Nothing was read or started, and no guessed value is in a log line (the failures are logged).
    expect(h.runs.runs.size).toBe(0);
    const logText = h.logs.join('');
    expect(logText).toContain('credential check failed');
    expect(logText).toContain('"credential":"admin-token"');
    expect(logText).not.toContain(GUESS);
    expect(logText).not.toContain(ADMIN_TOKEN);
    console.log(`200 guesses answered in ${elapsed} ms: 10 × 401, 190 × 429; the right token then 429, Retry-After ${retryAfter} s`);
  });

  it('counts bearer, Basic on the queue UI, dashboard sign-in and the MCP sign-in page together, on every hub process', async () => {
    const prefix = freshPrefix();
    const [a, b] = [await hubOn(prefix), await hubOn(prefix)];
    const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
    expect((await fetch(`${a.base}/api/runs`, { headers: { Authorization: `Bearer ${GUESS}1` } })).status).toBe(401);
    expect((await fetch(`${b.base}/api/runs`, { headers: { Authorization: `Bearer ${GUESS}2` } })).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await fetch(`${a.base}/admin/queues`, { headers: { Authorization: basic(`${GUESS}b${i}`) } })).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      const signIn = await fetch(`${b.base}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: `${GUESS}s${i}` }) });
      expect(signIn.status).toBe(401);
    }
    // Two more on the MCP sign-in page make 10.
    const registered = (await (await fetch(`${a.base}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:4000/cb'], token_endpoint_auth_method: 'none' }) })).json()) as { client_id: string };
    const authorize = `${a.base}/authorize?${new URLSearchParams({ response_type: 'code', client_id: registered.client_id, code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' })}`;
    const request = /name="request" value="([^"]+)"/.exec(await (await fetch(authorize)).text())![1]!;
    const form = (token: string) => fetch(`${b.base}/mcp-sign-in`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request, token, action: 'allow' }).toString() });
    expect((await form(`${GUESS}m1`)).status).toBe(401);
    expect((await form(`${GUESS}m2`)).status).toBe(401);

    // Locked out everywhere, the right token included, on both processes.
    expect((await fetch(`${a.base}/api/runs`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(429);
    expect((await fetch(`${b.base}/admin/queues`, { headers: { Authorization: basic(ADMIN_TOKEN) } })).status).toBe(429);
    const signIn = await fetch(`${a.base}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: ADMIN_TOKEN }) });
    expect(signIn.status).toBe(429);
    expect(signIn.headers.get('set-cookie')).toBeNull();
    const page = await form(ADMIN_TOKEN);
    expect(page.status).toBe(429);
    expect(page.headers.get('location')).toBeNull();
  });

  it('counts an IPv6 /64 as one address, and lets other addresses in', async () => {
    const h = await hubOn(freshPrefix(), { trustProxy: true });
    const from = (address: string, token: string) => fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': address } });
    for (let i = 0; i < 10; i++) expect((await from(`2001:db8:1:2::${(i + 1).toString(16)}`, `${GUESS}${i}`)).status).toBe(401);
    expect((await from('2001:db8:1:2:ffff::9', ADMIN_TOKEN)).status).toBe(429);
    expect((await from('2001:db8:1:3::1', ADMIN_TOKEN)).status).toBe(200);
    expect((await from('198.51.100.4', ADMIN_TOKEN)).status).toBe(200);
    expect(clientAddressKey('::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(clientAddressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  it('per credential: guesses spread over many addresses lock out the addresses that failed, not the rightful one', async () => {
    const h = await hubOn(freshPrefix(), { trustProxy: true, throttle: { perCredential: 20 } });
    const from = (address: string, token: string) => fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': address } });
    for (let i = 0; i < 20; i++) expect((await from(`203.0.113.${i + 1}`, `${GUESS}${i}`)).status).toBe(401);
    // Each of those addresses failed once (far under 10), but the credential is now under lock-out for them.
    expect((await from('203.0.113.1', ADMIN_TOKEN)).status).toBe(429);
    expect((await from('203.0.113.20', `${GUESS}again`)).status).toBe(429);
    expect((await from('198.51.100.77', ADMIN_TOKEN)).status).toBe(200);
    expect(h.logs.join('')).toContain('the credential is locked out for addresses that failed on it');
  });

  it('MCP access tokens: wrong ones are counted at /mcp, then even a valid one is refused', async () => {
    const h = await hubOn(freshPrefix());
    const { accessToken } = await mcpSignIn(h.base, ADMIN_TOKEN);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => mcpCall(h.base, { Authorization: `Bearer vhmcp_at_${GUESS}${i}` })));
    expect(answers.filter((a) => a.status === 401).length).toBe(10);
    expect(answers.filter((a) => a.status === 429).length).toBe(20);
    const valid = await mcpCall(h.base, { Authorization: `Bearer ${accessToken}` });
    expect(valid.status).toBe(429);
    expect(await valid.json()).toMatchObject({ error: 'too_many_requests' });
  });

  it('MCP refresh tokens: wrong ones are counted at /token, then even a valid one is refused', async () => {
    const h = await hubOn(freshPrefix());
    const { clientId, refreshToken } = await mcpSignIn(h.base, ADMIN_TOKEN);
    for (let i = 0; i < 10; i++) {
      const wrong = await tokenRequest(h.base, { grant_type: 'refresh_token', client_id: clientId, refresh_token: `vhmcp_rt_${GUESS}${i}` });
      expect(wrong.status).toBe(400);
    }
    const valid = await tokenRequest(h.base, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
    expect(valid.status).toBe(429);
    expect(h.logs.join('')).toContain('"credential":"mcp-refresh-token"');
    expect(h.logs.join('')).not.toContain(GUESS);
  });

  it('a right credential is given back: a busy admin is never locked out by its own successes', async () => {
    const h = await hubOn(freshPrefix());
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    for (let i = 0; i < 9; i++) expect((await fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${GUESS}${i}` } })).status).toBe(401);
    expect((await fetch(`${h.base}/api/runs`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });
});
