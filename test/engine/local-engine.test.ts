import { VerificationSchema } from '@verify-hub/core';
import type { LocalEngine } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

describe('LocalEngine against local DNS and SMTP peers', () => {
  let world: MailWorld;
  let engine: LocalEngine;

  beforeAll(async () => {
    world = await startMailWorld();
    world.smtp
      .script('john@acme-mail.com', 'accept')
      .script('info@acme-mail.com', 'accept')
      .script('full@acme-mail.com', 'full')
      .script('gone@acme-mail.com', 'disabled')
      .script('grey@acme-mail.com', 'greylist')
      .script('blocked@acme-mail.com', 'blocked')
      .script('drop@acme-mail.com', 'drop')
      .script('hang@acme-mail.com', 'hang')
      .script('odd@acme-mail.com', { code: 550, message: 'Rejected' })
      .script('x@implicit-mx.com', 'accept');
    engine = engineFor(world, { randomToken: () => 'r4nd0m' });
  });
  afterAll(async () => {
    await world.stop();
  });

  it('accepted mailbox on a domain that rejects a random address: safe, with every check reported', async () => {
    const v = await engine.verify('john@acme-mail.com');
    expect(VerificationSchema.parse(v)).toEqual(v);
    expect(v).toMatchObject({ risk: 'safe', reason: 'deliverable', score: 95, billable: true });
    expect(v.checks).toMatchObject({
      syntax: true, mx: true, smtp: true, catchAll: false, domainExists: true, implicitMx: false, nullMx: false, smtpConnect: true,
      smtpGreeting: true, starttls: true, greylisted: false, mailboxFull: false, mailboxDisabled: false, provider: null,
      smtpReply: { code: 250, class: 'accepted' },
    });
    expect(v.checks.catchAllConfidence).toBeLessThan(0.5);
    expect(v.deliverability).toEqual({
      grade: 'A', score: 100, authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listedCount: 0, totalChecks: 10 },
    });
  });

  it('speaks SMTP in order, upgrades with STARTTLS, probes a random address, and ends with QUIT before any DATA', async () => {
    world.smtp.connections.clear();
    await engine.verify('john@acme-mail.com');
    expect(world.smtp.commandNames()).toEqual([['EHLO', 'STARTTLS', 'EHLO', 'MAIL', 'RCPT', 'RCPT', 'QUIT']]);
    const [connection] = [...world.smtp.connections.values()];
    expect(connection!.secure).toBe(true);
    expect(connection!.commands).toContain('EHLO verifier.acme-tools.com');
    expect(connection!.commands).toContain('MAIL FROM:<probe@verifier.acme-tools.com>');
    expect(world.smtp.rcptAddresses()).toEqual(['john@acme-mail.com', 'vh-probe-r4nd0m@acme-mail.com']);
    expect(world.smtp.dataCommands).toBe(0);
  });

  it.each([
    ['nobody@acme-mail.com', 'invalid', 'mailbox_not_found', { smtp: false, smtpReply: { code: 550, enhanced: '5.1.1', class: 'mailbox_not_found' } }],
    ['gone@acme-mail.com', 'invalid', 'mailbox_disabled', { smtp: false, mailboxDisabled: true }],
    ['full@acme-mail.com', 'risky', 'mailbox_full', { smtp: true, mailboxFull: true }],
    ['grey@acme-mail.com', 'unknown', 'greylisted', { smtp: null, greylisted: true, retryAfterSeconds: 120 }],
    ['blocked@acme-mail.com', 'unknown', 'smtp_policy_block', { smtp: null, smtpCheck: 'blocked' }],
    ['odd@acme-mail.com', 'unknown', 'smtp_ambiguous', { smtp: null }],
    ['drop@acme-mail.com', 'unknown', 'smtp_connection_dropped', { smtp: null, smtpConnect: true }],
    ['hang@acme-mail.com', 'unknown', 'smtp_timeout', { smtp: null, smtpConnect: true }],
    ['info@acme-mail.com', 'risky', 'role_account', { smtp: true, roleAccount: true, catchAll: false }],
    ['anyone@catchall-corp.com', 'risky', 'catch_all', { smtp: true, catchAll: true, catchAllConfidence: 0.95 }],
    ['x@implicit-mx.com', 'safe', 'deliverable', { mx: true, implicitMx: true, smtp: true }],
    ['x@null-mx.com', 'invalid', 'null_mx', { mx: false, nullMx: true, smtpConnect: null }],
    ['x@no-mail.com', 'invalid', 'no_mx', { mx: false, implicitMx: false, domainExists: true }],
    ['x@missing-domain.com', 'invalid', 'domain_not_found', { mx: false, domainExists: false }],
    ['x@company.notatld', 'invalid', 'domain_not_found', { domainExists: false }],
    ['someone@yahoo-hosted.com', 'risky', 'provider_accepts_all', { provider: 'yahoo', catchAll: true, catchAllConfidence: 0.9, smtp: null }],
  ])('%s -> %s (%s)', async (address, risk, reason, checks) => {
    const v = await engine.verify(address);
    expect({ risk: v.risk, reason: v.reason }).toEqual({ risk, reason });
    expect(v.checks).toMatchObject(checks);
    expect(v.billable).toBe(risk !== 'unknown');
    if (risk === 'unknown') expect(v.score).toBeLessThanOrEqual(40);
    if (risk === 'invalid') expect(v.score).toBeLessThan(10);
  });

  it('never sends DATA and always ends a conversation it opened with QUIT (unless the server hung up)', () => {
    expect(world.smtp.dataCommands).toBe(0);
    for (const commands of world.smtp.commandNames()) {
      expect(commands).not.toContain('DATA');
      if (commands.includes('RCPT')) expect(['QUIT', 'RCPT']).toContain(commands[commands.length - 1]);
    }
  });

  it('a provider known to accept every RCPT gets no random probe and is never safe', async () => {
    world.smtp.connections.clear();
    const v = await engine.verify('real.person@yahoo-hosted.com');
    expect(v.risk).toBe('risky');
    expect(world.smtp.rcptAddresses()).toEqual(['real.person@yahoo-hosted.com']);
  });

  it('detects Google from the MX host and still reads its RCPT answers', async () => {
    const v = await engine.verify('nobody@google-hosted.com');
    expect(v).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found', checks: { provider: 'google' } });
  });

  it('refuses to connect to an MX on a private address unless allowed', async () => {
    const strict = engineFor(world, { allowPrivateMx: false });
    world.smtp.connections.clear();
    const v = await strict.verify('john@private-mx.com');
    expect(v).toMatchObject({ risk: 'invalid', reason: 'mx_private', checks: { mx: true, mxPrivate: true, smtpConnect: null } });
    const local = await strict.verify('john@acme-mail.com');
    expect(local.reason).toBe('mx_private');
    expect(world.smtp.connections.size).toBe(0);
  });

  it('tries the next MX when the first cannot be reached', async () => {
    world.dns.set('two-mx.com', { MX: [{ exchange: 'dead.two-mx.com', priority: 1 }, { exchange: 'live.two-mx.com', priority: 2 }] });
    world.dns.set('dead.two-mx.com', { A: ['127.0.0.2'] }); // nothing listens there on the peer's port
    world.dns.set('live.two-mx.com', { A: ['127.0.0.1'] });
    world.smtp.script('ok@two-mx.com', 'accept');
    const v = await engine.verify('ok@two-mx.com');
    expect(v).toMatchObject({ risk: 'safe', checks: { smtpConnect: true } });
  });

  it('reports an unreachable mail server as unknown', async () => {
    world.dns.set('down.com', { MX: [{ exchange: 'mx.down.com', priority: 1 }] }).set('mx.down.com', { A: ['127.0.0.3'] });
    const v = await engine.verify('a@down.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'smtp_unreachable', billable: false, checks: { smtpConnect: false, mx: true } });
  });

  it('counts DNSBL listings across the zones, leaving out zones that refuse to answer', async () => {
    const zones = Array.from({ length: 10 }, (_, i) => `bl${i}.dnsbl-test.net`);
    world.dns.listOnDnsbl('127.0.0.1', zones[0]!).listOnDnsbl('127.0.0.1', zones[3]!).listOnDnsbl('127.0.0.1', zones[7]!);
    world.dns.listOnDnsbl('127.0.0.1', zones[9]!, '127.255.255.254'); // Spamhaus-style "query refused"
    const listedEngine = engineFor(world, { dnsblZones: zones });
    const v = await listedEngine.verify('john@acme-mail.com');
    expect(v.deliverability?.blacklist).toEqual({ listed: true, listedCount: 3, totalChecks: 9 });
    expect(v.risk).toBe('safe');
    expect(v.score).toBe(85); // 95 - 10 for the listed mail server
    expect(v.checks.spamTrapRisk).toBe('none');
    const role = await listedEngine.verify('info@acme-mail.com');
    expect(role.checks.spamTrapRisk).toBe('medium'); // a role account behind a blocklisted server
  });

  it('reads SPF, DMARC and DKIM as absent when the resolver says so', async () => {
    const v = await engine.verify('x@implicit-mx.com');
    expect(v.deliverability?.authentication).toEqual({ spf: 'missing', dkim: 'missing', dmarc: 'missing' });
    expect(v.deliverability?.grade).toBe('D');
    expect(v.score).toBe(90); // 95 - 5: neither SPF nor DMARC
  });

  it('answers promptly when the peers answer promptly (well under a second)', async () => {
    const started = Date.now();
    await engine.verify('john@acme-mail.com');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('shares one domain lookup between verifications when the cache is on', async () => {
    const cached = engineFor(world, { domainCacheTtlMs: 60_000 });
    const before = world.dns.queriesFor('acme-mail.com');
    await Promise.all([cached.verify('john@acme-mail.com'), cached.verify('info@acme-mail.com'), cached.verify('nobody@acme-mail.com')]);
    expect(world.dns.queriesFor('acme-mail.com') - before).toBe(2); // one MX and one TXT (SPF) query
  });

  it('with SMTP off, stops at the domain checks and says so', async () => {
    const dnsOnly = engineFor(world, { smtp: false });
    world.smtp.connections.clear();
    const v = await dnsOnly.verify('john@acme-mail.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'smtp_not_checked', score: 40, billable: false, checks: { mx: true, smtp: null } });
    expect(world.smtp.connections.size).toBe(0);
  });

  it('opens at most maxConnectionsPerHost sessions to one mail host; the others wait their turn', async () => {
    for (let i = 0; i < 8; i++) world.smtp.script(`queue${i}@acme-mail.com`, 'accept');
    world.smtp.connections.clear();
    const limited = engineFor(world, { maxConnectionsPerHost: 2, totalTimeoutMs: 10_000 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => limited.verify(`queue${i}@acme-mail.com`)));
    expect(results.map((r) => r.risk)).toEqual(Array(8).fill('safe'));
    expect(world.smtp.connections.size).toBe(8);
    // At most 2 (exactly 2 needs the DNS lookups before them to finish together, which a loaded machine does not promise).
    expect(world.smtp.maxConcurrentConversations()).toBeLessThanOrEqual(2);
  });

  it('an unforeseen failure inside the engine ends as unknown, never as a thrown error', async () => {
    const broken = engineFor(world, { smtpPort: 70_000 }); // net.connect throws a RangeError: not a network outcome
    await expect(broken.verify('john@acme-mail.com')).resolves.toMatchObject({ risk: 'unknown', reason: 'engine_error', billable: false });
  });

  it('stops at the caller’s abort signal', async () => {
    const controller = new AbortController();
    const pending = engine.verify('hang@acme-mail.com', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled by caller')), 50);
    await expect(pending).rejects.toThrow('cancelled by caller');
  });
});
