import { EngineQuotaError, EngineRateLimitError, QuotaError, RateLimitError, parseScope } from '@verify-hub/core';
import { HubSpotConnector, HubSpotDailyLimitError, HubSpotRateLimitError, nextMidnight } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, drain, hostWrite, localDeps, noWait, privateConnection, verification } from './helpers';

const fake = new FakeHubSpot();
beforeAll(async () => {
  await fake.start();
});
afterAll(() => fake.stop());

describe('rate limits', () => {
  it('asks for limiters shared per portal: the 10-second window by tier, and search at 5 per second', () => {
    fake.addPortal({ portalId: '501', token: 'rl-1' });
    const deps = localDeps();
    new HubSpotConnector(privateConnection(fake, '501', 'rl-1'), deps);
    new HubSpotConnector(privateConnection(fake, '501', 'rl-1', { rateTier: 'private-pro' }), deps);
    new HubSpotConnector({ ...privateConnection(fake, '501', 'x'), credentials: { accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() + 3600_000 } }, deps);
    new HubSpotConnector(privateConnection(fake, '501', 'rl-1', { requestsPerTenSeconds: 42 }), deps);
    expect(deps.specs).toEqual([
      { key: 'hubspot:501:10s', perInterval: { count: 100, intervalMs: 10_000 } },
      { key: 'hubspot:501:search', perInterval: { count: 5, intervalMs: 1000 } },
      { key: 'hubspot:501:10s', perInterval: { count: 190, intervalMs: 10_000 } },
      { key: 'hubspot:501:search', perInterval: { count: 5, intervalMs: 1000 } },
      { key: 'hubspot:501:10s', perInterval: { count: 110, intervalMs: 10_000 } },
      { key: 'hubspot:501:search', perInterval: { count: 5, intervalMs: 1000 } },
      { key: 'hubspot:501:10s', perInterval: { count: 42, intervalMs: 10_000 } },
      { key: 'hubspot:501:search', perInterval: { count: 5, intervalMs: 1000 } },
    ]);
  });

  it('stays inside the portal window: six connectors sharing the limiter never get a 429', async () => {
    // The connector's limiter: 5 calls per 500 ms; the fake allows 10 (twice, so network jitter
    // cannot fit two bursts into one window). Without the limiter the six streams would make
    // their 24 calls far faster than 10 per 500 ms.
    fake.addPortal({ portalId: '502', token: 'rl-2', windowLimit: 10, windowMs: 500 });
    fake.addContacts('502', Array.from({ length: 400 }, (_, i) => ({ email: `r${i}@example.com` })));
    const deps = localDeps({ scale: 0.05 });
    const settings = { requestsPerTenSeconds: 5 };
    const hubs = Array.from({ length: 6 }, () => connector(fake, '502', 'rl-2', { deps, settings }));
    fake.resetCalls();
    const results = await Promise.all(hubs.map((hub) => drain(hub, 'all')));
    expect(results.map((r) => r.contacts.length)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(0);
    expect(fake.calls).toHaveLength(24);
  }, 30_000);

  it('rides out a 429 storm (10-second and per-second policies) with nothing lost', async () => {
    fake.addPortal({ portalId: '503', token: 'rl-3', windowMs: 50 });
    const ids = fake.addContacts('503', Array.from({ length: 450 }, (_, i) => ({ email: `s${i}@example.com`, modifiedAt: Date.parse('2026-05-01T00:00:00Z') + i })));
    const hub = connector(fake, '503', 'rl-3');
    await hub.ensureSchema();
    fake.resetCalls();
    fake.inject({ kind: 'rate-limit', policyName: 'TEN_SECONDLY_ROLLING', count: 7, path: /contacts$/ });
    fake.inject({ kind: 'rate-limit', policyName: 'SECONDLY', count: 5, path: /search$/ });
    fake.inject({ kind: 'rate-limit', policyName: 'TEN_SECONDLY_ROLLING', count: 6, path: /batch\/update$/ });
    const all = await drain(hub, 'all');
    const since = await drain(hub, 'changed-since:2026-05-01T00:00:00Z');
    // A write is tried twice by the host's write layer; a longer storm goes to the job layer, which writes the chunk again.
    const results = all.contacts.map((contact) => ({ contact, verification: verification(contact.email) }));
    let report;
    let toJobLayer = 0;
    while (!report) {
      report = await hostWrite(hub, results).catch((error: unknown) => {
        expect(error).toBeInstanceOf(HubSpotRateLimitError);
        toJobLayer++;
        return undefined;
      });
    }
    expect(toJobLayer).toBe(3);
    expect(new Set(all.contacts.map((c) => c.id))).toEqual(new Set(ids));
    expect(new Set(since.contacts.map((c) => c.id))).toEqual(new Set(ids));
    expect(report).toEqual({ written: 450, unchanged: [], failed: [] });
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(18);
    expect(ids.every((id) => fake.portal('503').contacts.get(id)!.properties.ev_risk === 'safe')).toBe(true);
  });

  it('waits for the window the 429 headers give before trying again', async () => {
    fake.addPortal({ portalId: '504', token: 'rl-4', windowMs: 250 });
    fake.addContacts('504', [{ email: 'w@example.com' }]);
    const waits: number[] = [];
    const hub = connector(fake, '504', 'rl-4', { options: { retry: { sleep: async (ms) => void waits.push(ms) } } });
    fake.inject({ kind: 'rate-limit', policyName: 'TEN_SECONDLY_ROLLING', count: 2 });
    await hub.pull(parseScope('all'));
    expect(waits).toHaveLength(2);
    expect(waits.every((ms) => ms > 150 && ms <= 250)).toBe(true);
  });

  it('hands a window that stays full to the pipeline as a rate-limit error after its own waits', async () => {
    fake.addPortal({ portalId: '505', token: 'rl-5' });
    const hub = connector(fake, '505', 'rl-5', { options: { retry: { ...noWait, maxRateWaits: 3 } } });
    fake.inject({ kind: 'rate-limit', policyName: 'TEN_SECONDLY_ROLLING', count: 4 });
    const error = await hub.pull(parseScope('all')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubSpotRateLimitError);
    // the pipeline branches on the kind; the source says it is HubSpot's, not the engine's
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ source: 'hubspot' });
    expect(error).not.toBeInstanceOf(EngineRateLimitError);
  });

  it('pauses on the DAILY policy until the portal\'s next midnight, in its time zone, without retrying', async () => {
    fake.addPortal({ portalId: '506', token: 'rl-6', dailyLimit: 3 });
    const hub = connector(fake, '506', 'rl-6', { settings: { timeZone: 'America/New_York' } });
    for (let i = 0; i < 3; i++) await hub.pull(parseScope('all'));
    fake.resetCalls();
    const before = Date.now();
    const error = (await hub.pull(parseScope('all')).catch((e: unknown) => e)) as HubSpotDailyLimitError;
    expect(error).toBeInstanceOf(HubSpotDailyLimitError);
    expect(error).toBeInstanceOf(QuotaError);
    expect(error).toMatchObject({ source: 'hubspot' });
    expect(error).not.toBeInstanceOf(EngineQuotaError);
    expect(fake.calls).toHaveLength(1);
    const midnight = nextMidnight('America/New_York', before);
    expect(error.resumeAt).toBe(midnight);
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hourCycle: 'h23', hour: '2-digit', minute: '2-digit' }).format(new Date(error.resumeAt));
    expect(local).toBe('00:00');
    expect(error.resumeAt - before).toBeGreaterThan(0);
    expect(error.resumeAt - before).toBeLessThanOrEqual(25 * 3600_000);
  });

  it('stops at the configured daily reserve from X-HubSpot-RateLimit-Daily-Remaining, before any 429', async () => {
    fake.addPortal({ portalId: '507', token: 'rl-7', dailyLimit: 10 });
    const hub = connector(fake, '507', 'rl-7', { settings: { dailyReserve: 8 } });
    await hub.pull(parseScope('all'));
    await hub.pull(parseScope('all'));
    fake.resetCalls();
    await expect(hub.pull(parseScope('all'))).rejects.toBeInstanceOf(HubSpotDailyLimitError);
    expect(fake.calls).toHaveLength(0);
  });
});

describe('nextMidnight', () => {
  it('finds local midnight across time zones and DST changes', () => {
    expect(new Date(nextMidnight('UTC', Date.parse('2026-03-07T13:00:00Z'))).toISOString()).toBe('2026-03-08T00:00:00.000Z');
    // New York: 7 March is EST (UTC-5), 8 March switches to EDT at 2:00.
    expect(new Date(nextMidnight('America/New_York', Date.parse('2026-03-07T13:00:00Z'))).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(new Date(nextMidnight('America/New_York', Date.parse('2026-03-08T13:00:00Z'))).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(new Date(nextMidnight('Asia/Kolkata', Date.parse('2026-01-01T20:00:00Z'))).toISOString()).toBe('2026-01-02T18:30:00.000Z');
    expect(new Date(nextMidnight('Not/AZone', Date.parse('2026-01-01T20:00:00Z'))).toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });
});
