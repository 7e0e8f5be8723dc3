import { LocalEngine } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

describe('a resolver that cannot see the internet', () => {
  let world: MailWorld;
  beforeAll(async () => {
    world = await startMailWorld();
  });
  afterEach(() => {
    world.dns.mode = 'normal';
  });
  afterAll(async () => {
    await world.stop();
  });

  it.each(['nxdomain-all', 'refuse-all'] as const)('answering %s: results are unknown dns_unavailable, never invalid, and the engine says so once', async (mode) => {
    world.dns.mode = mode;
    const engine = engineFor(world);
    const events: string[] = [];
    engine.on('dns-unavailable', () => events.push('dns-unavailable'));
    const results = await Promise.all(['john@acme-mail.com', 'jane@missing-domain.com', 'x@company.org'].map((a) => engine.verify(a)));
    for (const v of results) expect(v).toMatchObject({ risk: 'unknown', reason: 'dns_unavailable', billable: false, score: 0 });
    expect(engine.dnsUnavailable).toBe(true);
    expect(events).toEqual(['dns-unavailable']);
    expect(world.smtp.connections.size).toBe(0);
  });

  it('answering nothing at all (timeouts): unknown dns_unavailable within the DNS timeouts', async () => {
    world.dns.mode = 'silent';
    const engine = engineFor(world, { dnsTimeoutMs: 150 });
    const started = Date.now();
    const v = await engine.verify('john@acme-mail.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'dns_unavailable' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('once found blind, answers the next addresses without querying each domain', async () => {
    world.dns.mode = 'nxdomain-all';
    const engine = engineFor(world, { domainCacheTtlMs: 60_000 });
    await engine.verify('a@first-domain.com');
    const before = world.dns.queries.length;
    const v = await engine.verify('b@second-domain.com');
    expect(v.reason).toBe('dns_unavailable');
    expect(world.dns.queries.length).toBe(before); // the cached anchor probe answered
  });

  it('checkDns() lets a caller find out up front, and recovers when the resolver does', async () => {
    world.dns.mode = 'nxdomain-all';
    const engine = engineFor(world);
    await expect(engine.checkDns()).resolves.toBe(false);
    expect(engine.dnsUnavailable).toBe(true);
    world.dns.mode = 'normal';
    await expect(engine.checkDns()).resolves.toBe(true);
    expect(engine.dnsUnavailable).toBe(false);
    world.smtp.script('john@acme-mail.com', 'accept');
    await expect(engine.verify('john@acme-mail.com')).resolves.toMatchObject({ risk: 'safe' });
  });

  it('trusts an NXDOMAIN when the resolver answers for the TLD', async () => {
    const engine = engineFor(world);
    const v = await engine.verify('x@missing-domain.com');
    expect(v).toMatchObject({ risk: 'invalid', reason: 'domain_not_found' });
    expect(engine.dnsUnavailable).toBe(false);
  });

  it('a resolver that fails for one domain only (SERVFAIL-like) gives dns_error, not dns_unavailable', async () => {
    const engine = new LocalEngine({ dnsServers: [world.dnsServer], dnsTimeoutMs: 150, domainCacheTtlMs: 0, allowPrivateMx: true, smtpPort: world.smtpPort });
    world.dns.delays.set('slow-domain.com', 1000);
    world.dns.set('slow-domain.com', { MX: [{ exchange: 'mx1.acme-mail.com', priority: 1 }] });
    const v = await engine.verify('x@slow-domain.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'dns_error', billable: false });
    expect(engine.dnsUnavailable).toBe(false);
  });
});
