import type { EngineKeyAdmin } from '@verify-hub/webhooks-in';
import { cli } from '../cli/run-cli';
import { MemoryConnectionStore } from '../webhooks-in/file-cleaning';
import { deleteKeys, mcpCall, mcpSignIn, newPrefix, Redis, startHub, tokenRequest, type TestHub } from './hub';

/**
 * Issue 37, defect 2: "after a restart with a new token, an old session cookie still read connections and
 * created an engine key; an old MCP access token still called tools; an old MCP refresh token still
 * minted fresh tokens for 30 days". Sessions and MCP tokens are bound to the admin credential they were
 * issued under; `verify-hub sessions revoke --all` and the dashboard's button end them without a restart;
 * refresh tokens rotate, and a reused one ends its whole family.
 */
const OLD_TOKEN = 'revocation-old-admin-token-0123456789';
const NEW_TOKEN = 'revocation-new-admin-token-9876543210';

/** An engine-key admin that only records what it was asked (the route's effect is what is tested). */
function recordingKeyAdmin(): EngineKeyAdmin & { created: string[] } {
  const created: string[] = [];
  return {
    created,
    list: async () => [],
    create: async (name) => {
      created.push(name);
      return { key: 'vh_made-by-the-test', record: { id: 'k1', account: 'default', name, createdAt: new Date().toISOString(), revokedAt: null, display: 'vh_ma…', lastUsedAt: null } };
    },
    revoke: async () => null,
    usage: async () => ({ account: 'default', ratePerSecond: 10, monthlyQuota: 100, used: 0, remaining: 100, resetsAt: Date.now() }),
  };
}

async function dashboardSignIn(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  expect(res.status).toBe(204);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

interface Held {
  cookie: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

describe('revoking dashboard sessions and MCP tokens', () => {
  // Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  const prefixes: string[] = [];
  const running: TestHub[] = [];
  const keyAdmin = recordingKeyAdmin();
  const start = async (prefix: string, token: string) => {
    const hub = await startHub(redis, prefix, token, { engineKeys: { admin: keyAdmin }, connections: new MemoryConnectionStore() });
    running.push(hub);
    return hub;
  };
  const fresh = () => {
    const prefix = newPrefix();
    prefixes.push(prefix);
    return prefix;
  };
  async function signInEverywhere(hub: TestHub, token: string): Promise<Held> {
    const cookie = await dashboardSignIn(hub.base, token);
    const { clientId, accessToken, refreshToken } = await mcpSignIn(hub.base, token);
    // Each works before the revocation.
    expect((await fetch(`${hub.base}/api/connections`, { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await mcpCall(hub.base, { Authorization: `Bearer ${accessToken}` })).status).toBe(200);
    return { cookie, clientId, accessToken, refreshToken };
  }
  /** What the attack did with the old credentials; every step must be refused and change nothing. */
  async function expectAllRefused(hub: TestHub, held: Held): Promise<void> {
    const createdBefore = keyAdmin.created.length;
    const connections = await fetch(`${hub.base}/api/connections`, { headers: { Cookie: held.cookie } });
    expect(connections.status).toBe(401);
    const newKey = await fetch(`${hub.base}/api/engine/keys`, { method: 'POST', headers: { Cookie: held.cookie, 'X-VerifyHub-CSRF': '1', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'attacker' }) });
    expect(newKey.status).toBe(401);
    expect(keyAdmin.created.length).toBe(createdBefore);
    const tool = await mcpCall(hub.base, { Authorization: `Bearer ${held.accessToken}` });
    expect(tool.status).toBe(401);
    expect(tool.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const refreshed = await tokenRequest(hub.base, { grant_type: 'refresh_token', client_id: held.clientId, refresh_token: held.refreshToken });
    expect(refreshed.status).toBe(400);
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_grant');
    expect(body.access_token).toBeUndefined();
  }

  afterAll(async () => {
    await Promise.all(running.map((h) => h.close()));
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('replays the attack: a restart with a new HUB_ADMIN_TOKEN ends the old cookie, access token and refresh token', async () => {
    const prefix = fresh();
    const before = await start(prefix, OLD_TOKEN);
    const held = await signInEverywhere(before, OLD_TOKEN);
    await before.close();
    running.splice(running.indexOf(before), 1);

    const after = await start(prefix, NEW_TOKEN);
    await expectAllRefused(after, held);
    // The new token signs in as usual.
    const cookie = await dashboardSignIn(after.base, NEW_TOKEN);
    expect((await fetch(`${after.base}/api/connections`, { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it('going back to the old token revives nothing: each new token seen moves the generation on', async () => {
    const prefix = fresh();
    const first = await start(prefix, OLD_TOKEN);
    const held = await signInEverywhere(first, OLD_TOKEN);
    const second = await start(prefix, NEW_TOKEN);
    await dashboardSignIn(second.base, NEW_TOKEN);
    const third = await start(prefix, OLD_TOKEN);
    await expectAllRefused(third, held);
  });

  it('`verify-hub sessions revoke --all` ends them on every running hub process, without a restart', async () => {
    const base = `test:security:${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const prefix = `${base}:hub:`;
    prefixes.push(prefix);
    const [a, b] = [await start(prefix, OLD_TOKEN), await start(prefix, OLD_TOKEN)];
    const held = await signInEverywhere(a, OLD_TOKEN);
    expect((await fetch(`${b.base}/api/connections`, { headers: { Cookie: held.cookie } })).status).toBe(200);

    const refused = await cli('sessions', 'revoke');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--all');
    expect((await fetch(`${b.base}/api/connections`, { headers: { Cookie: held.cookie } })).status).toBe(200);

    const env = { REDIS_URL: process.env.REDIS_URL, VERIFY_HUB_REDIS_PREFIX: process.env.VERIFY_HUB_REDIS_PREFIX };
    process.env.VERIFY_HUB_REDIS_PREFIX = base;
    try {
      const done = await cli('sessions', 'revoke', '--all');
      expect(done.code).toBe(0);
      expect(done.out).toContain('Revoked every dashboard session and MCP token');
    } finally {
      if (env.VERIFY_HUB_REDIS_PREFIX === undefined) delete process.env.VERIFY_HUB_REDIS_PREFIX;
      else process.env.VERIFY_HUB_REDIS_PREFIX = env.VERIFY_HUB_REDIS_PREFIX;
    }
    await expectAllRefused(a, held);
    await expectAllRefused(b, { ...held, refreshToken: `${held.refreshToken}` });
    // The admin token itself still works, and signs in anew.
    expect((await fetch(`${a.base}/api/connections`, { headers: { Authorization: `Bearer ${OLD_TOKEN}` } })).status).toBe(200);
    await dashboardSignIn(b.base, OLD_TOKEN);
  });

  it("the dashboard's button (POST /api/sessions/revoke) does the same, its own session included", async () => {
    const hub = await start(fresh(), OLD_TOKEN);
    const held = await signInEverywhere(hub, OLD_TOKEN);
    const other = await dashboardSignIn(hub.base, OLD_TOKEN);

    const withoutAll = await fetch(`${hub.base}/api/sessions/revoke`, { method: 'POST', headers: { Cookie: other, 'X-VerifyHub-CSRF': '1', 'Content-Type': 'application/json' }, body: '{}' });
    expect(withoutAll.status).toBe(400);
    expect(await withoutAll.json()).toMatchObject({ field: 'body.all' });
    const forged = await fetch(`${hub.base}/api/sessions/revoke`, { method: 'POST', headers: { Cookie: other, 'Content-Type': 'application/json' }, body: '{"all":true}' });
    expect(forged.status).toBe(403);

    const revoked = await fetch(`${hub.base}/api/sessions/revoke`, { method: 'POST', headers: { Cookie: other, 'X-VerifyHub-CSRF': '1', 'Content-Type': 'application/json' }, body: '{"all":true}' });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ revoked: 'all' });
    expect(revoked.headers.get('set-cookie')).toMatch(/^vh_session=; Max-Age=0/);
    await expectAllRefused(hub, held);
    expect((await fetch(`${hub.base}/api/session`, { headers: { Cookie: other } })).status).toBe(401);
  });

  it('refresh tokens rotate, and presenting a rotated one again ends its whole family', async () => {
    const hub = await start(fresh(), OLD_TOKEN);
    const held = await signInEverywhere(hub, OLD_TOKEN);
    const rotated = await tokenRequest(hub.base, { grant_type: 'refresh_token', client_id: held.clientId, refresh_token: held.refreshToken });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(held.refreshToken);
    expect((await mcpCall(hub.base, { Authorization: `Bearer ${next.access_token}` })).status).toBe(200);

    // A thief (or a confused client) presents the first refresh token again: refused, and the family ends.
    const reused = await tokenRequest(hub.base, { grant_type: 'refresh_token', client_id: held.clientId, refresh_token: held.refreshToken });
    expect(reused.status).toBe(400);
    expect((await mcpCall(hub.base, { Authorization: `Bearer ${next.access_token}` })).status).toBe(401);
    expect((await mcpCall(hub.base, { Authorization: `Bearer ${held.accessToken}` })).status).toBe(401);
    expect((await tokenRequest(hub.base, { grant_type: 'refresh_token', client_id: held.clientId, refresh_token: next.refresh_token })).status).toBe(400);
    expect(hub.logs.join('')).toContain('an MCP refresh token was used twice');
    // Another sign-in (another family) is untouched.
    const other = await mcpSignIn(hub.base, OLD_TOKEN);
    expect((await mcpCall(hub.base, { Authorization: `Bearer ${other.accessToken}` })).status).toBe(200);
  });
});
